// The one way into a round (kprof/run.hpp).
#include "kprof/run.hpp"

#include <fmt/format.h>

#include "kprof/serve.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

/// What must be equal for a kept profiler to run a request: every option of the table but the
/// retries (a copy's own, KernelProfiler::with_retries). Not the problem: the profiler's session
/// runner keeps standbys per problem and drops one of another problem when it is asked
/// (session.cpp, take_standby).
Json profiler_key(const ProfileOptions& options) {
  Json key = option_values(options);
  key.erase("retries");
  std::error_code ec;
  key["out_dir"] = fs::absolute(options.out_dir, ec).lexically_normal().string();
  return key;
}

/// The extraction after a model's round (RoundRequest::extract), with `python` when a profiler of
/// this process found it, else looked up as a profiler would (a kprof serve answered).
Result<Json> extract_after(const ExtractRequest& extract, const RoundResult& round,
                           const fs::path& problem, const ProfileOptions& options,
                           const std::optional<fs::path>& python) {
  fs::path interpreter;
  if (python) {
    interpreter = *python;
  } else {
    auto found = find_python(options.python);
    if (!found) {
      return std::move(found).error();
    }
    interpreter = std::move(found).value();
  }
  if (options.on_progress) {
    options.on_progress(
        fmt::format("extracting the costliest Triton kernels to {}", extract.out_dir.string()));
  }
  return extract_model_kernels(extract, round, problem, options, interpreter);
}

} // namespace

Result<KernelProfiler> ProfilerCache::get(const ProfileOptions& options) {
  const std::lock_guard<std::mutex> hold(m_mutex);
  Json key = profiler_key(options);
  if (!m_profiler || m_key != key) {
    if (m_profiler) {
      m_profiler->release_standbys();
      m_profiler.reset();
    }
    auto created = KernelProfiler::create(options);
    if (!created) {
      return std::move(created).error();
    }
    m_profiler = std::move(created).value();
    m_key = std::move(key);
  }
  return m_profiler->for_call(options.retries, options.on_progress);
}

void ProfilerCache::clear() {
  const std::lock_guard<std::mutex> hold(m_mutex);
  if (m_profiler) {
    m_profiler->release_standbys();
    m_profiler.reset();
  }
}

Result<RoundResult> run_round(const RoundRequest& request, ProfilerCache* cache,
                              std::vector<std::string>& notes) {
  const ProfileOptions& options = request.run.options;
  if (request.extract && (request.batch || request.kernels.size() != 1)) {
    return make_error(ErrorCategory::usage, "--extract follows a model's round of one candidate");
  }
  if (request.extract && options.gpus.size() > 1) {
    return make_error(ErrorCategory::usage, "--extract runs the model on one GPU: name one");
  }
  auto served =
      ask_server(options, request.problem, request.kernels, request.run.round, request.batch);
  if (!served) {
    return std::move(served).error();
  }
  std::optional<RoundResult> round;
  std::optional<fs::path> python; // the one the profiler found, for the extraction
  if (*served && (*served)->reply == ServerReply::answered) {
    round = std::move(*(*served)->round);
    round->served_by = ServedBy{"kprof serve", serve_socket_path(options.out_dir)};
  } else {
    if (*served) {
      notes.push_back(unused_answer_note(**served, options.out_dir));
    }
    auto profiler = cache != nullptr ? cache->get(options) : KernelProfiler::create(options);
    if (!profiler) {
      return std::move(profiler).error();
    }
    auto ran = request.batch
                   ? profiler->profile_batch(request.problem, request.kernels, request.run.round)
                   : profiler->profile(request.kernels.front(), request.problem, request.run.round);
    if (!ran) {
      return std::move(ran).error();
    }
    round = std::move(ran).value();
    round->served_by = ServedBy{request.shell, {}};
    python = profiler->python();
  }
  if (request.extract && !round_error(*round)) {
    round->extracted = extract_after(*request.extract, *round, request.problem, options, python);
  }
  return std::move(*round);
}

} // namespace kprof

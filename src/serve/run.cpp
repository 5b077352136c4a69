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
  auto served =
      ask_server(options, request.problem, request.kernels, request.run.round, request.batch);
  if (!served) {
    return std::move(served).error();
  }
  if (*served && (*served)->reply == ServerReply::answered) {
    RoundResult round = std::move(*(*served)->round);
    round.served_by = ServedBy{"kprof serve", serve_socket_path(options.out_dir)};
    return round;
  }
  if (*served) {
    notes.push_back(unused_answer_note(**served, options.out_dir));
  }
  auto profiler = cache != nullptr ? cache->get(options) : KernelProfiler::create(options);
  if (!profiler) {
    return std::move(profiler).error();
  }
  auto round = request.batch
                   ? profiler->profile_batch(request.problem, request.kernels, request.run.round)
                   : profiler->profile(request.kernels.front(), request.problem, request.run.round);
  if (round) {
    round->served_by = ServedBy{request.shell, {}};
  }
  return round;
}

} // namespace kprof

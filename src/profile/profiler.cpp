// KernelProfiler: one round = one or more ncu sessions, each running the harness over some
// candidates on one GPU.
//
// Design notes.
// - A session is one ncu process profiling one harness process. The harness runs candidates in
//   order, each inside its own flat NVTX range, and reports per candidate in status.json. ncu's
//   exit code is never the verdict alone: we combine what ncu said (log), what rows the CSV holds
//   (per NVTX range) and what the harness says it reached.
// - Retry policy: a session is retried (with doubling backoff) only when the failure is
//   retryable (timeout, transient ncu failure) AND it made no progress; failures that a retry
//   cannot fix (import errors, exceptions, permission, unknown metrics) are final at once. When a
//   session dies or the CUDA context is poisoned mid-way, finished candidates keep their results,
//   the one in flight is charged with the failure, and the rest continue in a fresh process.
// - Files appear whole or not at all: a round is assembled in a staging directory next to its
//   final place and renamed into place at the end; single files use write_file_atomic.
#include "kprof/profiler.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/gpu_lock.hpp"
#include "kprof/history.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/numbers.hpp"
#include "kprof/process.hpp"
#include "kprof/version.hpp"

namespace kprof {
namespace fs = std::filesystem;

std::string round_dir_name(int round) {
  return fmt::format("round{:03d}", round);
}

Json kernelagent_round_json(const Json& report) {
  Json out = Json::object();
  out["metrics"] = report.contains("metrics") ? report["metrics"] : Json::object();
  const Json& md = report.contains("metadata") ? report["metadata"] : Json::object();
  Json meta = Json::object();
  // KernelAgent's ProfilerMetadata fields first, then kprof's extras.
  for (const char* key : {"kernel_file", "problem_file", "round_num", "timestamp", "ncu_version"}) {
    meta[key] = nullptr;
  }
  if (md.contains("kernel_file")) {
    meta["kernel_file"] = md["kernel_file"];
  }
  if (md.contains("problem_file")) {
    meta["problem_file"] = md["problem_file"];
  }
  if (md.contains("round")) {
    meta["round_num"] = md["round"];
  }
  if (md.contains("generated_at")) {
    meta["timestamp"] = md["generated_at"];
  }
  if (md.contains("ncu_version")) {
    meta["ncu_version"] = md["ncu_version"];
  }
  for (const char* key : {"candidate", "gpu", "gpu_index", "clock_control", "status"}) {
    if (md.contains(key)) {
      meta[key] = md[key];
    }
  }
  out["metadata"] = std::move(meta);
  return out;
}

namespace {

std::string random_suffix() {
  std::random_device device;
  return fmt::format("{}-{:08x}", ::getpid(), device());
}

Json error_json(const Error& error) {
  Json out = Json::object();
  out["category"] = std::string(to_string(error.category));
  out["message"] = error.message;
  out["detail"] = error.detail;
  return out;
}

std::string tail_lines(std::string_view text, std::size_t lines) {
  std::size_t pos = text.size();
  std::size_t seen = 0;
  while (pos > 0) {
    --pos;
    if (text[pos] == '\n' && pos + 1 < text.size()) {
      if (++seen == lines) {
        return std::string(text.substr(pos + 1));
      }
    }
  }
  return std::string(text);
}

/// $XDG_CACHE_HOME/kprof/triton, else ~/.cache/kprof/triton, else <tmp>/kprof-triton-cache.
fs::path triton_cache_dir() {
  if (auto xdg = env_var("XDG_CACHE_HOME")) {
    return fs::path(*xdg) / "kprof" / "triton";
  }
  if (auto home = env_var("HOME")) {
    return fs::path(*home) / ".cache" / "kprof" / "triton";
  }
  return fs::temp_directory_path() / "kprof-triton-cache";
}

/// Everything one ncu session produced.
struct SessionOutcome {
  std::vector<std::string> argv;
  ProcessResult process;
  std::string log_text;
  std::optional<Capture> capture; // rows, when the log held any
  std::optional<HarnessStatus> status;
  NcuVerdict verdict;
  bool started = false; // ncu could be spawned
  std::optional<Error> spawn_error;
};

/// The per-candidate decision after a session.
struct CandidateVerdict {
  bool decided = false; // false: not reached in this session
  std::string status;   // ok | partial | failed
  std::optional<Error> error;
  bool retryable = false;
};

bool has_rows_for(const Capture& capture, std::string_view range) {
  return std::any_of(capture.kernels.begin(), capture.kernels.end(),
                     [&](const KernelRecord& k) { return k.nvtx_range == range; });
}

std::vector<std::string> preserved_env_names() {
  return {"PATH",         "LD_LIBRARY_PATH",   "CUDA_VISIBLE_DEVICES",
          "PYTHONPATH",   "TRITON_CACHE_DIR",  "TORCH_EXTENSIONS_DIR",
          "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "VIRTUAL_ENV",
          "HOME",         "PYTHONUNBUFFERED",  "PYTHONDONTWRITEBYTECODE",
          "CUDA_HOME"};
}

} // namespace

Result<KernelProfiler> KernelProfiler::create(ProfileOptions options) {
  if (options.retries < 0) {
    return make_error(ErrorCategory::usage, "--retries must be 0 or more");
  }
  if (options.warmup < 0) {
    return make_error(ErrorCategory::usage, "--warmup must be 0 or more");
  }
  if (options.timeout.count() <= 0) {
    return make_error(ErrorCategory::usage, "--timeout must be a positive number of seconds");
  }
  for (int gpu : options.gpus) {
    if (gpu < 0) {
      return make_error(ErrorCategory::usage, fmt::format("GPU index {} is negative", gpu));
    }
  }
  {
    // ncu runs in the round's directory: every path handed to it must be absolute.
    std::error_code ec;
    options.out_dir = fs::absolute(options.out_dir, ec);
    if (!options.lock_dir.empty()) {
      options.lock_dir = fs::absolute(options.lock_dir, ec);
    }
  }
  if (auto sudo = env_var("KPROF_NCU_USE_SUDO"); sudo && *sudo == "1") {
    options.use_sudo = true;
  }
  auto set = resolve_metric_set(options.metrics);
  if (!set) {
    return std::move(set).error();
  }
  auto ncu = locate_ncu(options.ncu);
  if (!ncu) {
    return std::move(ncu).error();
  }
  fs::path python;
  if (options.python) {
    auto found = find_executable(options.python->string());
    if (!found) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("python executable not found: {}", options.python->string()));
    }
    python = *found;
  } else if (auto env = env_var("KPROF_PYTHON")) {
    auto found = find_executable(*env);
    if (!found) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("KPROF_PYTHON names no executable: {}", *env));
    }
    python = *found;
  } else {
    auto found = find_executable("python3");
    if (!found) {
      return make_error(ErrorCategory::input_not_found,
                        "python3 not found on PATH (pass --python or set KPROF_PYTHON)");
    }
    python = *found;
  }
  return KernelProfiler(std::move(options), std::move(ncu).value(), std::move(set).value(),
                        std::move(python));
}

Result<void> KernelProfiler::check_metrics_once() {
  if (m_metrics_checked) {
    return {};
  }
  if (!m_options.check_metrics) {
    m_metric_check = "skipped (--no-metric-check)";
    m_metrics_checked = true;
    return {};
  }
  auto listing = query_metrics(m_ncu, "", m_options.out_dir / ".cache");
  if (!listing) {
    // The listing needs a visible GPU; without it we cannot check names up front. The run
    // itself will then fail with a classified error, so this is not fatal; it is recorded.
    m_metric_check = "skipped: " + listing.error().message;
    m_metrics_checked = true;
    return {};
  }
  auto unknown = unknown_metrics(m_metric_set, *listing);
  if (!unknown) {
    m_metric_check = "skipped: " + unknown.error().message;
    m_metrics_checked = true;
    return {};
  }
  if (!unknown->empty()) {
    std::string names;
    for (const auto& name : *unknown) {
      names += (names.empty() ? "" : ", ") + name;
    }
    return make_error(ErrorCategory::unknown_metric,
                      fmt::format("{} metric name(s) unknown to this GPU (ncu {}): {}",
                                  unknown->size(), m_ncu.version, names),
                      "ncu drops unknown metric names silently; kprof refuses them up front. "
                      "List valid names with `ncu --query-metrics`.");
  }
  m_metric_check = fmt::format("ok: all {} metric names known to the device (ncu --query-metrics)",
                               m_metric_set.metrics.size());
  m_metrics_checked = true;
  return {};
}

Result<RoundResult> KernelProfiler::profile(const fs::path& kernel, const fs::path& problem,
                                            int round) {
  return run_round(problem, {kernel}, round, false);
}

Result<RoundResult> KernelProfiler::profile_batch(const fs::path& problem,
                                                  const std::vector<fs::path>& kernels, int round) {
  if (kernels.empty()) {
    return make_error(ErrorCategory::usage, "batch needs at least one kernel file");
  }
  return run_round(problem, kernels, round, true);
}

namespace {

/// Runs one ncu session over `plan` (from plan.first_candidate) on `gpu`.
SessionOutcome run_session(const KernelProfiler& profiler, const HarnessPlan& plan,
                           const fs::path& work_dir, const fs::path& script, int gpu,
                           bool set_visible_devices, std::chrono::seconds timeout) {
  const ProfileOptions& options = profiler.options();
  SessionOutcome outcome;
  const fs::path plan_path = work_dir / "plan.json";
  const fs::path log_path = work_dir / "ncu.log";
  std::error_code ignored;
  fs::remove(plan.status_file, ignored);
  fs::remove(log_path, ignored);
  if (auto written = write_file_atomic(plan_path, plan_to_json(plan)); !written) {
    outcome.spawn_error = written.error();
    return outcome;
  }

  NcuCommand command;
  command.ncu = profiler.ncu();
  command.metrics = profiler.metric_set();
  command.nvtx_include = nvtx_include_for_ranges();
  command.clock_control = options.clock_control;
  command.log_file = log_path;
  if (options.keep_ncu_report) {
    command.report_file = work_dir / "report";
  }
  command.use_sudo = options.use_sudo;
  command.preserve_env = preserved_env_names();
  command.target = {profiler.python().string(), script.string(), plan_path.string()};
  outcome.argv = build_ncu_argv(command);

  ProcessSpec spec;
  spec.argv = outcome.argv;
  spec.timeout = timeout;
  spec.cwd = work_dir;
  spec.env_set = {{"PYTHONUNBUFFERED", "1"}, {"PYTHONDONTWRITEBYTECODE", "1"}};
  if (!env_var("TRITON_CACHE_DIR")) {
    // One Triton cache for every round and output directory, so a kernel compiled once is
    // loaded from the cache afterwards; a TRITON_CACHE_DIR of the user's own wins.
    spec.env_set.emplace_back("TRITON_CACHE_DIR", triton_cache_dir().string());
  }
  if (set_visible_devices) {
    spec.env_set.emplace_back("CUDA_VISIBLE_DEVICES", std::to_string(gpu));
    // ncu serializes profiling across all its instances on a machine through a lock file in the
    // temp directory. Sessions on different GPUs need not wait for each other, so each GPU gets
    // its own temp directory (kprof's GpuLock still serializes sessions on one GPU).
    const fs::path tmp = fs::temp_directory_path() / fmt::format("kprof-ncu-gpu{}", gpu);
    std::error_code made;
    fs::create_directories(tmp, made);
    if (!made) {
      spec.env_set.emplace_back("TMPDIR", tmp.string());
    }
  }
  auto process = run_process(spec);
  if (!process) {
    outcome.spawn_error = process.error();
    return outcome;
  }
  outcome.started = true;
  outcome.process = std::move(process).value();

  if (auto log = read_file(log_path)) {
    outcome.log_text = std::move(log).value();
  }
  // ncu prints some failures (bad options, permission) to its own stdout/stderr, not the log.
  std::string all_text = outcome.log_text + "\n" + outcome.process.out + "\n" + outcome.process.err;
  auto capture = parse_ncu_csv(outcome.log_text, {}, log_path.string());
  if (capture) {
    outcome.capture = std::move(capture).value();
  }
  outcome.verdict = classify_ncu_run(outcome.process, all_text, outcome.capture.has_value());
  if (auto status = read_harness_status(plan.status_file)) {
    outcome.status = std::move(status).value();
  }
  return outcome;
}

/// Decides candidate `position` (index into plan.candidates) from a session's outcome.
CandidateVerdict judge_candidate(const SessionOutcome& session, const HarnessPlan& plan,
                                 std::size_t position) {
  CandidateVerdict verdict;
  const HarnessCandidate& candidate = plan.candidates[position];
  const bool rows = session.capture && has_rows_for(*session.capture, candidate.range);

  if (!session.started) {
    verdict.decided = true;
    verdict.status = "failed";
    verdict.error = session.spawn_error;
    return verdict;
  }
  // Permission problems and ncu-level refusals concern every candidate alike.
  if (session.verdict.error &&
      session.verdict.error->category == ErrorCategory::permission_denied) {
    verdict.decided = true;
    verdict.status = "failed";
    verdict.error = session.verdict.error;
    return verdict;
  }
  if (session.status && session.status->problem_error) {
    verdict.decided = true;
    verdict.status = "failed";
    verdict.error = session.status->problem_error;
    return verdict;
  }
  const CandidateStatus* status = nullptr;
  if (session.status) {
    for (const auto& s : session.status->candidates) {
      if (s.range == candidate.range) {
        status = &s;
      }
    }
  }
  if (status != nullptr && status->ok) {
    verdict.decided = true;
    if (rows) {
      verdict.status = "ok";
    } else {
      verdict.status = "failed";
      verdict.error = make_error(
          ErrorCategory::no_kernels,
          fmt::format("no kernel was profiled for {}: kernel_function returned without launching "
                      "a GPU kernel inside its profiled call",
                      candidate.kernel.string()),
          "kprof profiles only the launches of one call after the warm-up calls; a kernel that "
          "caches its result or runs on the CPU launches nothing there.");
    }
    return verdict;
  }
  if (status != nullptr && status->error) {
    verdict.decided = true;
    verdict.status = rows ? "partial" : "failed";
    verdict.error = status->error;
    if (status->cuda_context_poisoned) {
      verdict.error->message += " (the CUDA context was poisoned; the remaining candidates "
                                "continue in a fresh process)";
    }
    return verdict;
  }
  // The harness never finished this candidate: it was in flight when the session ended, or
  // never reached (then it is decided only if the session ended abnormally while on it).
  const bool in_flight = status != nullptr && status->phase != HarnessPhase::not_started;
  const bool first_unfinished = [&] {
    if (!session.status) {
      return position == static_cast<std::size_t>(plan.first_candidate);
    }
    // A candidate that poisoned the CUDA context ended the session on purpose: the ones after
    // it were never reached and run again in a fresh process.
    for (const auto& s : session.status->candidates) {
      if (s.cuda_context_poisoned) {
        return false;
      }
    }
    for (auto i = static_cast<std::size_t>(plan.first_candidate); i < plan.candidates.size(); ++i) {
      const auto& range = plan.candidates[i].range;
      bool finished = false;
      for (const auto& s : session.status->candidates) {
        if (s.range == range && (s.ok || s.error)) {
          finished = true;
        }
      }
      if (!finished) {
        return i == position;
      }
    }
    return false;
  }();
  if (!in_flight && !first_unfinished) {
    return verdict; // not reached; runs again in the next session
  }
  verdict.decided = true;
  verdict.status = rows ? "partial" : "failed";
  if (session.verdict.error) {
    verdict.error = session.verdict.error;
    verdict.retryable = session.verdict.retryable;
  } else if (!session.status) {
    verdict.error = make_error(ErrorCategory::ncu_failed,
                               fmt::format("the harness wrote no status ({}); python could not "
                                           "start it or it died at once",
                                           session.process.describe()),
                               tail_lines(session.process.err + session.log_text, 40));
  } else {
    verdict.error = make_error(ErrorCategory::kernel_raised,
                               fmt::format("the harness process ended during {} of {} ({})",
                                           status != nullptr ? to_string(status->phase) : "start",
                                           candidate.kernel.string(), session.process.describe()),
                               tail_lines(session.process.err + session.log_text, 40));
  }
  return verdict;
}

} // namespace

Result<RoundResult> KernelProfiler::run_round(const fs::path& problem_in,
                                              const std::vector<fs::path>& kernels_in, int round,
                                              bool batch_layout) {
  const auto started = std::chrono::steady_clock::now();
  if (round < 0) {
    return make_error(ErrorCategory::usage, "--round must be 0 or more");
  }
  std::error_code ec;
  const fs::path problem = fs::absolute(problem_in, ec);
  if (!fs::is_regular_file(problem, ec)) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("problem file not found: {}", problem_in.string()));
  }
  std::vector<fs::path> kernels;
  for (const auto& kernel : kernels_in) {
    fs::path absolute = fs::absolute(kernel, ec);
    if (!fs::is_regular_file(absolute, ec)) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("kernel file not found: {}", kernel.string()));
    }
    kernels.push_back(std::move(absolute));
  }
  if (auto created = kprof::create_directories(m_options.out_dir); !created) {
    return created.error();
  }
  if (auto checked = check_metrics_once(); !checked) {
    return checked.error();
  }

  const fs::path final_dir = m_options.out_dir / round_dir_name(round);
  const fs::path staging =
      m_options.out_dir / fmt::format(".{}.staging-{}", round_dir_name(round), random_suffix());
  if (auto created = kprof::create_directories(staging); !created) {
    return created.error();
  }
  struct StagingGuard {
    fs::path path;
    ~StagingGuard() {
      std::error_code e;
      fs::remove_all(path, e);
    }
  } guard{staging};

  const fs::path script = staging / "harness.py";
  if (auto written = write_file_atomic(script, harness_script()); !written) {
    return written.error();
  }

  // Candidates spread round-robin over the GPUs; one worker thread per GPU.
  const std::vector<int> gpus = m_options.gpus.empty() ? std::vector<int>{0} : m_options.gpus;
  const bool set_visible = !m_options.gpus.empty();
  std::vector<std::vector<std::size_t>> assigned(gpus.size());
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    assigned[i % gpus.size()].push_back(i);
  }

  RoundResult result;
  result.round = round;
  result.dir = final_dir;
  result.candidates.resize(kernels.size());
  std::vector<std::optional<Capture>> captures(kernels.size()); // the session capture per candidate
  std::vector<Json> session_facts(kernels.size(), Json::object());
  std::mutex progress_mutex;
  std::size_t done_count = 0;
  std::size_t failed_count = 0;
  std::optional<Error> round_error;

  auto worker = [&](std::size_t slot) {
    const int gpu = gpus[slot];
    const auto& mine = assigned[slot];
    if (mine.empty()) {
      return;
    }
    const fs::path lock_dir =
        m_options.lock_dir.empty() ? GpuLock::default_dir() : m_options.lock_dir;
    auto lock = GpuLock::acquire(lock_dir, gpu, m_options.lock_wait);
    const double lock_wait_seconds = lock ? lock->waited().count() : 0.0;
    if (lock && lock_wait_seconds >= 1.0 && m_options.on_progress) {
      std::lock_guard<std::mutex> hold(progress_mutex);
      m_options.on_progress(
          fmt::format("waited {:.1f} s for GPU {} (another kprof was profiling on it)",
                      lock_wait_seconds, gpu));
    }
    if (!lock) {
      std::lock_guard<std::mutex> hold(progress_mutex);
      round_error = lock.error();
      return;
    }
    HarnessPlan plan;
    plan.problem = problem;
    plan.warmup = m_options.warmup;
    plan.inputs = m_options.inputs;
    plan.cast = m_options.cast;
    plan.seed = m_options.seed;
    for (std::size_t index : mine) {
      plan.candidates.push_back({kernels[index], candidate_range(static_cast<int>(index))});
    }
    std::size_t position = 0;
    int part = 0;
    while (position < mine.size() && !cancellation_requested()) {
      const fs::path work =
          batch_layout ? staging / fmt::format("gpu{}-part{}", gpu, part) : staging;
      if (auto created = kprof::create_directories(work); !created) {
        std::lock_guard<std::mutex> hold(progress_mutex);
        round_error = created.error();
        return;
      }
      plan.first_candidate = static_cast<int>(position);
      plan.status_file = work / "status.json";
      const auto remaining = static_cast<long>(mine.size() - position);
      const std::chrono::seconds timeout = m_options.timeout * remaining;
      SessionOutcome session;
      std::vector<CandidateVerdict> verdicts;
      int attempt = 0;
      auto backoff = m_options.retry_backoff;
      while (true) {
        ++attempt;
        session = run_session(*this, plan, work, script, gpu, set_visible, timeout);
        verdicts.assign(mine.size(), CandidateVerdict{});
        bool progress = false;
        bool retryable = false;
        for (std::size_t p = position; p < mine.size(); ++p) {
          verdicts[p] = judge_candidate(session, plan, p);
          if (verdicts[p].decided && verdicts[p].status != "failed") {
            progress = true;
          }
          if (verdicts[p].decided && verdicts[p].status == "failed" && verdicts[p].retryable) {
            retryable = true;
          }
        }
        if (retryable && !progress && attempt <= m_options.retries && !cancellation_requested()) {
          if (m_options.on_progress) {
            std::lock_guard<std::mutex> hold(progress_mutex);
            m_options.on_progress(fmt::format(
                "attempt {} failed ({}); retrying in {:.1f} s", attempt,
                session.verdict.error ? session.verdict.error->message : session.process.describe(),
                std::chrono::duration<double>(backoff).count()));
          }
          std::this_thread::sleep_for(backoff);
          backoff *= 2;
          continue;
        }
        break;
      }
      Json facts = Json::object();
      facts["ncu_argv"] = session.argv;
      facts["gpu_lock_wait_seconds"] = lock_wait_seconds;
      facts["ncu_exit"] = session.started ? session.process.describe() : "not started";
      facts["session_wall_seconds"] = session.process.wall.count();
      facts["session_dir"] = fs::relative(work, staging, ec).string();
      if (session.status) {
        facts["harness_setup_seconds"] = session.status->setup_seconds;
        facts["harness_inputs_seconds"] = session.status->inputs_seconds;
        facts["python_version"] = session.status->python_version;
        facts["torch_version"] = session.status->torch_version;
        facts["triton_version"] = session.status->triton_version;
        facts["gpu_name"] = session.status->gpu_name;
      }
      std::size_t next = mine.size();
      for (std::size_t p = position; p < mine.size(); ++p) {
        if (!verdicts[p].decided) {
          next = std::min(next, p);
          continue;
        }
        const std::size_t index = mine[p];
        CandidateResult& candidate = result.candidates[index];
        candidate.index = static_cast<int>(index);
        candidate.kernel = kernels[index];
        candidate.status = verdicts[p].status;
        candidate.error = verdicts[p].error;
        candidate.gpu = gpu;
        candidate.attempts = attempt;
        if (candidate.status != "failed" && session.capture) {
          captures[index] = session.capture;
        }
        Json candidate_facts = facts;
        if (session.status) {
          for (const auto& s : session.status->candidates) {
            if (s.range == plan.candidates[p].range) {
              candidate_facts["warmup_seconds"] = s.warmup_seconds;
              candidate_facts["call_seconds"] = s.call_seconds;
            }
          }
        }
        session_facts[index] = std::move(candidate_facts);
        if (m_options.on_progress) {
          std::lock_guard<std::mutex> hold(progress_mutex);
          ++done_count;
          if (candidate.status == "failed") {
            ++failed_count;
          }
          const double elapsed =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          m_options.on_progress(
              fmt::format("[{}/{} done, {} failed, {:.1f} s] cand{} {} on GPU {}{}", done_count,
                          kernels.size(), failed_count, elapsed, index, candidate.status, gpu,
                          candidate.error ? ": " + candidate.error->message : std::string()));
        }
      }
      // Continue after the last decided candidate; undecided ones before it get a new session.
      std::size_t last_decided = position;
      bool any = false;
      for (std::size_t p = position; p < mine.size(); ++p) {
        if (verdicts[p].decided) {
          last_decided = p;
          any = true;
        }
      }
      if (!any) {
        // Nothing decided: should not happen (the first unfinished is always decided), but
        // never loop forever.
        for (std::size_t p = position; p < mine.size(); ++p) {
          CandidateResult& candidate = result.candidates[mine[p]];
          candidate.index = static_cast<int>(mine[p]);
          candidate.kernel = kernels[mine[p]];
          candidate.status = "failed";
          candidate.error = make_error(ErrorCategory::internal, "candidate was never reached");
        }
        break;
      }
      position = std::max(next == mine.size() ? last_decided + 1 : next, last_decided + 1);
      ++part;
    }
  };

  if (gpus.size() == 1) {
    worker(0);
  } else {
    std::vector<std::thread> threads;
    for (std::size_t slot = 0; slot < gpus.size(); ++slot) {
      threads.emplace_back(worker, slot);
    }
    for (auto& thread : threads) {
      thread.join();
    }
  }
  if (round_error) {
    return *round_error;
  }

  // Assemble the round: per candidate a report (ok/partial) or an error file.
  result.metadata = Json::object();
  result.metadata["round"] = round;
  result.metadata["problem_file"] = problem.string();
  result.metadata["ncu"] = m_ncu.executable.string();
  result.metadata["ncu_version"] = m_ncu.version;
  result.metadata["clock_control"] = std::string(to_string(m_options.clock_control));
  result.metadata["metric_check"] = m_metric_check;
  result.metadata["select"] = std::string(to_string(m_options.select.select));
  result.metadata["python"] = m_python.string();
  result.metadata["warmup"] = m_options.warmup;
  result.metadata["inputs"] = std::string(to_string(m_options.inputs));
  result.metadata["cast"] = std::string(to_string(m_options.cast));
  result.metadata["gpus"] = gpus;

  Json batch_summary = Json::array();
  for (std::size_t index = 0; index < kernels.size(); ++index) {
    CandidateResult& candidate = result.candidates[index];
    const fs::path cand_dir = batch_layout ? staging / fmt::format("cand{}", index) : staging;
    candidate.dir = batch_layout ? final_dir / fmt::format("cand{}", index) : final_dir;
    Json run = result.metadata;
    run.erase("select");
    run["candidate"] = batch_layout ? Json(static_cast<int>(index)) : Json(nullptr);
    run["kernel_file"] = kernels[index].string();
    run["status"] = candidate.status;
    run["attempts"] = candidate.attempts;
    run["gpu_index"] = candidate.gpu;
    for (const auto& [key, value] : session_facts[index].items()) {
      run[key] = value;
    }
    if (session_facts[index].contains("session_dir")) {
      run["source"] =
          (final_dir / session_facts[index]["session_dir"].get<std::string>() / "ncu.log")
              .lexically_normal()
              .string();
    }
    if (candidate.error) {
      run["error"] = error_json(*candidate.error);
    }
    if (candidate.status != "failed" && captures[index]) {
      SelectOptions select = m_options.select;
      select.nvtx_range = candidate_range(static_cast<int>(index));
      auto analysis = analyse(*captures[index], select);
      if (!analysis) {
        candidate.status = "failed";
        candidate.error = analysis.error();
        run["status"] = candidate.status;
        run["error"] = error_json(*candidate.error);
      } else {
        // Replay passes: ncu adds profiler__replayer_passes to every raw-page row.
        double passes = 0;
        for (std::size_t k : analysis->selected) {
          if (auto p = captures[index]->number(captures[index]->kernels[k],
                                               "profiler__replayer_passes")) {
            passes += *p;
          }
        }
        run["replay_passes"] = passes;
        run["select"] = std::string(to_string(m_options.select.select));
        Json report = build_report(*captures[index], *analysis, m_metric_set, run);
        if (auto w = write_file_atomic(cand_dir / "report.json", report.dump(2) + "\n"); !w) {
          return w.error();
        }
        if (auto w = write_file_atomic(cand_dir / "metrics.csv", render(Format::csv, report)); !w) {
          return w.error();
        }
        candidate.report = std::move(report);
      }
    }
    if (!candidate.report) {
      Json failure = Json::object();
      failure["schema_version"] = k_report_schema_version;
      failure["metadata"] = run;
      failure["metadata"]["kprof_version"] = std::string(k_version);
      failure["metadata"]["generated_at"] = utc_timestamp();
      failure["error"] = candidate.error ? error_json(*candidate.error) : Json(nullptr);
      if (auto w = write_file_atomic(cand_dir / "error.json", failure.dump(2) + "\n"); !w) {
        return w.error();
      }
    }
    Json line = Json::object();
    line["candidate"] = static_cast<int>(index);
    line["kernel_file"] = kernels[index].string();
    line["status"] = candidate.status;
    line["total_duration_ns"] =
        candidate.report ? (*candidate.report)["summary"]["total_duration_ns"] : Json(nullptr);
    line["error"] = candidate.error ? error_json(*candidate.error) : Json(nullptr);
    batch_summary.push_back(std::move(line));
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.metadata["wall_seconds"] = result.wall_seconds;
  if (batch_layout) {
    Json batch = Json::object();
    batch["schema_version"] = k_report_schema_version;
    batch["metadata"] = result.metadata;
    batch["candidates"] = batch_summary;
    if (auto w = write_file_atomic(staging / "batch.json", batch.dump(2) + "\n"); !w) {
      return w.error();
    }
  }

  // Move the staging directory into place (replacing an earlier run of the same round).
  if (fs::exists(final_dir, ec)) {
    const fs::path old =
        m_options.out_dir / fmt::format(".{}.old-{}", round_dir_name(round), random_suffix());
    fs::rename(final_dir, old, ec);
    if (ec) {
      return make_error(ErrorCategory::io,
                        fmt::format("cannot replace {}: {}", final_dir.string(), ec.message()));
    }
    fs::remove_all(old, ec);
  }
  fs::rename(staging, final_dir, ec);
  if (ec) {
    return make_error(ErrorCategory::io, fmt::format("cannot move round into {}: {}",
                                                     final_dir.string(), ec.message()));
  }
  guard.path.clear();

  // KernelAgent-layout files next to the round directory.
  for (const auto& candidate : result.candidates) {
    const std::string name =
        batch_layout
            ? fmt::format("{}_cand{}_ncu_metrics.json", round_dir_name(round), candidate.index)
            : fmt::format("{}_ncu_metrics.json", round_dir_name(round));
    if (candidate.report) {
      if (auto w = write_file_atomic(m_options.out_dir / name,
                                     kernelagent_round_json(*candidate.report).dump(2) + "\n");
          !w) {
        return w.error();
      }
    }
  }

  if (m_options.record_history) {
    auto store = HistoryStore::open(m_options.out_dir / "kprof.db");
    if (!store) {
      return store.error().with_context("while recording the round in the history");
    }
    for (const auto& candidate : result.candidates) {
      RoundEntry entry;
      entry.round = round;
      if (batch_layout) {
        entry.candidate = candidate.index;
      }
      entry.label = candidate.kernel.filename().string();
      entry.status = candidate.status;
      entry.error = candidate.error;
      entry.document = candidate.report;
      if (auto recorded = store->record_round(entry); !recorded) {
        return recorded.error().with_context("while recording the round in the history");
      }
    }
  }
  return result;
}

} // namespace kprof

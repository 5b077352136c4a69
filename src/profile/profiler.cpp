// KernelProfiler: one round = one or more ncu sessions, each running the harness over some
// candidates on one GPU.
//
// Design notes. The round is put together from parts that each own one concern:
// - a SessionRunner (kprof/profile_session.hpp) runs one ncu session; the real one runs ncu, tests
//   pass a fake;
// - judge_candidate (kprof/judge.hpp, pure) turns a session's outcome into a verdict per
//   candidate;
// - a RetryPolicy (retry.hpp) decides whether a session is run again;
// - a StagedRound (staged_round.hpp) holds the round's files until its single commit() moves
//   them into place and records the history;
// - RunMetadata / CandidateMetadata (run_metadata.hpp) are the typed facts of the run.
// This file only orchestrates: GPU workers, sessions in order, restarts after a candidate
// poisoned the CUDA context (finished candidates keep their results, the one in flight is
// charged with the failure, the rest continue in a fresh process), then the reports.
#include "kprof/profiler.hpp"

#include <algorithm>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/gpu_lock.hpp"
#include "kprof/judge.hpp"
#include "kprof/metric_check.hpp"
#include "kprof/options.hpp"
#include "kprof/process.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/version.hpp"
#include "profile/retry.hpp"
#include "profile/run_metadata.hpp"
#include "profile/staged_round.hpp"

namespace kprof {
namespace fs = std::filesystem;

std::string round_dir_name(int round) {
  return RoundLayout::round_name(round);
}

namespace {

Result<void> validate_options(const ProfileOptions& options) {
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
  return {};
}

/// Makes the paths absolute (ncu and the harness run in the round's directory), resolves the lock
/// directory's default, and applies the environment.
void normalize_options(ProfileOptions& options) {
  if (options.metrics == "deep") {
    options.source = true; // the deep set is everything ncu can say, per line too
  }
  std::error_code ec;
  options.out_dir = fs::absolute(options.out_dir, ec);
  options.lock_dir =
      fs::absolute(options.lock_dir.empty() ? GpuLock::default_dir() : options.lock_dir, ec);
  if (options.logs_dir) {
    options.logs_dir = fs::absolute(*options.logs_dir, ec);
  }
  if (auto sudo = env_var("KPROF_NCU_USE_SUDO"); sudo && *sudo == "1") {
    options.use_sudo = true;
  }
}

Result<fs::path> find_python(const std::optional<fs::path>& explicit_python) {
  if (explicit_python) {
    auto found = find_executable(explicit_python->string());
    if (!found) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("python executable not found: {}", explicit_python->string()));
    }
    return *found;
  }
  if (auto env = env_var("KPROF_PYTHON")) {
    auto found = find_executable(*env);
    if (!found) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("KPROF_PYTHON names no executable: {}", *env));
    }
    return *found;
  }
  auto found = find_executable("python3");
  if (!found) {
    return make_error(ErrorCategory::input_not_found,
                      "python3 not found on PATH (pass --python or set KPROF_PYTHON)");
  }
  return *found;
}

/// The session's facts for the metadata of candidate `position` of `plan`.
SessionFacts session_facts(const SessionOutcome& session, const HarnessPlan& plan,
                           std::size_t position, double lock_wait_seconds,
                           const fs::path& session_dir, const fs::path& round_dir) {
  SessionFacts facts;
  facts.ncu_argv = session.argv;
  facts.gpu_lock_wait_seconds = lock_wait_seconds;
  facts.ncu_exit = session.started ? session.process.describe() : "not started";
  facts.session_wall_seconds = session.process.wall.count();
  facts.standby = session.standby;
  facts.source_export_seconds = session.source_export_seconds;
  std::error_code ec;
  facts.session_dir = fs::relative(session_dir, round_dir, ec).string();
  if (session.harness) {
    const HarnessStatus& status = *session.harness;
    facts.has_harness = true;
    facts.harness_setup_seconds = status.setup_seconds;
    facts.harness_inputs_seconds = status.inputs_seconds;
    facts.primer = status.primer;
    facts.primer_seconds = status.primer_seconds;
    facts.python_version = status.python_version;
    facts.torch_version = status.torch_version;
    facts.triton_version = status.triton_version;
    facts.gpu_name = status.gpu_name;
    for (const auto& s : status.candidates) {
      if (s.range == plan.candidates[position].range) {
        facts.warmup_seconds = s.warmup_seconds;
        facts.call_seconds = s.call_seconds;
        facts.call_lock = s.call_lock;
        facts.call_lock_wait_seconds = s.call_lock_wait_seconds;
        facts.cast_applied = s.cast_applied;
        facts.cast_reason = s.cast_reason;
      }
    }
  }
  return facts;
}

bool is_valid_utf8(const std::string& text) {
  try {
    (void)Json(text).dump(); // the strict handler throws on invalid UTF-8
    return true;
  } catch (const Json::type_error&) {
    return false;
  }
}

/// A path the harness plan (JSON) cannot carry: bytes that are not UTF-8.
Result<void> check_utf8_path(const fs::path& path, std::string_view what) {
  if (!is_valid_utf8(path.native())) {
    return make_error(ErrorCategory::usage,
                      fmt::format("the {} path {} is not valid UTF-8; kprof hands paths to the "
                                  "harness as JSON, which cannot carry it: rename the file, or "
                                  "link it under a UTF-8 name",
                                  what, json_text(Json(path.native()), -1)));
  }
  return {};
}

/// What the workers leave for each candidate.
struct CandidateWork {
  CandidateResult result;
  std::optional<Capture> capture; ///< the session's rows (ok and partial)
  std::optional<SessionFacts> facts;
  std::optional<SourcePage> source_page; ///< the session's source page (--source)
  std::optional<Error> source_error;     ///< why it is missing although asked for
};

} // namespace

namespace {

/// Why `given` (made absolute: `path`) cannot be read as the `what` (problem.py or kernel.py),
/// or nullopt when it is a regular file. A directory is named as one, with the file in it that
/// was probably meant.
std::optional<Error> unusable_python_file(const fs::path& given, const fs::path& path,
                                          std::string_view what) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_regular_file(status)) {
    return std::nullopt;
  }
  if (fs::is_directory(status)) {
    const fs::path inside = given / fs::path(what).filename();
    std::string hint = fmt::format("give the path of the {} file itself", what);
    if (fs::is_regular_file(path / fs::path(what).filename(), ec)) {
      hint = fmt::format("did you mean {}?", inside.string());
    }
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("the {} file {} is a directory, not a file: {}",
                                  fs::path(what).stem().string(), given.string(), hint));
  }
  if (fs::exists(status)) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("the {} file {} is not a regular file (a FIFO, socket or "
                                  "device): give the path of the {} file itself",
                                  fs::path(what).stem().string(), given.string(), what));
  }
  return make_error(
      ErrorCategory::input_not_found,
      fmt::format("{} file not found: {}", fs::path(what).stem().string(), given.string()));
}

} // namespace

Result<RoundInputs> check_round_inputs(const fs::path& problem,
                                       const std::vector<fs::path>& kernels) {
  RoundInputs inputs;
  std::error_code ec;
  inputs.problem = fs::absolute(problem, ec);
  if (auto unusable = unusable_python_file(problem, inputs.problem, "problem.py")) {
    return *unusable;
  }
  for (const auto& kernel : kernels) {
    fs::path absolute = fs::absolute(kernel, ec);
    if (auto unusable = unusable_python_file(kernel, absolute, "kernel.py")) {
      return *unusable;
    }
    inputs.kernels.push_back(std::move(absolute));
  }
  if (auto valid = check_utf8_path(inputs.problem, "problem file"); !valid) {
    return valid.error();
  }
  for (const auto& kernel : inputs.kernels) {
    if (auto valid = check_utf8_path(kernel, "kernel file"); !valid) {
      return valid.error();
    }
  }
  return inputs;
}

Result<KernelProfiler> KernelProfiler::create(ProfileOptions options) {
  if (auto valid = validate_options(options); !valid) {
    return valid.error();
  }
  // Before anything runs (ncu --version included): an index this machine does not have.
  if (auto visible = check_visible_gpus(options.gpus, visible_gpu_count(), "GPU"); !visible) {
    return visible.error();
  }
  normalize_options(options);
  auto set = resolve_metric_set(options.metrics);
  if (!set) {
    return std::move(set).error();
  }
  auto ncu = locate_ncu(options.ncu);
  if (!ncu) {
    return std::move(ncu).error();
  }
  auto python = find_python(options.python);
  if (!python) {
    return std::move(python).error();
  }
  NcuSessionSettings settings;
  settings.ncu = *ncu;
  settings.metrics = *set;
  settings.python = *python;
  settings.clock_control = options.clock_control;
  settings.keep_ncu_report = options.keep_ncu_report;
  settings.source_counters = options.source;
  // Standbys: kept after every session (options.standby), or pre-started beside a batch's
  // session (options.prestart).
  settings.standby_root = RoundLayout(options.out_dir).standby_dir();
  settings.keep_standbys = options.standby;
  settings.standby_idle_seconds = options.standby_idle_seconds;
  settings.lock_dir = options.lock_dir;
  settings.use_sudo = options.use_sudo;
  auto runner = make_ncu_session_runner(std::move(settings));
  return KernelProfiler(std::move(options), std::move(ncu).value(), std::move(set).value(),
                        std::move(python).value(), std::move(runner));
}

Result<KernelProfiler> KernelProfiler::with_runner(ProfileOptions options, NcuInstall ncu,
                                                   fs::path python,
                                                   std::shared_ptr<SessionRunner> runner) {
  KPROF_ASSERT(runner != nullptr);
  if (auto valid = validate_options(options); !valid) {
    return valid.error();
  }
  normalize_options(options);
  auto set = resolve_metric_set(options.metrics);
  if (!set) {
    return std::move(set).error();
  }
  return KernelProfiler(std::move(options), std::move(ncu), std::move(set).value(),
                        std::move(python), std::move(runner));
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
  // The verdict for this ncu, driver, GPUs and set is kept across processes (about 1.3 s of
  // `ncu --query-metrics` saved per cold profile); without a readable driver nothing is kept.
  const auto device =
      read_device_identity(env_var("KPROF_NVIDIA_PROC").value_or(std::string(k_nvidia_proc_dir)));
  const MetricCheckCache cache(MetricCheckCache::default_dir());
  std::optional<MetricVerdict> verdict;
  if (device) {
    verdict = cache.find(m_ncu.version, *device, m_metric_set);
  }
  const bool cached = verdict.has_value();
  if (!verdict) {
    auto listing = query_metrics(m_ncu, "", RoundLayout(m_options.out_dir).cache_dir());
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
    verdict = MetricVerdict{std::move(unknown).value(), utc_timestamp()};
    if (device) {
      (void)cache.store(m_ncu.version, *device, m_metric_set, *verdict);
    }
  }
  if (!verdict->unknown.empty()) {
    std::string names;
    for (const auto& name : verdict->unknown) {
      names += (names.empty() ? "" : ", ") + name;
    }
    return make_error(ErrorCategory::unknown_metric,
                      fmt::format("{} metric name(s) unknown to this GPU (ncu {}): {}",
                                  verdict->unknown.size(), m_ncu.version, names),
                      "ncu drops unknown metric names silently; kprof refuses them up front. "
                      "List valid names with `ncu --query-metrics`.");
  }
  m_metric_check =
      cached ? fmt::format("ok: all {} metric names known to the device (ncu --query-metrics "
                           "of {}, cached for this ncu, driver and GPU)",
                           m_metric_set.metrics.size(), verdict->checked_at)
             : fmt::format("ok: all {} metric names known to the device (ncu --query-metrics)",
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

SessionRequest KernelProfiler::session_request(const fs::path& problem, int gpu,
                                               bool set_visible) const {
  SessionRequest request;
  request.plan.problem = problem;
  request.plan.warmup = m_options.warmup;
  request.plan.inputs = m_options.inputs;
  request.plan.cast = m_options.cast;
  request.plan.seed = m_options.seed;
  request.plan.profiled_call_lock = m_options.lock_dir / k_profiled_call_lock_file;
  request.plan.early_primer = true;
  request.gpu = gpu;
  request.set_visible_devices = set_visible;
  request.timeout = m_options.timeout;
  return request;
}

Result<void> KernelProfiler::prime_standbys(const fs::path& problem_in) {
  if (!m_options.standby) {
    return make_error(ErrorCategory::usage, "standbys need the standby option");
  }
  auto inputs = check_round_inputs(problem_in, {});
  if (!inputs) {
    return std::move(inputs).error();
  }
  if (auto created = kprof::create_directories(m_options.out_dir); !created) {
    return created.error();
  }
  const std::vector<int> gpus = m_options.gpus.empty() ? std::vector<int>{0} : m_options.gpus;
  for (const int gpu : gpus) {
    m_runner->prime(session_request(inputs->problem, gpu, !m_options.gpus.empty()));
  }
  return {};
}

Result<RoundResult> KernelProfiler::run_round(const fs::path& problem_in,
                                              const std::vector<fs::path>& kernels_in, int round,
                                              bool batch_layout) {
  const auto started = std::chrono::steady_clock::now();
  if (round < 0) {
    return make_error(ErrorCategory::usage, "--round must be 0 or more");
  }
  auto inputs = check_round_inputs(problem_in, kernels_in);
  if (!inputs) {
    return std::move(inputs).error();
  }
  const fs::path problem = inputs->problem;
  const std::vector<fs::path> kernels = inputs->kernels;
  if (auto created = kprof::create_directories(m_options.out_dir); !created) {
    return created.error();
  }
  if (auto checked = check_metrics_once(); !checked) {
    return checked.error();
  }

  const RoundLayout layout(m_options.out_dir);
  auto staged = StagedRound::begin(layout, round, batch_layout);
  if (!staged) {
    return std::move(staged).error();
  }
  if (auto written = write_file_atomic(staged->script(), harness_script()); !written) {
    return written.error();
  }

  // Candidates spread round-robin over the GPUs; one worker thread per GPU.
  const std::vector<int> gpus = m_options.gpus.empty() ? std::vector<int>{0} : m_options.gpus;
  const bool set_visible = !m_options.gpus.empty();
  std::vector<std::vector<std::size_t>> assigned(gpus.size());
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    assigned[i % gpus.size()].push_back(i);
  }

  std::vector<CandidateWork> work(kernels.size());
  std::mutex progress_mutex;
  std::size_t done_count = 0;
  std::size_t failed_count = 0;
  std::optional<Error> round_error;
  const RetryPolicy retry(m_options.retries, m_options.retry_backoff);

  const auto report_progress = [&](const std::string& line) {
    if (m_options.on_progress) {
      const std::lock_guard<std::mutex> hold(progress_mutex);
      m_options.on_progress(line);
    }
  };

  auto worker = [&](std::size_t slot) {
    const int gpu = gpus[slot];
    const auto& mine = assigned[slot];
    if (mine.empty()) {
      return;
    }
    SessionRequest request = session_request(problem, gpu, set_visible);
    if (const double waited = m_runner->await_standby(request).count(); waited >= 1.0) {
      report_progress(
          fmt::format("waited {:.1f} s for the standby of GPU {} to be ready", waited, gpu));
    }
    auto lock = GpuLock::acquire(m_options.lock_dir, gpu, m_options.lock_wait);
    if (!lock) {
      const std::lock_guard<std::mutex> hold(progress_mutex);
      round_error = lock.error();
      return;
    }
    const double lock_wait_seconds = lock->waited().count();
    if (lock_wait_seconds >= 1.0) {
      report_progress(fmt::format("waited {:.1f} s for GPU {} (another kprof was profiling on it)",
                                  lock_wait_seconds, gpu));
    }
    for (std::size_t index : mine) {
      request.plan.candidates.push_back({kernels[index], candidate_range(static_cast<int>(index))});
    }
    request.script = staged->script();
    std::size_t position = 0;
    int part = 0;
    while (position < mine.size() && !cancellation_requested()) {
      request.work_dir = staged->session_dir(gpu, part);
      if (auto created = kprof::create_directories(request.work_dir); !created) {
        const std::lock_guard<std::mutex> hold(progress_mutex);
        round_error = created.error();
        return;
      }
      request.plan.first_candidate = static_cast<int>(position);
      request.plan.status_file = request.work_dir / RoundLayout::k_status;
      request.timeout = m_options.timeout * static_cast<long>(mine.size() - position);
      // With more than one candidate left, the next process starts beside this session, ready
      // to take the rest over if a candidate poisons the CUDA context.
      request.prestart_next = m_options.prestart && mine.size() - position > 1;
      SessionOutcome session;
      std::vector<CandidateVerdict> verdicts;
      int attempt = 0;
      while (true) {
        ++attempt;
        session = m_runner->run(request);
        verdicts.assign(mine.size(), CandidateVerdict{});
        for (std::size_t p = position; p < mine.size(); ++p) {
          verdicts[p] = judge_candidate(session, request.plan, p);
        }
        if (!retry.should_retry(attempt, verdicts) || cancellation_requested()) {
          break;
        }
        const auto backoff = retry.backoff_before(attempt + 1);
        report_progress(fmt::format("attempt {} failed ({}); retrying in {:.1f} s", attempt,
                                    session.verdict.error ? session.verdict.error->message
                                                          : session.process.describe(),
                                    std::chrono::duration<double>(backoff).count()));
        std::this_thread::sleep_for(backoff);
      }
      std::optional<std::size_t> last_decided;
      for (std::size_t p = position; p < mine.size(); ++p) {
        if (!verdicts[p].decided) {
          continue;
        }
        last_decided = p;
        const std::size_t index = mine[p];
        CandidateWork& slot_work = work[index];
        CandidateResult& candidate = slot_work.result;
        candidate.status = verdicts[p].status;
        candidate.error = verdicts[p].error;
        candidate.gpu = gpu;
        candidate.attempts = attempt;
        if (candidate.status != CandidateStatus::failed && session.capture) {
          slot_work.capture = session.capture;
          slot_work.source_page = session.source_page;
          slot_work.source_error = session.source_error;
        }
        slot_work.facts = session_facts(session, request.plan, p, lock_wait_seconds,
                                        request.work_dir, staged->dir());
        std::size_t done = 0;
        std::size_t failed = 0;
        {
          const std::lock_guard<std::mutex> hold(progress_mutex);
          done = ++done_count;
          failed = candidate.status == CandidateStatus::failed ? ++failed_count : failed_count;
        }
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        report_progress(
            fmt::format("[{}/{} done, {} failed, {:.1f} s] cand{} {} on GPU {}{}", done,
                        kernels.size(), failed, elapsed, index, to_string(candidate.status), gpu,
                        candidate.error ? ": " + candidate.error->message : std::string()));
      }
      if (!last_decided) {
        // Nothing decided: judge_candidate always decides the first unfinished candidate of a
        // session that ended, but never loop forever.
        for (std::size_t p = position; p < mine.size(); ++p) {
          work[mine[p]].result.error =
              make_error(ErrorCategory::internal, "candidate was never reached");
        }
        break;
      }
      // Continue after the last decided candidate in a fresh process.
      position = *last_decided + 1;
      ++part;
    }
  };

  if (gpus.size() == 1) {
    worker(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(gpus.size());
    for (std::size_t slot = 0; slot < gpus.size(); ++slot) {
      threads.emplace_back(worker, slot);
    }
    for (auto& thread : threads) {
      thread.join();
    }
  }
  if (!m_options.standby) {
    m_runner->release_standbys(); // the pre-started harnesses nobody needed
  }
  if (round_error) {
    return *round_error;
  }

  // Assemble the round: per candidate a report (ok/partial) or an error file.
  RunMetadata run;
  run.round = round;
  run.problem_file = problem.string();
  run.ncu = m_ncu.executable.string();
  run.ncu_version = m_ncu.version;
  run.clock_control = std::string(to_string(m_options.clock_control));
  run.metric_check = m_metric_check;
  run.select = std::string(to_string(m_options.select.select));
  run.python = m_python.string();
  run.warmup = m_options.warmup;
  run.inputs = std::string(to_string(m_options.inputs));
  run.cast = std::string(to_string(m_options.cast));
  run.gpus = gpus;

  // The analyses first: they settle each candidate's status, and the statuses where the round
  // goes (a failed re-run never replaces a good round).
  std::vector<std::optional<Analysis>> analyses(kernels.size());
  bool good = !cancellation_requested();
  bool any_result = false;
  for (std::size_t index = 0; index < kernels.size(); ++index) {
    CandidateWork& slot_work = work[index];
    CandidateResult& candidate = slot_work.result;
    candidate.index = static_cast<int>(index);
    candidate.kernel = kernels[index];
    if (candidate.status == CandidateStatus::failed && !candidate.error) {
      // No session decided it: the run was interrupted before the candidate's turn.
      candidate.error = make_error(
          ErrorCategory::ncu_failed,
          fmt::format("{} was not profiled: kprof was interrupted first", kernels[index].string()));
    }
    if (candidate.status != CandidateStatus::failed && slot_work.capture) {
      SelectOptions select = m_options.select;
      select.nvtx_range = candidate_range(static_cast<int>(index));
      auto analysis = analyse(*slot_work.capture, select);
      if (!analysis) {
        candidate.status = CandidateStatus::failed;
        candidate.error = analysis.error();
      } else {
        analyses[index] = std::move(analysis).value();
      }
    }
    any_result = any_result || candidate.status != CandidateStatus::failed;
  }
  good = good && any_result;
  const fs::path final_dir = staged->settle(good, batch_layout ? fs::path() : kernels.front());
  if (!staged->displaced().empty()) {
    report_progress(fmt::format("{} held another kernel file's result: moved to {}",
                                layout.round_dir(round).filename().string(),
                                staged->displaced().string()));
  }
  if (!staged->in_place()) {
    const std::string kept =
        fmt::format("{} keeps its earlier result; this attempt is kept in {}",
                    layout.round_dir(round).filename().string(), final_dir.string());
    report_progress(kept);
    for (auto& slot_work : work) {
      if (slot_work.result.error) {
        slot_work.result.error->message += fmt::format(" ({})", kept);
      }
    }
  }

  RoundResult result;
  result.round = round;
  result.dir = final_dir;
  result.in_place = staged->in_place();
  Json batch_summary = Json::array();
  for (std::size_t index = 0; index < kernels.size(); ++index) {
    CandidateWork& slot_work = work[index];
    CandidateResult& candidate = slot_work.result;
    CandidateMetadata metadata;
    metadata.run = run;
    metadata.candidate = batch_layout ? std::optional<int>(static_cast<int>(index)) : std::nullopt;
    metadata.kernel_file = kernels[index].string();
    metadata.profiled_at = utc_timestamp_micros();
    metadata.status = candidate.status;
    metadata.attempts = candidate.attempts;
    metadata.gpu_index = candidate.gpu;
    metadata.session = slot_work.facts;
    if (slot_work.facts) {
      metadata.source = (final_dir / slot_work.facts->session_dir / RoundLayout::k_ncu_log)
                            .lexically_normal()
                            .string();
    }
    metadata.error = candidate.error;
    if (const auto& analysis = analyses[index]) {
      {
        // Replay passes: ncu adds profiler__replayer_passes to every raw-page row.
        double passes = 0;
        for (std::size_t k : analysis->selected) {
          if (auto p = slot_work.capture->number(slot_work.capture->kernels[k],
                                                 "profiler__replayer_passes")) {
            passes += *p;
          }
        }
        metadata.replay_passes = passes;
        metadata.select = run.select;
        std::optional<Error> hot_lines_error = slot_work.source_error;
        if (m_options.source) {
          metadata.hot_lines = Json::object();
          (*metadata.hot_lines)["source_page"] =
              slot_work.source_page && slot_work.facts
                  ? Json((final_dir / slot_work.facts->session_dir / RoundLayout::k_source_page)
                             .lexically_normal()
                             .string())
                  : Json(nullptr);
        }
        Json report = build_report(*slot_work.capture, *analysis, m_metric_set, metadata.to_json());
        if (m_options.source && slot_work.source_page) {
          if (auto attached = attach_hot_lines(report, *slot_work.capture, *slot_work.source_page,
                                               triton_cache_dir());
              !attached) {
            hot_lines_error = attached.error();
          }
        }
        if (m_options.source) {
          if (!slot_work.source_page && !hot_lines_error) {
            hot_lines_error = make_error(ErrorCategory::ncu_failed, "no source page was exported");
          }
          report["metadata"]["hot_lines"]["error"] = to_json(hot_lines_error);
        }
        if (auto w = staged->write_report(candidate.index, report); !w) {
          return w.error();
        }
        candidate.report = std::move(report);
      }
    }
    if (!candidate.report) {
      Json failure = Json::object();
      failure["schema_version"] = k_report_schema_version;
      failure["metadata"] = metadata.to_json();
      failure["metadata"]["kprof_version"] = std::string(k_version);
      failure["metadata"]["generated_at"] = utc_timestamp();
      failure["error"] = to_json(candidate.error);
      if (auto w = staged->write_error(candidate.index, failure); !w) {
        return w.error();
      }
    }
    Json line = Json::object();
    line["candidate"] = candidate.index;
    line["kernel_file"] = kernels[index].string();
    line["status"] = candidate.status;
    line["total_duration_ns"] =
        candidate.report ? (*candidate.report)["summary"]["total_duration_ns"] : Json(nullptr);
    line["error"] = to_json(candidate.error);
    batch_summary.push_back(std::move(line));
    result.candidates.push_back(std::move(candidate));
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  run.wall_seconds = result.wall_seconds;
  result.metadata = run.to_json();
  if (batch_layout) {
    Json batch = Json::object();
    batch["schema_version"] = k_report_schema_version;
    batch["metadata"] = result.metadata;
    batch["candidates"] = batch_summary;
    if (auto w = staged->write_batch(batch); !w) {
      return w.error();
    }
  }

  CommitSettings settings;
  settings.record_history = m_options.record_history;
  settings.logs_dir = m_options.logs_dir;
  settings.kernelagent_logs_only = m_options.kernelagent_logs_only;
  auto committed = staged->commit(result.candidates, settings);
  if (!committed) {
    return std::move(committed).error();
  }
  result.dir = *committed;
  return result;
}

} // namespace kprof

// KernelProfiler: one round = one or more ncu sessions, each running the harness over some
// candidates on one GPU.
//
// Design notes. The round is put together from parts that each own one concern:
// - a SessionRunner (kprof/profile_session.hpp) runs one ncu session; the real one runs ncu, tests
//   pass a fake;
// - judge_candidate (kprof/judge.hpp, pure) turns a session's outcome into a verdict per
//   candidate;
// - a RetryPolicy (retry.hpp) decides whether a session is run again;
// - a RoundSessions (below) runs the GPUs' shares of the candidates: sessions in order, retries,
//   a fresh process after a candidate that poisoned the CUDA context;
// - a RoundWriter (round_writer.hpp) writes the candidates' documents and holds the round's
//   files until its single commit() moves them into place and records the history;
// - RunMetadata / CandidateMetadata (run_metadata.hpp) are the typed facts of the run.
// run_round only orchestrates: the sessions (finished candidates keep their results, the one in
// flight is charged with a failure, the rest continue in a fresh process, with those whose rows
// ncu took with it when the session was stopped), the analyses, the reports, the writer.
#include "kprof/profiler.hpp"

#include <algorithm>
#include <functional>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/gpu_lock.hpp"
#include "kprof/judge.hpp"
#include "kprof/metric_check.hpp"
#include "kprof/model.hpp"
#include "kprof/nvtx_ranges.hpp"
#include "kprof/options.hpp"
#include "kprof/process.hpp"
#include "kprof/report_view.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/status.hpp"
#include "kprof/version.hpp"
#include "profile/retry.hpp"
#include "profile/round_writer.hpp"
#include "profile/run_metadata.hpp"

namespace kprof {
namespace fs = std::filesystem;

std::string round_dir_name(int round) {
  return RoundLayout::round_name(round);
}

namespace {

/// Makes the paths absolute (ncu and the harness run in the round's directory), resolves the lock
/// directory's default, and applies the environment (`use_sudo`).
void normalize_options(ProfileOptions& options, const ProfileEnvironment& environment) {
  if (options.metrics.with_source) {
    options.source = true; // the deep set is everything ncu can say, per line too
  }
  std::error_code ec;
  options.out_dir = fs::absolute(options.out_dir, ec);
  options.lock_dir =
      fs::absolute(options.lock_dir.empty() ? GpuLock::default_dir() : options.lock_dir, ec);
  if (options.logs_dir) {
    options.logs_dir = fs::absolute(*options.logs_dir, ec);
  }
  options.use_sudo = options.use_sudo || environment.use_sudo;
}

/// The session's facts for the metadata of candidate `position` of `plan`.
/// What a session's timeline holds and what its replays did, for the candidate's metadata (its
/// report or error.json): a round cut short by Ctrl-C or a timeout says here that it holds the
/// timeline (timeline.json) and how far ncu got. Empty for a session without a timeline.
std::string timeline_note(const SessionOutcome& session) {
  if (session.timeline_error) {
    return "no timeline of the call: " + session.timeline_error->message;
  }
  if (!session.timeline) {
    return {};
  }
  const std::size_t launches = session.timeline->launches.size();
  if (!session.replay_plan) {
    return fmt::format("{} launches timed outside ncu ({}): {} or fewer, every launch replayed",
                       launches, RoundLayout::k_timeline, k_two_tier_threshold);
  }
  const ReplayPlan& plan = *session.replay_plan;
  std::string note = fmt::format(
      "{} launches of {} distinct kernels timed outside ncu ({}); ncu was asked for {} "
      "representatives (--max-replayed {})",
      launches, plan.shapes.size(), RoundLayout::k_timeline, plan.planned, plan.max_replayed);
  if (!session.capture) {
    // ncu prints its rows at its end and no line per replay under --csv: how far it got is
    // not known.
    note += " and ended without rows (" +
            (session.started ? session.process.describe() : std::string("not started")) +
            "): this round holds the timeline, not metrics";
    return note;
  }
  const auto replayed =
      std::count_if(session.capture->kernels.begin(), session.capture->kernels.end(),
                    [](const KernelRecord& kernel) { return kernel.nvtx_range != k_primer_range; });
  return note + fmt::format(" and replayed {}", replayed);
}

SessionFacts session_facts(const SessionOutcome& session, const HarnessPlan& plan,
                           std::size_t position, double lock_wait_seconds,
                           const fs::path& session_dir, const fs::path& round_dir) {
  SessionFacts facts;
  facts.ncu_argv = session.argv;
  facts.gpu_lock_wait_seconds = lock_wait_seconds;
  facts.ncu_exit = session.started ? session.process.describe() : "not started";
  facts.session_wall_seconds = session.process.wall.count();
  facts.standby = session.standby;
  facts.standby_unavailable = session.standby_unavailable;
  facts.timeline = timeline_note(session);
  facts.source_export_seconds = session.source_export_seconds;
  std::error_code ec;
  facts.session_dir = fs::relative(session_dir, round_dir, ec).string();
  facts.rows_file = session.rows_file;
  if (session.harness) {
    const HarnessStatus& status = *session.harness;
    facts.has_harness = true;
    facts.harness_setup_seconds = status.setup_seconds;
    facts.harness_inputs_seconds = status.inputs_seconds;
    facts.primer = status.primer;
    facts.primer_seconds = status.primer_seconds;
    facts.triton_primer = status.triton_primer;
    facts.triton_primer_seconds = status.triton_primer_seconds;
    facts.compile_target_seconds = status.compile_target_seconds;
    facts.triton_key_seconds = status.triton_key_seconds;
    facts.python_version = status.python_version;
    facts.torch_version = status.torch_version;
    facts.triton_version = status.triton_version;
    facts.gpu_name = status.gpu_name;
    for (const auto& s : status.candidates) {
      if (s.range == plan.candidates[position].range) {
        facts.import_seconds = s.import_seconds;
        facts.warmup_seconds = s.warmup_seconds;
        facts.call_seconds = s.call_seconds;
        facts.call_lock = s.call_lock;
        facts.call_lock_wait_seconds = s.call_lock_wait_seconds;
        facts.cast_applied = s.cast_applied;
        facts.cast_reason = s.cast_reason;
        facts.compiled_ahead = s.compiled_ahead;
        facts.compile_wait_seconds = s.compile_wait_seconds;
        facts.compile_seconds = s.compile_seconds;
        facts.truth = TruthEvidence{s.check, s.timing, s.reference};
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

/// What the sessions leave for each candidate.
struct CandidateWork {
  CandidateResult result;
  std::optional<Capture> capture; ///< the session's rows (ok and partial)
  std::optional<SessionFacts> facts;
  std::optional<SourcePage> source_page; ///< the session's source page (--source)
  std::optional<Error> source_error;     ///< why it is missing although asked for
  /// Many launches: the call's timeline and, for a call replayed in two tiers, the plan.
  std::optional<Timeline> timeline;
  std::optional<ReplayPlan> replay_plan;
};

/// The GPU work of a round: the candidates spread round-robin over the GPUs, one thread per
/// GPU; on each GPU, under its lock, sessions in order, each run again as the RetryPolicy says,
/// and after a session that ended early (a candidate poisoned the CUDA context) the rest in a
/// fresh one.
class RoundSessions {
public:
  using RequestFor = std::function<SessionRequest(int gpu)>;

  RoundSessions(const ProfileOptions& options, SessionRunner& runner, const StagedRound& staged,
                const std::vector<fs::path>& kernels, std::chrono::steady_clock::time_point started)
      : m_options(options), m_runner(runner), m_staged(staged), m_kernels(kernels),
        m_retry(options.retries, options.retry_backoff), m_started(started),
        m_work(kernels.size()) {}

  /// Runs every GPU's share; `request_for` makes a GPU's session request. The work of each
  /// candidate, or the round's error (a GPU's lock not taken, a directory not made).
  Result<std::vector<CandidateWork>> run(const std::vector<int>& gpus,
                                         const RequestFor& request_for) {
    std::vector<std::vector<std::size_t>> assigned(gpus.size());
    for (std::size_t i = 0; i < m_kernels.size(); ++i) {
      assigned[i % gpus.size()].push_back(i);
    }
    const auto share = [&](std::size_t slot) {
      if (!assigned[slot].empty()) {
        run_share(gpus[slot], assigned[slot], request_for(gpus[slot]));
      }
    };
    if (gpus.size() == 1) {
      share(0);
    } else {
      std::vector<std::thread> threads;
      threads.reserve(gpus.size());
      for (std::size_t slot = 0; slot < gpus.size(); ++slot) {
        threads.emplace_back(share, slot);
      }
      for (auto& thread : threads) {
        thread.join();
      }
    }
    if (m_error) {
      return *m_error;
    }
    return std::move(m_work);
  }

private:
  /// The candidates `mine` (indices into the round) on `gpu`.
  void run_share(int gpu, const std::vector<std::size_t>& mine, SessionRequest request) {
    if (const double waited = m_runner.await_standby(request).count(); waited >= 1.0) {
      progress(fmt::format("waited {:.1f} s for the standby of GPU {} to be ready", waited, gpu));
    }
    auto lock = GpuLock::acquire(m_options.lock_dir, gpu, m_options.lock_wait);
    if (!lock) {
      fail(lock.error());
      return;
    }
    const double lock_wait = lock->waited().count();
    if (lock_wait >= 1.0) {
      progress(fmt::format("waited {:.1f} s for GPU {} (another kprof was profiling on it)",
                           lock_wait, gpu));
    }
    request.script = m_staged.script();
    // The candidates not decided yet, in order. A session decides those it finished and the one
    // it ended on; the rest run in the next, in a fresh process: those it never reached, those
    // after one that poisoned the CUDA context, and those whose rows ncu took with it when it
    // was stopped on a later candidate (judge_candidate).
    std::vector<std::size_t> pending = mine;
    // A call known to make many launches is timed first and replayed in representatives, one
    // candidate per session (a session of several would replay every launch of each).
    const bool one_by_one = mine.size() > 1 && m_runner.times_calls_first(request.plan.problem);
    if (one_by_one) {
      progress(fmt::format("{}'s call makes many launches: its {} candidates on GPU {} are "
                           "profiled one per session, each timed first",
                           request.plan.problem.filename().string(), mine.size(), gpu));
    }
    for (int part = 0; !pending.empty() && !cancellation_requested(); ++part) {
      request.work_dir = m_staged.session_dir(gpu, part);
      if (auto created = kprof::create_directories(request.work_dir); !created) {
        fail(created.error());
        return;
      }
      const std::vector<std::size_t> now =
          one_by_one ? std::vector<std::size_t>{pending.front()} : pending;
      request.plan.candidates.clear();
      for (std::size_t index : now) {
        request.plan.candidates.push_back(
            {m_kernels[index], candidate_range(static_cast<int>(index)),
             is_model_reference_candidate(m_kernels[index], request.plan.problem)});
      }
      const std::vector<bool> decided = run_part(request, now, lock_wait);
      std::vector<std::size_t> left;
      for (std::size_t p = 0; p < now.size(); ++p) {
        if (!decided[p]) {
          left.push_back(now[p]);
        }
      }
      if (left.size() == now.size()) {
        // Nothing decided: judge_candidate always decides the candidate a session that ended
        // is charged with, but never loop forever.
        for (std::size_t index : now) {
          m_work[index].result.error =
              make_error(ErrorCategory::internal, "candidate was never reached");
        }
        left.clear();
      }
      left.insert(left.end(), pending.begin() + static_cast<std::ptrdiff_t>(now.size()),
                  pending.end());
      pending = std::move(left);
    }
  }

  /// One session over `pending` (the plan's candidates, in this order), with its retries.
  /// Records the candidates it decided; returns which it decided, by position.
  std::vector<bool> run_part(SessionRequest& request, const std::vector<std::size_t>& pending,
                             double lock_wait) {
    request.plan.first_candidate = 0;
    request.plan.status_file = request.work_dir / RoundLayout::k_status;
    request.timeout = m_options.timeout * static_cast<long>(pending.size());
    // With more than one candidate left, the next process starts beside this session, ready to
    // take the rest over if a candidate poisons the CUDA context.
    request.prestart_next = m_options.prestart && pending.size() > 1;
    SessionOutcome session;
    std::vector<CandidateVerdict> verdicts;
    int attempt = 0;
    while (true) {
      ++attempt;
      session = m_runner.run(request);
      session.gpu = request.gpu;
      verdicts.assign(pending.size(), CandidateVerdict{});
      for (std::size_t p = 0; p < pending.size(); ++p) {
        verdicts[p] = judge_candidate(session, request.plan, p);
      }
      if (!m_retry.should_retry(attempt, verdicts) || cancellation_requested()) {
        break;
      }
      const auto backoff = m_retry.backoff_before(attempt + 1);
      progress(fmt::format("attempt {} failed ({}); retrying in {:.1f} s", attempt,
                           session.verdict.error ? session.verdict.error->message
                                                 : session.process.describe(),
                           std::chrono::duration<double>(backoff).count()));
      std::this_thread::sleep_for(backoff);
    }
    std::vector<bool> decided(pending.size(), false);
    for (std::size_t p = 0; p < pending.size(); ++p) {
      if (verdicts[p].decided) {
        CandidateWork& work = m_work[pending[p]];
        work.result.status = verdicts[p].status;
        work.result.error = verdicts[p].error;
        work.result.gpu = request.gpu;
        work.result.attempts = attempt;
        if (work.result.status != CandidateStatus::failed && session.capture) {
          work.capture = session.capture;
          work.source_page = session.source_page;
          work.source_error = session.source_error;
          work.timeline = session.timeline;
          work.replay_plan = session.replay_plan;
        }
        work.facts =
            session_facts(session, request.plan, p, lock_wait, request.work_dir, m_staged.dir());
        count(pending[p], work.result);
        decided[p] = true;
      }
    }
    return decided;
  }

  /// The progress line of a decided candidate.
  void count(std::size_t index, const CandidateResult& candidate) {
    std::size_t done = 0;
    std::size_t failed = 0;
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      done = ++m_done;
      failed = candidate.status == CandidateStatus::failed ? ++m_failed : m_failed;
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
    progress(fmt::format("[{}/{} done, {} failed, {:.1f} s] cand{} {} on GPU {}{}", done,
                         m_kernels.size(), failed, elapsed, index, to_string(candidate.status),
                         candidate.gpu,
                         candidate.error ? ": " + candidate.error->message : std::string()));
  }

  void progress(const std::string& line) {
    if (m_options.on_progress) {
      const std::lock_guard<std::mutex> hold(m_mutex);
      m_options.on_progress(line);
    }
  }

  void fail(Error error) {
    const std::lock_guard<std::mutex> hold(m_mutex);
    m_error = std::move(error);
  }

  const ProfileOptions& m_options;
  SessionRunner& m_runner;
  const StagedRound& m_staged;
  const std::vector<fs::path>& m_kernels;
  RetryPolicy m_retry;
  std::chrono::steady_clock::time_point m_started;
  std::vector<CandidateWork> m_work;
  std::mutex m_mutex;
  std::size_t m_done = 0;
  std::size_t m_failed = 0;
  std::optional<Error> m_error;
};

/// Settles each candidate's kernel, index and status from its work: an unreached candidate is
/// failed as interrupted; a captured one is analysed (a failed analysis fails it). The analyses,
/// one per candidate (nullopt for the failed).
std::vector<std::optional<Analysis>> analyse_candidates(std::vector<CandidateWork>& work,
                                                        const std::vector<fs::path>& kernels,
                                                        const SelectOptions& select_options) {
  std::vector<std::optional<Analysis>> analyses(kernels.size());
  for (std::size_t index = 0; index < kernels.size(); ++index) {
    CandidateResult& candidate = work[index].result;
    candidate.index = static_cast<int>(index);
    candidate.kernel = kernels[index];
    if (candidate.status == CandidateStatus::failed && !candidate.error) {
      // No session decided it: the run was interrupted before the candidate's turn.
      candidate.error = make_error(
          ErrorCategory::ncu_failed,
          fmt::format("{} was not profiled: kprof was interrupted first", kernels[index].string()));
    }
    if (candidate.status != CandidateStatus::failed && work[index].capture) {
      SelectOptions select = select_options;
      select.nvtx_range = candidate_range(static_cast<int>(index));
      auto analysis = analyse(*work[index].capture, select);
      if (!analysis) {
        candidate.status = CandidateStatus::failed;
        candidate.error = analysis.error();
      } else {
        analyses[index] = std::move(analysis).value();
      }
    }
  }
  return analyses;
}

/// Candidate `index`'s metadata block, its files named where the round goes (`final_dir`).
CandidateMetadata candidate_metadata(const RunMetadata& run, const CandidateWork& work, bool batch,
                                     const fs::path& final_dir) {
  const CandidateResult& candidate = work.result;
  CandidateMetadata metadata;
  metadata.run = run;
  metadata.candidate = batch ? std::optional<int>(candidate.index) : std::nullopt;
  metadata.kernel_file = candidate.kernel.string();
  metadata.profiled_at = utc_timestamp_micros();
  metadata.status = candidate.status;
  metadata.attempts = candidate.attempts;
  metadata.gpu_index = candidate.gpu;
  metadata.session = work.facts;
  if (work.facts) {
    metadata.source =
        (final_dir / work.facts->session_dir / work.facts->rows_file).lexically_normal().string();
  }
  metadata.error = candidate.error;
  return metadata;
}

/// What candidate `candidate` (nullopt: a plain round's) was analysed from, where the round goes
/// (`final_dir`): its session's rows and source page, relative to the report's directory, so
/// that the round can be moved whole (an attempt, another kernel file's entry) and analysed again.
ReportInputs built_from(const CandidateWork& work, std::optional<int> candidate,
                        const fs::path& final_dir, const std::vector<std::string>& kernels) {
  const fs::path report_dir = RoundLayout::candidate_dir(final_dir, candidate).lexically_normal();
  const fs::path session = final_dir / work.facts->session_dir;
  const auto relative = [&](std::string_view file) {
    return (session / file).lexically_normal().lexically_relative(report_dir);
  };
  ReportInputs inputs;
  inputs.rows = relative(work.facts->rows_file);
  if (work.source_page) {
    inputs.source_page = relative(RoundLayout::k_source_page);
  }
  inputs.nvtx_range = candidate_range(candidate.value_or(0));
  inputs.kernels = kernels;
  inputs.all_columns = true;
  return inputs;
}

/// The report of a captured candidate, with its hot lines when the profiler asks for them.
Json candidate_report(const KernelProfiler& profiler, const CandidateWork& work,
                      const Analysis& analysis, CandidateMetadata metadata,
                      const fs::path& final_dir) {
  const bool source = profiler.options().source;
  // Replay passes: ncu adds profiler__replayer_passes to every raw-page row.
  double passes = 0;
  for (std::size_t k : analysis.selected) {
    if (auto p = work.capture->number(work.capture->kernels[k], "profiler__replayer_passes")) {
      passes += *p;
    }
  }
  metadata.replay_passes = passes;
  metadata.select = metadata.run.select;
  if (source) {
    metadata.hot_lines = Json::object();
    (*metadata.hot_lines)["source_page"] =
        work.source_page && work.facts
            ? Json((final_dir / work.facts->session_dir / RoundLayout::k_source_page)
                       .lexically_normal()
                       .string())
            : Json(nullptr);
  }
  if (work.facts) {
    metadata.built_from =
        built_from(work, metadata.candidate, final_dir, profiler.options().select.kernel_filters);
  }
  Json report = build_report(*work.capture, analysis, profiler.metric_set(), metadata.to_json());
  if (work.timeline && work.replay_plan) {
    report["workload"] = workload_json(*work.timeline, *work.replay_plan, *work.capture,
                                       candidate_range(metadata.candidate.value_or(0)));
  }
  if (work.facts && work.facts->truth) {
    // A call replayed in two tiers: its kernels[] hold only the replayed launches, so the call's
    // kernel time is the timeline's (workload.kernel_time_us, every launch).
    const ReportView view(report);
    const Json* workload = report.contains("workload") ? &report["workload"] : nullptr;
    const std::optional<double> kernel_ns =
        workload != nullptr ? std::optional<double>(workload->value("kernel_time_us", 0.0) * 1000.0)
                            : view.total_duration_ns();
    const int launches = workload != nullptr ? workload->value("launches", 0)
                                             : static_cast<int>(view.launch_count());
    const std::optional<GpuSpec> spec =
        analysis.gpu ? analysis.gpu : find_gpu_spec(work.facts->gpu_name);
    report["truth"] = truth_json(*work.facts->truth, spec, kernel_ns, launches);
  }
  if (!source) {
    return report;
  }
  std::optional<Error> hot_lines_error = work.source_error;
  if (work.source_page) {
    if (auto attached =
            attach_hot_lines(report, *work.capture, *work.source_page, triton_cache_dir());
        !attached) {
      hot_lines_error = attached.error();
    }
  } else if (!hot_lines_error) {
    hot_lines_error = make_error(ErrorCategory::ncu_failed, "no source page was exported");
  }
  report["metadata"]["hot_lines"]["error"] = to_json(hot_lines_error);
  return report;
}

/// The run's facts for the metadata of round `round`.
RunMetadata run_metadata(const KernelProfiler& profiler, const std::string& metric_check, int round,
                         const fs::path& problem, const std::vector<int>& gpus) {
  const ProfileOptions& options = profiler.options();
  RunMetadata run;
  run.round = round;
  run.problem_file = problem.string();
  run.ncu = profiler.ncu().executable.string();
  run.ncu_version = profiler.ncu().version;
  run.clock_control = std::string(to_string(options.clock_control));
  run.metric_check = metric_check;
  run.select = std::string(to_string(options.select.select));
  run.python = profiler.python().string();
  run.warmup = options.warmup;
  run.inputs = std::string(to_string(options.inputs));
  run.cast = std::string(to_string(options.cast));
  run.gpus = gpus;
  return run;
}

} // namespace

Result<fs::path> find_python(const std::optional<fs::path>& explicit_python) {
  if (explicit_python) {
    auto found = find_executable(explicit_python->string());
    if (!found) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("python executable not found: {} (from --python)",
                                    explicit_python->string()));
    }
    return *found;
  }
  if (auto env = env_var("KPROF_PYTHON")) {
    auto found = find_executable(*env);
    if (!found) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("python executable not found: {} (from KPROF_PYTHON)", *env));
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

Result<ProfileEnvironment> read_profile_environment() {
  ProfileEnvironment environment;
  auto compile_ahead = env_flag("KPROF_COMPILE_AHEAD");
  if (!compile_ahead) {
    return std::move(compile_ahead).error();
  }
  environment.compile_ahead = compile_ahead->value_or(environment.compile_ahead);
  auto sudo = env_flag("KPROF_NCU_USE_SUDO");
  if (!sudo) {
    return std::move(sudo).error();
  }
  environment.use_sudo = sudo->value_or(environment.use_sudo);
  return environment;
}

Result<KernelProfiler> KernelProfiler::create(ProfileOptions options) {
  if (auto valid = check_run_options(options); !valid) {
    return valid.error();
  }
  auto environment = read_profile_environment();
  if (!environment) {
    return std::move(environment).error();
  }
  // Before anything runs (ncu --version included): an index this machine does not have.
  if (auto visible = check_visible_gpus(options.gpus, visible_gpu_count(), "GPU"); !visible) {
    return visible.error();
  }
  normalize_options(options, *environment);
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
  settings.metrics = options.metrics;
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
  settings.compile_ahead = environment->compile_ahead;
  settings.launches = options.launches;
  settings.launch_memory_dir = RoundLayout(options.out_dir).cache_dir() / "launches";
  settings.budget.max_replayed = options.max_replayed;
  settings.on_progress = options.on_progress;
  auto runner = make_ncu_session_runner(std::move(settings));
  return KernelProfiler(std::move(options), std::move(ncu).value(), std::move(python).value(),
                        std::move(runner));
}

Result<KernelProfiler> KernelProfiler::with_runner(ProfileOptions options, NcuInstall ncu,
                                                   fs::path python,
                                                   std::shared_ptr<SessionRunner> runner) {
  KPROF_ASSERT(runner != nullptr);
  if (auto valid = check_run_options(options); !valid) {
    return valid.error();
  }
  auto environment = read_profile_environment();
  if (!environment) {
    return std::move(environment).error();
  }
  normalize_options(options, *environment);
  return KernelProfiler(std::move(options), std::move(ncu), std::move(python), std::move(runner));
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
    verdict = cache.find(m_ncu.version, *device, m_options.metrics);
  }
  const bool cached = verdict.has_value();
  if (!verdict) {
    // The listing kept in --out's .cache is read only from a directory no other user can write.
    const fs::path listings = RoundLayout(m_options.out_dir).cache_dir();
    auto listing =
        query_metrics(m_ncu, "", private_directory(listings, true) ? listings : fs::path());
    if (!listing) {
      // The listing needs a visible GPU; without it we cannot check names up front. The run
      // itself will then fail with a classified error, so this is not fatal; it is recorded.
      m_metric_check = "skipped: " + listing.error().message;
      m_metrics_checked = true;
      return {};
    }
    auto unknown = unknown_metrics(m_options.metrics, *listing);
    if (!unknown) {
      m_metric_check = "skipped: " + unknown.error().message;
      m_metrics_checked = true;
      return {};
    }
    verdict = MetricVerdict{std::move(unknown).value(), utc_timestamp()};
    if (device) {
      (void)cache.store(m_ncu.version, *device, m_options.metrics, *verdict);
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
                           m_options.metrics.metrics.size(), verdict->checked_at)
             : fmt::format("ok: all {} metric names known to the device (ncu --query-metrics)",
                           m_options.metrics.metrics.size());
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
  request.plan.compile_ahead_max_wait_seconds = compile_ahead_max_wait_seconds(m_options.timeout);
  if (m_options.check || m_options.timing) {
    TruthPlan truth;
    truth.check = m_options.check;
    truth.timing = m_options.timing;
    truth.reference = m_options.timing;
    truth.budget_seconds = m_options.timing_budget_ms / 1000.0;
    truth.max_repetitions = m_options.timing_repetitions;
    truth.atol = m_options.atol;
    truth.rtol = m_options.rtol;
    // The reference's FLOP counts kept in --out's .cache, only in a directory no other user can
    // write: the next kprof of the problem skips FlopCounterMode's first use (about 5 s of CPU).
    if (truth.reference) {
      const fs::path flops = RoundLayout(m_options.out_dir).cache_dir() / "flops";
      if (private_directory(flops, true)) {
        truth.flop_cache = flops;
      }
    }
    request.plan.truth = truth;
  }
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
  if (auto prepared = prepare_run_directory(m_options.out_dir); !prepared) {
    return prepared.error();
  }
  if (auto checked = check_metrics_once(); !checked) {
    return checked.error();
  }
  auto writer = RoundWriter::begin(RoundLayout(m_options.out_dir), round, batch_layout);
  if (!writer) {
    return std::move(writer).error();
  }
  if (auto written = write_harness_script(writer->staging().script()); !written) {
    return written.error();
  }

  const std::vector<int> gpus = m_options.gpus.empty() ? std::vector<int>{0} : m_options.gpus;
  RoundSessions sessions(m_options, *m_runner, writer->staging(), kernels, started);
  auto work = sessions.run(
      gpus, [&](int gpu) { return session_request(problem, gpu, !m_options.gpus.empty()); });
  if (!m_options.standby) {
    m_runner->release_standbys(); // the pre-started harnesses nobody needed
  }
  if (!work) {
    return std::move(work).error();
  }

  // The analyses first: they settle each candidate's status, and the statuses where the round
  // goes (a failed re-run never replaces a good round).
  const auto analyses = analyse_candidates(*work, kernels, m_options.select);
  if (cancellation_requested() && !m_options.record_interrupted_rounds) {
    // The staging directory goes with the writer: nothing of the round is written.
    RoundResult dropped;
    dropped.round = round;
    dropped.recorded = false;
    for (CandidateWork& slot : *work) {
      dropped.candidates.push_back(std::move(slot.result));
    }
    dropped.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return dropped;
  }
  const bool good = !cancellation_requested() &&
                    std::any_of(work->begin(), work->end(), [](const CandidateWork& w) {
                      return w.result.status != CandidateStatus::failed;
                    });
  const fs::path final_dir = writer->settle(good, kernels.front());
  for (const std::string& line : writer->notes()) {
    if (m_options.on_progress) {
      m_options.on_progress(line);
    }
  }
  RunMetadata run = run_metadata(*this, m_metric_check, round, problem, gpus);
  for (std::size_t index = 0; index < kernels.size(); ++index) {
    CandidateWork& slot = (*work)[index];
    const CandidateMetadata metadata = candidate_metadata(run, slot, batch_layout, final_dir);
    if (const auto& analysis = analyses[index]) {
      slot.result.report = candidate_report(*this, slot, *analysis, metadata, final_dir);
    }
    if (auto added = writer->add(std::move(slot.result), metadata.to_json()); !added) {
      return added.error();
    }
  }
  const double wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  run.wall_seconds = wall_seconds;
  CommitSettings settings;
  settings.record_history = m_options.record_history;
  settings.logs_dir = m_options.logs_dir;
  settings.kernelagent_logs_only = m_options.kernelagent_logs_only;
  return writer->commit(run.to_json(), wall_seconds, settings);
}

} // namespace kprof

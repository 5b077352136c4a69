// kprof: one ncu session (one ncu process profiling one harness process) and what it produced.
//
// The profiler asks a SessionRunner to run sessions; the real one (make_ncu_session_runner) runs
// ncu, tests give the profiler a fake one that returns recorded outcomes. What a session produced
// is turned into facts by assess_session() (pure), then into a verdict per candidate by
// judge_candidate() (kprof/judge.hpp, pure).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/harness.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu.hpp"
#include "kprof/process.hpp"
#include "kprof/source_page.hpp"
#include "kprof/workload.hpp"

namespace kprof {

/// One session to run: the plan (from plan.first_candidate on) on one GPU.
struct SessionRequest {
  HarnessPlan plan;               ///< status_file lies in work_dir
  std::filesystem::path work_dir; ///< plan.json, status.json, ncu.log and report.ncu-rep go here
  std::filesystem::path script;   ///< the harness script
  int gpu = 0;
  bool set_visible_devices = false; ///< set CUDA_VISIBLE_DEVICES=gpu (and a per-GPU TMPDIR)
  std::chrono::seconds timeout{300};
  /// Start the next harness for this GPU beside this session, with its inputs deferred (no GPU
  /// work until it takes over): when a candidate poisons the CUDA context, the rest of a batch
  /// continues in it without waiting for Python, torch and the problem to load. Needs
  /// NcuSessionSettings::standby_root; ignored with keep_standbys.
  bool prestart_next = false;
};

/// Everything one session produced.
struct SessionOutcome {
  int gpu = 0;                   ///< the GPU index the session ran on (its request's)
  std::vector<std::string> argv; ///< ncu's argv
  bool started = false;          ///< ncu could be spawned
  std::optional<Error> spawn_error;
  ProcessResult process;
  std::string log_text;           ///< ncu's --log-file
  std::optional<Capture> capture; ///< the rows: the log's CSV, or the report's (source)
  /// The file of the session's directory that holds the rows as CSV: the log (ncu.log), or,
  /// with source counters, the rows imported from the report (RoundLayout::k_rows_page).
  std::string rows_file = "ncu.log";
  std::optional<Error> capture_error;   ///< why the rows could not be read
  std::optional<HarnessStatus> harness; ///< status.json, when the harness wrote it
  NcuVerdict verdict;                   ///< classify_ncu_run() on the process, log and rows
  /// The source page the session printed (source counters on): per-line counters of every
  /// profiled launch, in launch order. Absent when not asked for.
  std::optional<SourcePage> source_page;
  /// Why the source page is missing although asked for (unreadable page, not written).
  /// Never decides a candidate's status: its numbers stand without hot lines.
  std::optional<Error> source_error;
  /// With source counters, the time after the session: importing the rows from the report and
  /// reading the source page.
  double source_export_seconds = 0;

  /// The session ran on a standby: a harness started under ncu ahead of time that had the
  /// problem imported and the inputs on the GPU when the candidates arrived.
  bool standby = false;
  /// Many launches (NcuSessionSettings::launches): the call's timeline, made outside ncu, or why
  /// there is none; and, when the call had more than k_two_tier_threshold launches, the plan of
  /// the representatives the session replayed.
  std::optional<Timeline> timeline;
  std::optional<Error> timeline_error;
  std::optional<ReplayPlan> replay_plan;

  /// Standbys were asked for but none could be made, and why (its directory is not private:
  /// private_directory's words); empty otherwise.
  std::string standby_unavailable;
};

/// The facts of a finished session, from what it left behind: parses the log's CSV (capture or
/// capture_error), classifies the ncu run (ncu's console output counts too). Pure: no I/O.
SessionOutcome assess_session(std::vector<std::string> argv, ProcessResult process,
                              std::string log_text, std::optional<HarnessStatus> harness);

/// assess_session() for a session with source counters (NcuCommand::source_counters): its log
/// holds the source page that ncu printed and `rows` are the launches imported from its report
/// (no_kernels when ncu wrote none). Classifies the run on the imported launches; rows that were
/// there but could not be imported make the run ncu_failed (unless the program failed first);
/// the page is read from the log (`log_origin` names it in messages) when there are rows, its
/// failure a source_error. Pure: no I/O.
SessionOutcome assess_source_session(std::vector<std::string> argv, ProcessResult process,
                                     std::string log_text, std::optional<HarnessStatus> harness,
                                     Result<Capture> rows, std::string_view log_origin);

/// A session that could not start (the plan could not be written, ncu could not be spawned).
SessionOutcome unstarted_session(std::vector<std::string> argv, Error error);

/// Runs sessions. Implementations must be safe to call from several threads at once (one per
/// GPU) and are shared between copies of a KernelProfiler.
class SessionRunner {
public:
  SessionRunner() = default;
  SessionRunner(const SessionRunner&) = delete;
  SessionRunner& operator=(const SessionRunner&) = delete;
  SessionRunner(SessionRunner&&) = delete;
  SessionRunner& operator=(SessionRunner&&) = delete;
  virtual ~SessionRunner() = default;

  /// Runs one session to its end (or timeout, or cancellation). Never fails: a session that
  /// cannot start is an outcome with started == false.
  virtual SessionOutcome run(const SessionRequest& request) = 0;

  /// Stops and removes every standby this runner keeps (NcuSessionSettings::standby_root);
  /// a runner without standbys has nothing to do.
  virtual void release_standbys() {}

  /// Starts a standby for requests like `request` (its plan's candidates are ignored) without
  /// running a session; a runner without standbys does nothing.
  virtual void prime(const SessionRequest& request) { (void)request; }

  /// Returns once the standby being prepared for requests like `request` is ready, has ended, or
  /// kprof is interrupted; at once when there is none or it is ready. Called before the GPU's
  /// lock is taken: a standby takes that lock while it starts, and a request that took it first
  /// would find the standby not ready and start cold, which takes longer than what is left of
  /// the standby's start. Bounded by the standby's own setup limit. Returns how long it waited.
  virtual std::chrono::duration<double> await_standby(const SessionRequest& request) {
    (void)request;
    return std::chrono::duration<double>(0);
  }

  /// Whether a call of `problem`'s candidates is timed outside ncu before its launches are
  /// replayed (`--launches many`, or `auto` for a problem whose last call made many launches:
  /// docs/harness.md, "Many launches"). A batch then gives each candidate a session of its own,
  /// timed first and replayed in representatives, instead of one session that replays every
  /// launch of every candidate. A runner without that tier says false.
  [[nodiscard]] virtual bool times_calls_first(const std::filesystem::path& problem) const {
    (void)problem;
    return false;
  }
};

/// The most standbys the runner keeps per GPU: one, and a second in flight once candidates came
/// back to back (a request waited for its standby). Each is a Python process with torch, the
/// problem's inputs on the GPU and a CUDA context, under ncu (docs/standby.md, "Memory").
inline constexpr int k_max_standbys_per_gpu = 2;

/// The most compile workers a session gets (docs/harness.md, "Compiling ahead"). Each is a Python
/// with torch, about 630 MiB resident. Measured on an H100 (2026-12-05, 32 new candidates run by
/// scripts/device-batch-ab.sh, three pairs of runs): 2 workers kept up (31 or 30 of 32 compiled
/// ahead) and took 17.82, 19.06 and 18.02 s against 18.43, 19.84 and 19.46 s with 4, whose
/// imports beside the harness's lengthened its setup by up to 1.1 s.
inline constexpr int k_max_compile_workers = 2;

/// How many compile workers a session with `later` candidates after its first gets on a host of
/// `cpus` CPUs (0 when unknown): one per later candidate, at most k_max_compile_workers and at
/// most the CPUs less two (the harness and ncu run beside them), and at least one.
int compile_worker_count(std::size_t later, unsigned cpus);

/// How the real runner calls ncu.
struct NcuSessionSettings {
  NcuInstall ncu;
  MetricSet metrics;
  std::filesystem::path python;
  ClockControl clock_control = ClockControl::none;
  bool keep_ncu_report = true; ///< -o work_dir/report
  /// Collect per-line counters and export the source page (work_dir/source.csv) after the run;
  /// implies the report file.
  bool source_counters = false;
  bool use_sudo = false;
  /// Compile the later candidates of a session ahead, in compile workers (docs/harness.md,
  /// "Compiling ahead"); KPROF_COMPILE_AHEAD, read by read_profile_environment().
  bool compile_ahead = true;
  /// Where standbys live (empty: none at all): harnesses started under ncu ahead of time that
  /// wait for their candidates. See docs/standby.md.
  std::filesystem::path standby_root;
  /// After each session start the next standby (inputs ready), so the next session with the
  /// same problem and settings skips Python's start, torch's import and the inputs.
  bool keep_standbys = false;
  int standby_idle_seconds = 600; ///< an unused standby exits after this long
  /// The per-GPU lock directory (GpuLock): a standby holds its GPU's lock while it starts
  /// (torch's CUDA context, the inputs on the GPU), never while it waits, so it never runs GPU
  /// work beside another kprof's profiled kernels.
  std::filesystem::path lock_dir;
  /// Many launches (docs/harness.md, LaunchTiers): under `automatic` a cold session of one
  /// candidate replays at most k_auto_launch_cap launches, and a call that reaches the cap is
  /// timed outside ncu, then replayed again with only the plan's representatives; under `many`
  /// the timeline is made beside the session from its start.
  LaunchTiers launches = LaunchTiers::automatic;
  /// Where what each problem's call made is remembered beyond this runner (LaunchMemory: the
  /// out dir's .cache/launches); empty: only while the runner lives.
  std::filesystem::path launch_memory_dir;
  ReplayBudget budget;
  /// Progress lines of a long session (replays done of planned, elapsed, estimate left).
  std::function<void(const std::string&)> on_progress;
};

/// The runner that runs ncu over the harness: writes plan.json, runs `ncu ... python harness.py
/// plan.json` in work_dir with the shared Triton cache, reads ncu.log and status.json.
std::shared_ptr<SessionRunner> make_ncu_session_runner(NcuSessionSettings settings);

} // namespace kprof

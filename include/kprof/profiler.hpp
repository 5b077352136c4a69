// kprof: profiling rounds, from kernel.py + problem.py to a round directory of results.
//
// One KernelProfiler serves many kernel files and rounds of one output directory. It keeps the
// located ncu (and its version), the metric set and the output layout; the profiled programs
// share one Triton cache that persists across rounds and runs ($TRITON_CACHE_DIR when set, else
// ~/.cache/kprof/triton), so a kernel is compiled once. `profile` is `batch` with one candidate:
// both run the same session code.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/error.hpp"
#include "kprof/harness.hpp"
#include "kprof/history.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu.hpp"
#include "kprof/profile_session.hpp"
#include "kprof/report.hpp"
#include "kprof/round.hpp"
#include "kprof/status.hpp"
#include "kprof/workload.hpp"

namespace kprof {

struct ProfileOptions {
  std::filesystem::path out_dir = "kprof-out"; ///< rounds land in out_dir/roundNNN/
  /// What ncu collects: a set (`--metrics default|lean|deep`) or a list of metric names, resolved
  /// once, by the option table's parser (parse_run_options); its `words` are the option's value.
  MetricSet metrics = default_metric_set();
  /// Hot lines (docs/hot-lines.md): per-line counters and the source page; on for a set that
  /// implies them (MetricSet::with_source: `deep`).
  bool source = false;
  /// Keep the next harness started under ncu and waiting (docs/standby.md): the next profile of
  /// the same problem with the same settings on the same GPU skips Python's start, torch's
  /// import and the inputs. For a long-lived profiler (Python's KernelProfiler, kprof serve).
  bool standby = false;
  int standby_idle_seconds = 600; ///< an unused standby exits after this long
  /// In a batch, start the next harness beside the running session (inputs deferred), so the
  /// rest continues without a restart's wait when a candidate poisons the CUDA context.
  bool prestart = true;
  std::optional<std::filesystem::path> ncu;      ///< else $KPROF_NCU, PATH, CUDA dirs
  std::optional<std::filesystem::path> python;   ///< else $KPROF_PYTHON, python3 on PATH
  bool use_sudo = false;                         ///< also on with KPROF_NCU_USE_SUDO on
  std::chrono::seconds timeout{300};             ///< per candidate
  int retries = 2;                               ///< extra attempts for retryable failures
  std::chrono::milliseconds retry_backoff{1000}; ///< doubled after each failed attempt
  int warmup = 3;
  /// The truth beside the counters (docs/harness.md, "The truth"): each candidate's outputs
  /// checked against the reference's, and its wall time measured outside ncu's replay.
  bool check = true;
  bool timing = true;
  int timing_budget_ms = 100;    ///< timed repetitions until this much GPU time ...
  int timing_repetitions = 1000; ///< ... or this many
  std::optional<double> atol;    ///< every floating dtype's; nullopt: the per-dtype defaults
  std::optional<double> rtol;
  InputsOn inputs = InputsOn::gpu;
  CastDtype cast = CastDtype::none;
  std::uint64_t seed = 0;
  ClockControl clock_control = ClockControl::none;
  /// Two tiers for a call of many launches (docs/harness.md, "Many launches").
  LaunchTiers launches = LaunchTiers::automatic;
  std::size_t max_replayed = k_default_max_replayed; ///< the replay budget under `auto`
  std::vector<int> gpus;       ///< empty: GPU 0 (CUDA_VISIBLE_DEVICES untouched)
  SelectOptions select;        ///< applied to each candidate's kernels
  bool check_metrics = true;   ///< validate names with --query-metrics first
  bool keep_ncu_report = true; ///< also write roundNNN/report.ncu-rep
  bool record_history = true;  ///< record rounds in out_dir/kprof.db
  /// KernelAgent's logs_dir: the KernelAgent files (roundNNN_ncu_metrics.json,
  /// roundNNN_candK_ncu_metrics.json) are also written here, under the same names.
  std::optional<std::filesystem::path> logs_dir;
  /// With logs_dir: the KernelAgent files only there (KernelAgent's place), not in out_dir too.
  bool kernelagent_logs_only = false;
  std::chrono::milliseconds lock_wait{std::chrono::minutes(30)};
  std::filesystem::path lock_dir; ///< empty: GpuLock::default_dir()
  /// Called with a progress line ("[3/8] cand2 ok (1.2 s)"); may be empty.
  std::function<void(const std::string&)> on_progress;
  /// A round that kprof's interruption (Ctrl-C, SIGTERM: cancellation_requested()) cut short is
  /// written as failed, as it ended (a kept attempt beside a good round). Off for kprof serve,
  /// whose rounds are its clients': its candidates did not fail, the server stopped, and the
  /// client profiles them itself; the round then writes nothing (RoundResult::recorded).
  /// Not an option of the table: no command or keyword sets it.
  bool record_interrupted_rounds = true;
};

/// Records `report`, the report of a capture profiled elsewhere (`kprof report FILE --round N`),
/// as round `round` of `out_dir` through the writer of profiled rounds (src/profile/
/// round_writer.hpp): staged, moved into place by one rename (an earlier result of another file
/// moved aside to roundNNN.kernel-K/), the KernelAgent file beside it and its history row (one
/// transaction; none with `record_history` false). `file` is the capture, the row's label.
/// A CaptureReport is never built whole: each file reads its launches one at a time (the
/// candidate's streamed_report). io or database error.
Result<RoundResult> record_report_round(const std::filesystem::path& out_dir, int round,
                                        std::shared_ptr<const ReportSource> report,
                                        const std::filesystem::path& file,
                                        bool record_history = true);
/// The same, of a report held as a tree (a report with hot lines attached).
Result<RoundResult> record_report_round(const std::filesystem::path& out_dir, int round,
                                        Json report, const std::filesystem::path& file,
                                        bool record_history = true);

/// What a profile takes from kprof's environment, each variable read by env_flag (1, true, yes,
/// on / 0, false, no, off in any case; empty is unset).
struct ProfileEnvironment {
  /// KPROF_COMPILE_AHEAD: compile workers beside a session of several candidates
  /// (docs/harness.md, "Compiling ahead"); on unless the variable says off.
  bool compile_ahead = true;
  /// KPROF_NCU_USE_SUDO: run ncu under sudo, as --sudo.
  bool use_sudo = false;
};

/// Reads ProfileEnvironment. usage error, naming the variable and the valid words, when one holds
/// another word. KernelProfiler::create() reads it; the CLI checks it before it asks a kprof serve
/// or submits to Slurm, so a bad value is refused wherever the round would run.
Result<ProfileEnvironment> read_profile_environment();

/// The python that runs the harness: `explicit_python` (--python), else $KPROF_PYTHON, else
/// python3 on PATH, as an executable path. input_not_found naming where the word came from.
Result<std::filesystem::path>
find_python(const std::optional<std::filesystem::path>& explicit_python);

class KernelProfiler {
public:
  /// Checks the options as the option table does (check_run_options) and the environment
  /// (read_profile_environment), and finds ncu and python. Fails with usage (a value out of the
  /// table's range; a GPU index beyond visible_gpu_count(), checked before anything runs, as the
  /// CLI's and Python's option parsing does; a KPROF_* boolean that is not one), ncu_not_found or
  /// input_not_found (python).
  static Result<KernelProfiler> create(ProfileOptions options);

  /// A profiler whose sessions are run by `runner` (tests pass a fake one) with the given ncu
  /// and python (not looked up). Validates the options like create(); usage error otherwise.
  static Result<KernelProfiler> with_runner(ProfileOptions options, NcuInstall ncu,
                                            std::filesystem::path python,
                                            std::shared_ptr<SessionRunner> runner);

  /// Profiles one kernel: writes out_dir/roundNNN/ (harness.py, plan.json, status.json, ncu.log,
  /// report.ncu-rep, metrics.csv, report.json or error.json) and out_dir/roundNNN_ncu_metrics.json
  /// (KernelAgent layout; also into logs_dir when set). A failed or interrupted re-run of a round
  /// with a good result goes to out_dir/roundNNN.attempt-K/ instead and leaves the round alone. The
  /// RoundResult is returned even when the candidate failed; a Result error means the round could
  /// not be attempted (inputs missing, unknown metrics, GPU busy, output not writable). A round
  /// cut short by kprof's interruption writes nothing when the options' record_interrupted_rounds
  /// is off (RoundResult::recorded false).
  Result<RoundResult> profile(const std::filesystem::path& kernel,
                              const std::filesystem::path& problem, int round);

  /// Profiles several candidates of one problem: one harness process per GPU imports the problem
  /// once and runs each candidate in its own NVTX range; a candidate that fails or poisons the
  /// CUDA context costs the others nothing. Files go to out_dir/roundNNN/cand<i>/.
  Result<RoundResult> profile_batch(const std::filesystem::path& problem,
                                    const std::vector<std::filesystem::path>& kernels, int round);

  /// Starts a standby for `problem` on each GPU of the options now, before the first round
  /// (kprof serve). usage error without the standby option; input_not_found for a missing
  /// problem file.
  Result<void> prime_standbys(const std::filesystem::path& problem);

  /// Stops the standbys of this profiler and its copies (they share them); a later profile
  /// starts cold and makes new ones.
  void release_standbys() { m_runner->release_standbys(); }

  /// A copy that retries failed attempts `retries` times (ProfileOptions::retries) and shares
  /// this profiler's standbys: the retries of a call change no session, so a caller that
  /// alternates them keeps its warm standby (Python's max_retries per call).
  [[nodiscard]] KernelProfiler with_retries(int retries) const {
    KernelProfiler copy = *this;
    copy.m_options.retries = retries;
    return copy;
  }

  /// with_retries(retries) that reports its progress to `on_progress` (a round's own caller).
  [[nodiscard]] KernelProfiler for_call(int retries,
                                        std::function<void(const std::string&)> on_progress) const {
    KernelProfiler copy = with_retries(retries);
    copy.m_options.on_progress = std::move(on_progress);
    return copy;
  }

  [[nodiscard]] const ProfileOptions& options() const { return m_options; }
  [[nodiscard]] const NcuInstall& ncu() const { return m_ncu; }
  [[nodiscard]] const MetricSet& metric_set() const { return m_options.metrics; }
  [[nodiscard]] const std::filesystem::path& python() const { return m_python; }

private:
  KernelProfiler(ProfileOptions options, NcuInstall ncu, std::filesystem::path python,
                 std::shared_ptr<SessionRunner> runner)
      : m_options(std::move(options)), m_ncu(std::move(ncu)), m_python(std::move(python)),
        m_runner(std::move(runner)) {}
  Result<RoundResult> run_round(const std::filesystem::path& problem,
                                const std::vector<std::filesystem::path>& kernels, int round,
                                bool batch_layout);
  Result<void> check_metrics_once();
  /// A session request for `problem` on `gpu` with the options' harness settings (no
  /// candidates, no directories yet).
  [[nodiscard]] SessionRequest session_request(const std::filesystem::path& problem, int gpu,
                                               bool set_visible) const;

  ProfileOptions m_options;
  NcuInstall m_ncu;
  std::filesystem::path m_python;
  std::shared_ptr<SessionRunner> m_runner; ///< shared by copies; thread-safe
  bool m_metrics_checked = false;
  std::string m_metric_check = "not run"; ///< recorded in every report's metadata
};

/// The files of one round, checked and made absolute.
struct RoundInputs {
  std::filesystem::path problem;
  std::vector<std::filesystem::path> kernels;
};

/// Checks that `problem` and every kernel are regular files and returns their absolute paths:
/// input_not_found naming the first that is not and what it is instead ("... is a directory, not
/// a file: did you mean DIR/problem.py?", "problem file not found: P"). Needs no ncu, so callers
/// check the inputs before looking for ncu (a missing file is "input not found" also on a machine
/// without ncu); KernelProfiler::profile() and profile_batch() check again.
Result<RoundInputs> check_round_inputs(const std::filesystem::path& problem,
                                       const std::vector<std::filesystem::path>& kernels);

/// "round007" for 7 (RoundLayout::round_name).
std::string round_dir_name(int round);

/// One line of `kprof doctor`.
struct DoctorCheck {
  std::string name; ///< "ncu", "gpu", "counters", "python", "torch", "triton"
  bool ok = false;
  std::string detail; ///< version or the reason it failed
  std::optional<Error> error;
};

/// Runs every check, in this order: python found (the given one, else KPROF_PYTHON, else python3)
/// and running, ncu found and its version, GPUs visible, torch and triton importable with
/// versions, counter permission (a tiny real profile). Without a python the last three are left
/// out. The first failed check is the one to fix first (`kprof doctor` exits with its code).
std::vector<DoctorCheck> run_doctor(const std::optional<std::filesystem::path>& ncu,
                                    const std::optional<std::filesystem::path>& python,
                                    ClockControl clock_control);

} // namespace kprof

// The real SessionRunner: one ncu process over one harness process, in the session's directory.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/gpu_lock.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/profile_session.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/source_page.hpp"
#include "profile/launch_memory.hpp"
#include "util/unique_fd.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> preserved_env_names() {
  return {"PATH",         "LD_LIBRARY_PATH",   "CUDA_VISIBLE_DEVICES",
          "PYTHONPATH",   "TRITON_CACHE_DIR",  "TORCH_EXTENSIONS_DIR",
          "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "VIRTUAL_ENV",
          "HOME",         "PYTHONUNBUFFERED",  "PYTHONDONTWRITEBYTECODE",
          "CUDA_HOME",    "KPROF_OWNER_PID"};
}

/// The compile workers of one session: `harness.py PLAN --compile-worker` processes beside the
/// harness, outside ncu and seeing no GPU, that compile the later candidates' Triton kernels
/// while the earlier ones run (templates/kprof_harness/compile_worker.py). A worker that is
/// still running when the session ends (one waiting for a harness that failed before it
/// published its target) is stopped with its process group; all are reaped by stop().
class CompileWorkers {
public:
  CompileWorkers() = default;
  CompileWorkers(const CompileWorkers&) = delete;
  CompileWorkers& operator=(const CompileWorkers&) = delete;
  CompileWorkers(CompileWorkers&&) = delete;
  CompileWorkers& operator=(CompileWorkers&&) = delete;
  ~CompileWorkers() { stop(); }

  void start(ProcessSpec spec) {
    spec.control = std::make_shared<ProcessControl>();
    m_controls.push_back(spec.control);
    m_done.push_back(std::async(std::launch::async, [spec] { return run_process(spec); }));
  }

  void stop() {
    for (const auto& control : m_controls) {
      control->stop.store(true);
    }
    for (auto& done : m_done) {
      done.wait();
    }
    m_controls.clear();
    m_done.clear();
  }

private:
  std::vector<std::shared_ptr<ProcessControl>> m_controls;
  std::vector<std::future<Result<ProcessResult>>> m_done;
};

/// The first line of a two-tier session: what the timeline found and what will be replayed.
std::string plan_line(const Timeline& timeline, const ReplayPlan& plan,
                      std::chrono::steady_clock::time_point started) {
  double covered = 0;
  std::size_t kept = 0;
  for (const KernelShape& shape : plan.shapes) {
    if (!shape.planned.empty()) {
      covered += shape.total_us;
      ++kept;
    }
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string line = fmt::format(
      "{} launches of {} distinct kernels timed ({:.1f} s); replaying {} launches of {} kernels, "
      "{:.0f}% of the kernel time",
      timeline.launches.size(), plan.shapes.size(), elapsed, plan.planned, kept,
      plan.kernel_us > 0 ? 100.0 * covered / plan.kernel_us : 0.0);
  if (kept < plan.shapes.size()) {
    line += fmt::format(" (--max-replayed {} leaves {} out)", plan.max_replayed,
                        plan.shapes.size() - kept);
  }
  return line;
}

/// Progress of a session that replays a plan: a thread that says, every k_interval, how long
/// ncu has been at it. ncu prints no line per profiled launch under --csv (its recorded output,
/// ../shared/ncu-samples/h200/curated_nvtx_twostage_stdout_mixed.txt: two kernels profiled, only
/// the Connected and Disconnected lines), and its rows reach the log at its end, so elapsed time
/// is what there is to tell.
class ReplayProgress {
public:
  static constexpr std::chrono::seconds k_interval{5};

  ReplayProgress(std::size_t planned, std::chrono::steady_clock::time_point started,
                 std::function<void(const std::string&)> report)
      : m_planned(planned), m_started(started), m_report(std::move(report)) {
    if (m_report) {
      m_thread = std::thread([this] { watch(); });
    }
  }
  ReplayProgress(const ReplayProgress&) = delete;
  ReplayProgress& operator=(const ReplayProgress&) = delete;
  ReplayProgress(ReplayProgress&&) = delete;
  ReplayProgress& operator=(ReplayProgress&&) = delete;
  ~ReplayProgress() {
    {
      const std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) {
      m_thread.join();
    }
  }

private:
  void watch() {
    const auto replaying = std::chrono::steady_clock::now();
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_for(lock, k_interval, [this] { return m_stop; })) {
      const auto now = std::chrono::steady_clock::now();
      m_report(fmt::format("ncu replaying {} representatives: {:.0f} s so far ({:.0f} s since the "
                           "start)",
                           m_planned, std::chrono::duration<double>(now - replaying).count(),
                           std::chrono::duration<double>(now - m_started).count()));
    }
  }

  std::size_t m_planned;
  std::chrono::steady_clock::time_point m_started;
  std::function<void(const std::string&)> m_report;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

/// What a standby was prepared for; a request with another key cannot use it.
struct StandbyKey {
  fs::path problem;
  fs::file_time_type problem_time;
  std::uintmax_t problem_size = 0;
  int warmup = 0;
  InputsOn inputs = InputsOn::gpu;
  CastDtype cast = CastDtype::none;
  std::uint64_t seed = 0;
  int gpu = 0;
  bool set_visible_devices = false;
  std::optional<TruthPlan> truth; ///< read by the harness at its start
  bool operator==(const StandbyKey&) const = default;
};

StandbyKey key_of(const SessionRequest& request) {
  StandbyKey key;
  key.problem = request.plan.problem;
  std::error_code ec;
  key.problem_time = fs::last_write_time(request.plan.problem, ec);
  key.problem_size = fs::file_size(request.plan.problem, ec);
  key.warmup = request.plan.warmup;
  key.inputs = request.plan.inputs;
  key.cast = request.plan.cast;
  key.seed = request.plan.seed;
  key.gpu = request.gpu;
  key.set_visible_devices = request.set_visible_devices;
  key.truth = request.plan.truth;
  return key;
}

/// The longest a truth worker (kept across rounds) may live: it ends itself when no gate comes
/// within the standby idle limit, and each of its rounds is watched (await_truth).
constexpr std::chrono::seconds k_truth_worker_lifetime{7 * 24 * 3600};

/// The truth's own process (templates/kprof_harness/truth_process.py), outside ncu: started
/// beside a session, or ahead of the next round as a truth standby, it prepares (torch,
/// problem.py, FlopCounterMode's first use, the CUDA context) and waits for its gate, which names
/// the candidates to measure once the session ended. Stopped and waited for when dropped.
struct TruthRun {
  StandbyKey key;
  fs::path dir;         ///< its plan, status and gate (the round's directory, or a standby's own)
  bool own_dir = false; ///< a truth standby's directory, removed with it
  /// A worker kept across rounds (keep_standbys): each gate asks it to serve the next one too.
  bool serve = false;
  int gates = 0; ///< gates written to it so far (each gate's "sequence")
  std::shared_ptr<ProcessControl> control = std::make_shared<ProcessControl>();
  std::future<Result<ProcessResult>> done;

  TruthRun() = default;
  TruthRun(const TruthRun&) = delete;
  TruthRun& operator=(const TruthRun&) = delete;
  TruthRun(TruthRun&&) = delete;
  TruthRun& operator=(TruthRun&&) = delete;
  ~TruthRun() {
    if (done.valid()) {
      control->stop.store(true);
      (void)done.get();
    }
    if (own_dir) {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  }
  [[nodiscard]] bool exited() const {
    return done.valid() && done.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
};

/// A harness started under ncu ahead of time, waiting on its FIFO for the candidates.
struct Standby {
  StandbyKey key;
  bool deferred = false; ///< makes its inputs after the hand-over (SessionRequest::prestart_next)
  fs::path dir;
  fs::path fifo;
  fs::path status_file;
  std::vector<std::string> argv;
  std::shared_ptr<ProcessControl> control = std::make_shared<ProcessControl>();
  std::future<Result<ProcessResult>> done;

  Standby() = default;
  Standby(const Standby&) = delete;
  Standby& operator=(const Standby&) = delete;
  Standby(Standby&&) = delete;
  Standby& operator=(Standby&&) = delete;
  ~Standby() {
    control->stop.store(true);
    if (done.valid()) {
      done.wait();
    }
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  [[nodiscard]] bool exited() const {
    return done.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
};

/// Whether the standby's harness reported that it waits for candidates.
bool standby_ready(const fs::path& status_file) {
  auto status = read_harness_status(status_file);
  return status && status->phase == "standby";
}

/// Returns once the standby's harness is ready (status phase "standby"), its process ended
/// (`finished`) or was stopped; stops it when it is not ready within `setup_limit`.
void watch_setup(const ProcessSpec& spec, const fs::path& status_file,
                 std::chrono::milliseconds setup_limit, const std::atomic<bool>& finished) {
  const auto give_up = std::chrono::steady_clock::now() + setup_limit;
  while (!finished.load() && !spec.control->stop.load() && !standby_ready(status_file)) {
    if (std::chrono::steady_clock::now() > give_up) {
      spec.control->stop.store(true);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// Runs a standby's process. A standby that is not ready within `setup_limit` (the time a whole
/// session may take) is stopped: it must neither hold the GPU's lock nor keep a request waiting
/// longer than a cold session could. A standby with its inputs made before the hand-over takes
/// the GPU's lock itself (HarnessPlan::standby_gpu_lock) for its GPU work only (CUDA context,
/// inputs, primer) and lets it go before it waits: it never runs GPU work beside another kprof's
/// profiled kernels, never blocks one while it waits, and its Python start and torch's import
/// run beside the session before it. A deferred standby does no GPU work before the hand-over.
Result<ProcessResult> run_standby(const ProcessSpec& spec, const fs::path& status_file,
                                  std::chrono::milliseconds setup_limit) {
  if (spec.control->stop.load() || cancellation_requested()) {
    return make_error(ErrorCategory::gpu_busy, "the standby was stopped before it started");
  }
  std::atomic<bool> finished{false};
  std::thread watcher([&] { watch_setup(spec, status_file, setup_limit, finished); });
  Result<ProcessResult> result = run_process(spec);
  finished.store(true);
  watcher.join();
  return result;
}

/// Whether process `pid` still runs (a standby directory of a dead kprof is removed).
bool process_alive(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

/// What a gated session does when its call's timeline could not be made (run_with_timeline):
/// go on, every launch replayed (a call known to be long still gets its answer), or stop, the
/// call capped instead (a problem nothing is known of, whose ncu has no cap).
enum class WithoutTimeline { go_on, capped };

class NcuSessionRunner final : public SessionRunner {
public:
  explicit NcuSessionRunner(NcuSessionSettings settings)
      : m_settings(std::move(settings)), m_launch_memory(m_settings.launch_memory_dir) {
    if (!m_settings.standby_root.empty()) {
      remove_dead_standbys();
    }
  }

  /// The session (profiled), and beside it, when the plan asks for the truth, the truth's own
  /// process outside ncu (TruthRun): timing in ncu's process, even outside its range, pays for
  /// ncu's injection on every launch (docs/harness.md, "The truth").
  SessionOutcome run(const SessionRequest& request) override {
    if (!request.plan.truth) {
      return run_profiled(request);
    }
    // A long-lived profiler keeps one truth process per GPU as a worker across rounds (its
    // problem, reference and CUDA context ready for the agent's next candidate); a cold one
    // serves this round only.
    std::unique_ptr<TruthRun> truth = take_truth_standby(request);
    if (!truth && m_settings.keep_standbys && !cancellation_requested()) {
      truth = new_truth_standby(request);
    }
    std::optional<Error> unstarted;
    if (!truth) {
      auto started = start_truth(request, request.work_dir, request.timeout, false);
      if (started) {
        truth = std::move(started).value();
      } else {
        unstarted = started.error();
      }
    }
    SessionRequest profiled = request;
    profiled.plan.truth.reset();
    SessionOutcome outcome = run_profiled(profiled);
    if (finish_truth(truth.get(), unstarted, request, outcome)) {
      keep_truth_standby(request.gpu, std::move(truth));
    } else if (m_settings.keep_standbys && !cancellation_requested()) {
      truth.reset(); // stopped before its successor starts
      start_truth_standby(request);
    }
    return outcome;
  }

  void prime(const SessionRequest& request) override {
    if (!m_settings.standby_root.empty()) {
      if (request.plan.truth && m_settings.keep_standbys) {
        start_truth_standby(request);
      }
      SessionRequest profiled = request;
      profiled.plan.truth.reset();
      top_up_standbys(profiled, key_of(profiled));
    }
  }

  void release_standbys() override {
    std::map<int, std::vector<std::unique_ptr<Standby>>> stopping;
    std::map<int, std::unique_ptr<TruthRun>> stopping_truth;
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      stopping.swap(m_standbys);
      stopping_truth.swap(m_truth_standbys);
    }
    // Each stops in its destructor, outside the lock.
  }

  std::chrono::duration<double> await_standby(const SessionRequest& request) override {
    SessionRequest profiled = request;
    profiled.plan.truth.reset();
    return await_profiled_standby(profiled);
  }

private:
  /// Starts a truth process for requests like `request` in `dir`, waiting at most `wait` for
  /// its gate: its plan (the request's, without candidates: the gate names them) written there.
  Result<std::unique_ptr<TruthRun>> start_truth(const SessionRequest& request, const fs::path& dir,
                                                std::chrono::seconds wait, bool serve) const {
    auto truth = std::make_unique<TruthRun>();
    truth->key = key_of(request);
    truth->dir = dir;
    truth->serve = serve;
    const fs::path plan_path = dir / RoundLayout::k_truth_plan;
    std::error_code ignored;
    for (const std::string_view name :
         {RoundLayout::k_truth_gate, RoundLayout::k_truth_status, RoundLayout::k_truth_plan}) {
      fs::remove(dir / name, ignored);
    }
    HarnessPlan plan = request.plan;
    plan.candidates.clear();
    plan.first_candidate = 0;
    plan.status_file = dir / RoundLayout::k_truth_status;
    plan.standby_fifo.reset();
    plan.standby_gpu_lock.reset();
    plan.standby_defer_inputs = false;
    plan.standby_primer = false;
    plan.early_primer = false;
    plan.profiled_call_lock.reset();
    plan.timeline_gate.reset();
    plan.compile_ahead_dir.reset();
    if (auto written = write_file_atomic(plan_path, plan_to_json(plan)); !written) {
      return written.error();
    }
    ProcessSpec spec = spec_for(
        {m_settings.python.string(), request.script.string(), plan_path.string(), "--truth",
         (dir / RoundLayout::k_truth_gate).string(), std::to_string(wait.count())},
        dir, request);
    // The wait for its gate, then its own work; a worker's rounds are each watched by
    // finish_truth, and it ends itself when no gate comes within `wait`.
    spec.timeout = serve ? k_truth_worker_lifetime : wait + 2 * request.timeout;
    spec.max_captured_bytes = 64U << 10U;
    spec.control = truth->control;
    truth->done = std::async(std::launch::async, [spec] { return run_process(spec); });
    return truth;
  }

  /// Starts the next round's truth process for requests like `request` (a truth standby, in a
  /// private directory of the standby root) unless one of its key still waits for this GPU.
  void start_truth_standby(const SessionRequest& request) {
    const StandbyKey key = key_of(request);
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      const auto found = m_truth_standbys.find(request.gpu);
      if (found != m_truth_standbys.end() && found->second->key == key &&
          !found->second->exited()) {
        return;
      }
    }
    if (std::unique_ptr<TruthRun> truth = new_truth_standby(request)) {
      keep_truth_standby(request.gpu, std::move(truth));
    }
  }

  /// Keeps `truth` as this GPU's truth standby (a worker that answered a round and serves on).
  void keep_truth_standby(int gpu, std::unique_ptr<TruthRun> truth) {
    std::unique_ptr<TruthRun> replaced; // stops in its destructor, after the mutex
    const std::lock_guard<std::mutex> hold(m_mutex);
    replaced = std::exchange(m_truth_standbys[gpu], std::move(truth));
  }

  /// A truth worker for requests like `request`, started in a private directory of the
  /// standby root; nullptr when none can be (the round then starts a cold one).
  std::unique_ptr<TruthRun> new_truth_standby(const SessionRequest& request) {
    if (m_settings.standby_root.empty()) {
      return nullptr;
    }
    const fs::path dir =
        m_settings.standby_root / fmt::format("{}-gpu{}-truth-{}", static_cast<long>(::getpid()),
                                              request.gpu, m_started.fetch_add(1));
    // Its directory must be one no other user can write or swap, as a standby's: the root first,
    // so that nothing is made inside a root another user made (a shared --out).
    if (!private_directory(m_settings.standby_root, true) || !private_directory(dir, true) ||
        !write_harness_script(dir / RoundLayout::k_harness_script)) {
      return nullptr;
    }
    SessionRequest standby = request;
    standby.script = dir / RoundLayout::k_harness_script;
    auto truth =
        start_truth(standby, dir, std::chrono::seconds(m_settings.standby_idle_seconds), true);
    if (!truth) {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
      return nullptr;
    }
    (*truth)->own_dir = true;
    return std::move(truth).value();
  }

  /// This GPU's truth standby when it was made for requests like `request` and still waits.
  std::unique_ptr<TruthRun> take_truth_standby(const SessionRequest& request) {
    std::unique_ptr<TruthRun> truth;
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      const auto found = m_truth_standbys.find(request.gpu);
      if (found == m_truth_standbys.end()) {
        return nullptr;
      }
      truth = std::move(found->second);
      m_truth_standbys.erase(found);
    }
    if (truth->key == key_of(request) && !truth->exited()) {
      return truth;
    }
    return nullptr; // of another key, or ended: stopped here
  }

  /// Opens `truth`'s gate for the candidates `outcome`'s session profiled, waits for its answer
  /// and puts each measured candidate's check, timing and reference into the session's status
  /// (the truth's files in the round's directory); a truth that could not be measured says why
  /// in each candidate's check and timing. True when `truth` is a worker that serves on.
  static bool finish_truth(TruthRun* truth, std::optional<Error> failed,
                           const SessionRequest& request, SessionOutcome& outcome) {
    std::vector<HarnessCandidateStatus*> measured;
    Json gate = {{"candidates", Json::array()}};
    if (outcome.harness) {
      for (HarnessCandidateStatus& candidate : outcome.harness->candidates) {
        const auto index = static_cast<std::size_t>(candidate.index);
        if (candidate.ok && index < request.plan.candidates.size()) {
          measured.push_back(&candidate);
          const HarnessCandidate& planned = request.plan.candidates[index];
          gate["candidates"].push_back({{"index", candidate.index},
                                        {"kernel", planned.kernel.string()},
                                        {"range", planned.range},
                                        {"reference_itself", planned.reference_itself}});
        }
      }
    }
    const fs::path status_path = request.work_dir / RoundLayout::k_truth_status;
    bool serving = false;
    if (truth != nullptr) {
      std::error_code ec;
      gate["sequence"] = ++truth->gates;
      gate["status"] = status_path.string();
      gate["serve"] = truth->serve;
      if (truth->dir != request.work_dir) {
        fs::remove(status_path, ec);
      }
      if (cancellation_requested()) {
        truth->control->stop.store(true);
      } else if (auto opened =
                     write_file_atomic(truth->dir / RoundLayout::k_truth_gate, gate.dump() + "\n");
                 !opened) {
        truth->control->stop.store(true); // it would wait its limit for a gate that never comes
        failed = opened.error();
      } else {
        serving = await_truth(*truth, status_path, request.timeout, failed);
      }
      if (!serving) {
        Result<ProcessResult> process = truth->done.get();
        if (!failed && !process) {
          failed = process.error();
        }
      }
      if (truth->dir != request.work_dir) { // a worker's plan and gate join the round's files
        for (const std::string_view name : {RoundLayout::k_truth_plan, RoundLayout::k_truth_gate}) {
          fs::copy_file(truth->dir / name, request.work_dir / name,
                        fs::copy_options::overwrite_existing, ec);
        }
        if (!fs::exists(status_path, ec)) { // it ended before the gate: its own status says why
          fs::copy_file(truth->dir / RoundLayout::k_truth_status, status_path, ec);
        }
      }
    }
    if (measured.empty()) {
      return serving;
    }
    Result<HarnessStatus> status =
        failed ? Result<HarnessStatus>(*failed) : read_harness_status(status_path);
    for (HarnessCandidateStatus* candidate : measured) {
      const HarnessCandidateStatus* found = nullptr;
      if (status) {
        for (const HarnessCandidateStatus& entry : status->candidates) {
          if (entry.index == candidate->index && !entry.timing.is_null()) {
            found = &entry;
          }
        }
      }
      if (found != nullptr) {
        candidate->check = found->check;
        candidate->timing = found->timing;
        candidate->reference = found->reference;
        candidate->check_verdict = found->check_verdict;
        candidate->check_reason = found->check_reason;
        continue;
      }
      const std::string why =
          !status
              ? fmt::format("the truth's process outside ncu failed: {}", status.error().message)
          : status->problem_error
              ? fmt::format("the truth's process outside ncu could not load the problem: {}",
                            status->problem_error->message)
              : std::string("the truth's process outside ncu did not measure it");
      candidate->check = Json{{"verdict", "unchecked"}, {"reason", why}};
      candidate->timing = Json{{"error", why}};
      candidate->check_verdict = CheckVerdict::unchecked;
      candidate->check_reason = why;
    }
    return serving;
  }

  /// Waits until `truth` answered its last gate in `status_path`: true when it serves on
  /// (the status says "serving"), false when it ended, or was stopped after twice the round's
  /// `timeout` (then `failed` says so) or by a cancellation.
  static bool await_truth(TruthRun& truth, const fs::path& status_path,
                          std::chrono::seconds timeout, std::optional<Error>& failed) {
    const auto give_up = std::chrono::steady_clock::now() + 2 * timeout;
    while (true) {
      if (auto status = read_harness_status(status_path);
          status && status->sequence == truth.gates && status->phase == "done") {
        return status->serving;
      }
      if (truth.exited()) {
        return false;
      }
      if (cancellation_requested() || std::chrono::steady_clock::now() > give_up) {
        truth.control->stop.store(true);
        if (!cancellation_requested()) {
          failed = make_error(ErrorCategory::timeout,
                              fmt::format("the truth's process outside ncu did not answer within "
                                          "{} s",
                                          (2 * timeout).count()));
        }
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  /// The session under ncu, on a standby or cold.
  SessionOutcome run_profiled(const SessionRequest& request) {
    SessionOutcome outcome = run_profiled_once(request);
    remember_launches(request, outcome);
    return outcome;
  }

  SessionOutcome run_profiled_once(const SessionRequest& request) {
    // A standby's ncu replays every launch of the call: a call known to make many goes cold,
    // timed first (its standbys stay for other rounds).
    if (m_settings.standby_root.empty() || (single_candidate(request) && timeline_first(request))) {
      return run_cold(request);
    }
    const StandbyKey key = key_of(request);
    std::unique_ptr<Standby> standby = take_standby(request.gpu, key);
    if (request.prestart_next && !m_settings.keep_standbys && !cancellation_requested()) {
      start_standby(request, true);
    }
    // The next standbys start now, beside this session: their Python start and torch's import
    // need no lock, and their GPU work waits for the GPU's lock, which this round holds.
    if (m_settings.keep_standbys && !cancellation_requested()) {
      top_up_standbys(request, key);
    }
    std::optional<SessionOutcome> outcome;
    if (standby) {
      outcome = run_on_standby(*standby, request);
    }
    if (!outcome) {
      outcome = run_cold(request);
      outcome->standby = false;
      const std::lock_guard<std::mutex> hold(m_mutex);
      outcome->standby_unavailable = m_standby_unavailable;
    }
    standby.reset();
    const bool problem_ok = !outcome->harness || outcome->harness->problem_ok;
    if (!problem_ok) {
      drop_standbys(request.gpu); // they would find the same problem invalid
    }
    return std::move(*outcome);
  }

  std::chrono::duration<double> await_profiled_standby(const SessionRequest& request) {
    const auto started = std::chrono::steady_clock::now();
    if (m_settings.standby_root.empty()) {
      return std::chrono::duration<double>(0);
    }
    const StandbyKey key = key_of(request);
    // Waiting while none is ready and one of this key is starting.
    const auto starting = [&] {
      const std::lock_guard<std::mutex> hold(m_mutex);
      bool any_starting = false;
      for (const auto& standby : m_standbys[request.gpu]) {
        if (!(standby->key == key) || standby->exited()) {
          continue;
        }
        if (standby_ready(standby->status_file)) {
          return false;
        }
        any_starting = true;
      }
      return any_starting;
    };
    bool waited = false;
    while (starting() && !cancellation_requested()) {
      if (!waited) {
        // Candidates come back to back: keep a second standby in flight for this GPU from now
        // on, and start it now rather than at the hand-over, so that the next candidate finds
        // it further along.
        {
          const std::lock_guard<std::mutex> hold(m_mutex);
          m_depth[request.gpu] = k_max_standbys_per_gpu;
        }
        if (m_settings.keep_standbys) {
          top_up_standbys(request, key);
        }
        waited = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::chrono::steady_clock::now() - started;
  }

  /// The ncu argv for a session in `dir` running `script` with the plan in `dir` (making the
  /// session's empty section folder when it collects metrics only).
  std::vector<std::string> argv_for(const fs::path& dir, const fs::path& script,
                                    std::vector<std::string> launch_filters = {}) const {
    NcuCommand command;
    command.launch_filters = std::move(launch_filters);
    command.ncu = m_settings.ncu;
    command.metrics = m_settings.metrics;
    command.nvtx_include = nvtx_include_for_ranges();
    command.clock_control = m_settings.clock_control;
    command.log_file = dir / RoundLayout::k_ncu_log;
    command.source_counters = m_settings.source_counters;
    const fs::path no_sections = dir / RoundLayout::k_empty_section_folder;
    if (command.metrics.sections.empty() && !command.source_counters &&
        kprof::create_directories(no_sections)) {
      command.empty_section_folder = no_sections;
    }
    if (m_settings.keep_ncu_report || m_settings.source_counters) {
      command.report_file = dir / RoundLayout::k_ncu_report_base;
    }
    command.use_sudo = m_settings.use_sudo;
    command.preserve_env = preserved_env_names();
    command.target = {m_settings.python.string(), script.string(),
                      (dir / RoundLayout::k_plan).string()};
    return build_ncu_argv(command);
  }

  static ProcessSpec spec_for(const std::vector<std::string>& argv, const fs::path& dir,
                              const SessionRequest& request) {
    ProcessSpec spec;
    spec.argv = argv;
    spec.timeout = request.timeout;
    spec.cwd = dir;
    // The harness watches this process too (templates/kprof_harness/lifetime.py, die_with_owner):
    // ncu may run it under a process of its own that a `kill -9` of kprof does not reach.
    spec.env_set = {{"PYTHONUNBUFFERED", "1"},
                    {"PYTHONDONTWRITEBYTECODE", "1"},
                    {"KPROF_OWNER_PID", std::to_string(::getpid())}};
    if (!env_var("TRITON_CACHE_DIR")) {
      // One Triton cache for every round and output directory, so a kernel compiled once is
      // loaded from the cache afterwards; a TRITON_CACHE_DIR of the user's own wins, and one
      // another user could write is never given (kprof_triton_cache_dir).
      if (auto cache = kprof_triton_cache_dir(true)) {
        spec.env_set.emplace_back("TRITON_CACHE_DIR", cache->string());
      }
    }
    if (request.set_visible_devices) {
      // Index N of a process that sees only some GPUs (a Slurm task) is its N-th visible one.
      spec.env_set.emplace_back("CUDA_VISIBLE_DEVICES", visible_device(request.gpu));
      // ncu serializes whole sessions across its instances through a lock file in the temp
      // directory (TMPDIR/nvidia/nsight_compute/lock.*), so each GPU gets its own temp directory
      // and sessions on different GPUs overlap (kprof's GpuLock still serializes sessions on one
      // GPU). The replay passes of two processes still take turns below that (measured:
      // docs/device-runs/2026-11-30-two-gpus.md).
      // The directory is this user's own (0700, checked): under a shared /tmp another user
      // could otherwise make it first and plant what ncu reads there.
      const fs::path tmp =
          fs::temp_directory_path() / fmt::format("kprof-ncu-{}-gpu{}", ::geteuid(), request.gpu);
      (void)::mkdir(tmp.c_str(), 0700);
      struct stat info {};
      if (::lstat(tmp.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == ::geteuid() &&
          (info.st_mode & (S_IWGRP | S_IWOTH)) == 0) {
        spec.env_set.emplace_back("TMPDIR", tmp.string());
      }
    }
    return spec;
  }

  /// Today's path: a fresh harness under ncu for this session alone, with compile workers
  /// beside it when it compiles ahead.
  SessionOutcome run_cold(const SessionRequest& request) const {
    if (single_candidate(request) && !request.plan.standby_fifo) {
      if (timeline_first(request)) {
        return run_with_timeline(request, WithoutTimeline::go_on);
      }
      if (m_settings.launches == LaunchTiers::automatic) {
        // A problem that nothing here has profiled yet is timed first as well: on an H100 that
        // cost a single kernel's first round 0.2-1.7 s and saved a model's 16 s (the capped
        // session replays its first 34 launches before the call is known to be long;
        // docs/device-runs/2026-12-07.md). A problem known to make few launches is capped.
        if (!m_launch_memory.recall(request.plan.problem)) {
          return run_with_timeline(request, WithoutTimeline::capped);
        }
        return run_capped(request);
      }
    }
    return run_session(request);
  }

  static bool single_candidate(const SessionRequest& request) {
    const auto first = static_cast<std::size_t>(std::max(0, request.plan.first_candidate));
    return request.plan.candidates.size() == first + 1;
  }

  /// Whether a round of one candidate is timed outside ncu before its session (run_with_timeline):
  /// under `--launches many`, and under `auto` for a problem whose last call made many launches
  /// (a model in an agent's loop: its first round pays the capped session, the next ones not).
  bool timeline_first(const SessionRequest& request) const {
    return times_calls_first(request.plan.problem);
  }

  bool times_calls_first(const fs::path& problem) const override {
    if (m_settings.launches == LaunchTiers::many) {
      return true;
    }
    if (m_settings.launches != LaunchTiers::automatic) {
      return false;
    }
    return m_launch_memory.many(problem);
  }

  /// Remembers whether the call of a round of one candidate made more than
  /// k_two_tier_threshold launches (its timeline, else the launches ncu replayed).
  void remember_launches(const SessionRequest& request, const SessionOutcome& outcome) const {
    std::optional<bool> many;
    if (outcome.timeline) {
      many = needs_two_tiers(*outcome.timeline);
    } else if (outcome.capture && !outcome.capture->kernels.empty()) {
      // A standby's session replayed every launch; the primer may be among them.
      many = outcome.capture->kernels.size() > k_two_tier_threshold + 1;
    }
    if (single_candidate(request) && many) {
      m_launch_memory.remember(request.plan.problem, *many,
                               outcome.replay_plan ? replay_filter_args(*outcome.replay_plan)
                                                   : std::vector<std::string>{});
    }
  }

  /// One session under ncu over a fresh harness (with compile workers beside it when it compiles
  /// ahead): the stale status and log removed, the plan written, ncu run with `launch_filters`,
  /// its outcome. With `planned` replays, progress lines while it runs (ReplayProgress).
  SessionOutcome run_session(const SessionRequest& request,
                             std::vector<std::string> launch_filters = {}, std::size_t planned = 0,
                             std::chrono::steady_clock::time_point started = {}) const {
    const fs::path& dir = request.work_dir;
    std::error_code ignored;
    fs::remove(request.plan.status_file, ignored);
    fs::remove(dir / RoundLayout::k_ncu_log, ignored);
    std::vector<std::string> argv = argv_for(dir, request.script, std::move(launch_filters));
    CompileWorkers workers;
    if (auto plan = write_plan(request, workers, PlanReaders::harness_and_workers); !plan) {
      return unstarted_session(std::move(argv), plan.error());
    }
    Result<ProcessResult> process = [&] {
      std::optional<ReplayProgress> watch;
      if (planned > 0) {
        watch.emplace(planned, started, m_settings.on_progress);
      }
      return run_process(spec_for(argv, dir, request));
    }();
    workers.stop();
    if (!process) {
      return unstarted_session(std::move(argv), process.error());
    }
    return finish(dir, request.plan.status_file, std::move(argv), std::move(process).value());
  }

  /// The harness's timeline mode over the session's plan, writing `out` (outside ncu).
  ProcessSpec timeline_spec(const SessionRequest& request, const fs::path& out) const {
    ProcessSpec spec =
        spec_for({m_settings.python.string(), request.script.string(),
                  (request.work_dir / RoundLayout::k_plan).string(), "--timeline", out.string()},
                 request.work_dir, request);
    spec.max_captured_bytes = 64U << 10U;
    return spec;
  }

  /// `--launches auto` (docs/harness.md, "Many launches"): the session runs as run_cold's, but
  /// ncu stops replaying at k_auto_launch_cap launches (--launch-count), so a call of few
  /// launches is answered exactly as under `all`, at no extra cost. A call that reaches the cap
  /// makes more launches than one session should replay: its timeline is then made outside ncu
  /// (the GPU to itself, after the session) and the plan's representatives replayed in a second
  /// session. When the timeline cannot be made, the capped session's rows stand, and the
  /// candidate's metadata says that they are the call's first launches only.
  SessionOutcome run_capped(const SessionRequest& request) const {
    const fs::path timeline_path = request.work_dir / RoundLayout::k_timeline;
    std::error_code ignored;
    fs::remove(timeline_path, ignored);
    const auto started = std::chrono::steady_clock::now();
    SessionOutcome capped =
        run_session(request, {"--launch-count", std::to_string(k_auto_launch_cap)});
    if (!capped.capture || capped.capture->kernels.size() < k_auto_launch_cap ||
        cancellation_requested()) {
      return capped;
    }
    progress(fmt::format(
        "the call went on past {} replayed launches: timing every launch "
        "outside ncu, then replaying representatives ({:.1f} s)",
        k_auto_launch_cap,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()));
    Result<Timeline> timeline =
        read_timeline(timeline_path, run_process(timeline_spec(request, timeline_path)));
    if (!timeline || cancellation_requested()) {
      if (!timeline) {
        keep_timeline(capped, timeline.error().with_context(fmt::format(
                                  "ncu replayed only the call's first {} launches (--launches "
                                  "auto stops there to time the call first), and the timeline "
                                  "could not be made",
                                  k_auto_launch_cap)));
      }
      return capped;
    }
    return replay_representatives(request, std::move(timeline).value(), started);
  }

  /// The second tier: a session that replays only the plan's representatives of `timeline`,
  /// with progress lines, holding the timeline and the plan.
  SessionOutcome replay_representatives(const SessionRequest& request, Timeline timeline,
                                        std::chrono::steady_clock::time_point started) const {
    ReplayPlan replay = plan_replays(timeline, m_settings.budget);
    progress(plan_line(timeline, replay, started));
    SessionOutcome outcome =
        run_session(request, replay_filter_args(replay), replay.planned, started);
    outcome.timeline = std::move(timeline);
    outcome.replay_plan = std::move(replay);
    return outcome;
  }

  /// `--launches many` (issue 42, docs/harness.md): the session starts as run_cold's, gated before
  /// its profiled call, while the harness's timeline mode times every launch of the call outside
  /// ncu. A call of k_two_tier_threshold launches or fewer lets the session go on (every launch
  /// replayed, as without the timeline, and no later); a longer one stops it and replays only
  /// the plan's representatives in a second session. The gated session starts with launch
  /// filters when a plan can be guessed (gated_filters: the problem's last round's, or one launch
  /// per configuration under `many`): when the timeline's plan asks the same, that session goes
  /// on and no second one starts (a model's session start and warm-up, about 5 s, beside the
  /// timeline instead of after it); a call of few launches goes on only when the filters replay
  /// each of them (replays_every_launch).
  /// With WithoutTimeline::capped (a problem nothing is known of), a timeline that could not be
  /// made stops the gated session, whose ncu has no cap, and the call is capped instead
  /// (run_capped): a model's call is never replayed whole because its timeline failed.
  SessionOutcome run_with_timeline(const SessionRequest& request,
                                   WithoutTimeline without_timeline) const {
    const fs::path& dir = request.work_dir;
    const fs::path timeline_path = dir / RoundLayout::k_timeline;
    const fs::path gate = dir / RoundLayout::k_timeline_gate;
    std::error_code ignored;
    for (const fs::path& stale :
         {request.plan.status_file, dir / RoundLayout::k_ncu_log, timeline_path, gate}) {
      fs::remove(stale, ignored);
    }
    SessionRequest gated = request;
    gated.plan.timeline_gate = gate;
    gated.plan.timeline_gate_max_wait_seconds = static_cast<double>(request.timeout.count());
    const std::vector<std::string> expected = gated_filters(request);
    std::vector<std::string> argv = argv_for(dir, request.script, expected);
    CompileWorkers workers; // a session of one candidate has none
    if (auto plan = write_plan(gated, workers, PlanReaders::harness_and_workers); !plan) {
      return unstarted_session(std::move(argv), plan.error());
    }
    const auto started = std::chrono::steady_clock::now();
    auto timeline_done =
        std::async(std::launch::async,
                   [spec = timeline_spec(request, timeline_path)] { return run_process(spec); });
    ProcessSpec gated_spec = spec_for(argv, dir, request);
    gated_spec.control = std::make_shared<ProcessControl>();
    auto gated_done =
        std::async(std::launch::async, [gated_spec] { return run_process(gated_spec); });
    const auto stop_gated = [&] {
      gated_spec.control->stop.store(true);
      (void)gated_done.get();
    };
    // The gated session goes on: its outcome, with the timeline (and the plan it replays).
    const auto go_on = [&](Result<Timeline> timeline, std::optional<ReplayPlan> replay) {
      if (auto opened = write_file_atomic(gate, "go on\n"); !opened) {
        gated_spec.control->stop.store(true); // a harness never let go would wait its limit
      }
      auto process = [&] {
        std::optional<ReplayProgress> watch;
        if (replay) {
          watch.emplace(replay->planned, started, m_settings.on_progress);
        }
        return gated_done.get();
      }();
      SessionOutcome outcome = process ? finish(dir, request.plan.status_file, std::move(argv),
                                                std::move(process).value())
                                       : unstarted_session(std::move(argv), process.error());
      keep_timeline(outcome, std::move(timeline));
      outcome.replay_plan = std::move(replay);
      return outcome;
    };

    Result<Timeline> timeline = read_timeline(timeline_path, timeline_done.get());
    if (!timeline && without_timeline == WithoutTimeline::capped && !cancellation_requested()) {
      stop_gated();
      return run_capped(request);
    }
    if (!timeline || !needs_two_tiers(*timeline) || cancellation_requested()) {
      if (expected.empty() || cancellation_requested() ||
          (timeline && replays_every_launch(*timeline, expected))) {
        return go_on(std::move(timeline), std::nullopt);
      }
      // Its filters would replay only some launches of a call that every launch of is wanted
      // now (or whose timeline failed): a session without them.
      stop_gated();
      SessionOutcome outcome = run_session(request);
      keep_timeline(outcome, std::move(timeline));
      return outcome;
    }
    ReplayPlan replay = plan_replays(*timeline, m_settings.budget);
    if (!expected.empty() && replay_filter_args(replay) == expected) {
      progress(plan_line(*timeline, replay, started) +
               "; the session started beside the timeline with these filters goes on");
      return go_on(std::move(timeline), std::move(replay));
    }
    stop_gated();
    return replay_representatives(request, std::move(timeline).value(), started);
  }

  /// The launch filters run_with_timeline's gated session starts with: those of the problem's
  /// last round of representatives (LaunchMemory::filter), else under `--launches many` (a
  /// model) one launch per configuration, the plan of every call whose configurations fit the
  /// budget (the LSTM's 6 of 6,244 launches); else none (every launch, for a call of few).
  std::vector<std::string> gated_filters(const SessionRequest& request) const {
    std::vector<std::string> remembered = m_launch_memory.filter(request.plan.problem);
    if (!remembered.empty() || m_settings.launches != LaunchTiers::many) {
      return remembered;
    }
    ReplayPlan every_configuration;
    every_configuration.per_shape = std::max<std::size_t>(1, m_settings.budget.per_shape);
    return replay_filter_args(every_configuration);
  }

  /// Whether a session with `filters` replays every launch of `timeline`'s call (a call of few
  /// launches, each its own configuration): its answer is then the unfiltered session's.
  bool replays_every_launch(const Timeline& timeline,
                            const std::vector<std::string>& filters) const {
    const ReplayPlan plan = plan_replays(timeline, m_settings.budget);
    return plan.planned == timeline.launches.size() && replay_filter_args(plan) == filters;
  }

  /// The timeline the harness wrote at `path`, or why there is none.
  static Result<Timeline> read_timeline(const fs::path& path,
                                        const Result<ProcessResult>& process) {
    if (!process) {
      return process.error();
    }
    auto text = read_file(path);
    if (!text) {
      return make_error(ErrorCategory::program_crashed,
                        fmt::format("the timeline process wrote no {} (exit code {}): {}",
                                    path.filename().string(), process->exit_code,
                                    last_line(process->err)));
    }
    return parse_timeline(*text, path.string());
  }

  static std::string last_line(const std::string& text) {
    const auto end = text.find_last_not_of('\n');
    if (end == std::string::npos) {
      return "no output";
    }
    const auto newline = text.rfind('\n', end);
    const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
    return text.substr(start, end - start + 1);
  }

  static void keep_timeline(SessionOutcome& outcome, Result<Timeline> timeline) {
    if (timeline) {
      outcome.timeline = std::move(timeline).value();
    } else {
      outcome.timeline_error = timeline.error();
    }
  }

  void progress(const std::string& line) const {
    if (m_settings.on_progress) {
      m_settings.on_progress(line);
    }
  }

  /// The directory where a session's harness and compile workers meet, made empty and private,
  /// when this session compiles ahead: asked for (NcuSessionSettings::compile_ahead, on by
  /// default: measured on the H200, docs/device-runs/2026-12-05-compile-workers.md, 32 new
  /// candidates took 18.52 and 18.89 s with it, 23.00 and 22.93 s without), more than one
  /// candidate, and the harness run as this user (not under sudo, where the workers' cache would
  /// not be the harness's).
  std::optional<fs::path> compile_ahead_dir(const SessionRequest& request) const {
    const auto first = static_cast<std::size_t>(std::max(0, request.plan.first_candidate));
    if (!m_settings.compile_ahead || m_settings.use_sudo ||
        request.plan.candidates.size() < first + 2) {
      return std::nullopt;
    }
    const fs::path dir = request.work_dir / RoundLayout::k_compile_ahead;
    std::error_code ignored;
    fs::remove_all(dir, ignored); // the claims of an earlier attempt of this session
    if (!private_directory(dir, true)) {
      return std::nullopt;
    }
    return dir;
  }

  /// Who reads the plan file write_plan writes: the session's harness and its compile workers,
  /// or the workers only (a standby's harness gets its plan in its message).
  enum class PlanReaders { harness_and_workers, workers_only };

  /// Writes the session's plan (the request's, with its compile-ahead directory when it
  /// compiles ahead) into its directory, unless only workers would read it and there are none,
  /// and starts the compile workers that read it: the session's harness script in its worker
  /// mode, with the harness's environment (Triton's cache, kprof's pid) but no GPU, and not
  /// under ncu. The plan, or why it could not be written.
  Result<HarnessPlan> write_plan(const SessionRequest& request, CompileWorkers& workers,
                                 PlanReaders readers) const {
    HarnessPlan plan = request.plan;
    plan.compile_ahead_dir = compile_ahead_dir(request);
    if (!plan.compile_ahead_dir && readers == PlanReaders::workers_only) {
      return plan;
    }
    const fs::path plan_path = request.work_dir / RoundLayout::k_plan;
    if (auto written = write_file_atomic(plan_path, plan_to_json(plan)); !written) {
      return written.error();
    }
    if (!plan.compile_ahead_dir) {
      return plan;
    }
    ProcessSpec spec = spec_for({m_settings.python.string(), request.script.string(),
                                 plan_path.string(), "--compile-worker"},
                                request.work_dir, request);
    std::erase_if(spec.env_set,
                  [](const auto& entry) { return entry.first == "CUDA_VISIBLE_DEVICES"; });
    spec.env_set.emplace_back("CUDA_VISIBLE_DEVICES", "");
    // Read by nobody: a worker's outcomes are in the harness's status.
    spec.max_captured_bytes = 64U << 10U;
    const auto later = plan.candidates.size() - static_cast<std::size_t>(plan.first_candidate);
    for (int i = compile_worker_count(later, std::thread::hardware_concurrency()); i > 0; --i) {
      workers.start(spec);
    }
    return plan;
  }

  /// Reads what a session left in `dir` and judges it; exports the source page when asked.
  SessionOutcome finish(const fs::path& dir, const fs::path& status_file,
                        std::vector<std::string> argv, ProcessResult process) const {
    std::string log_text;
    if (auto log = read_file(dir / RoundLayout::k_ncu_log)) {
      log_text = std::move(log).value();
    }
    std::optional<HarnessStatus> harness;
    if (auto status = read_harness_status(status_file)) {
      harness = std::move(status).value();
    }
    if (!m_settings.source_counters) {
      return assess_session(std::move(argv), std::move(process), std::move(log_text),
                            std::move(harness));
    }
    // The log holds the source page; the rows are in the report (NcuCommand::source_counters).
    const auto started = std::chrono::steady_clock::now();
    const fs::path report = dir / RoundLayout::k_ncu_report;
    Result<Capture> rows = kept_rows(dir, report);
    SessionOutcome outcome =
        assess_source_session(std::move(argv), std::move(process), std::move(log_text),
                              std::move(harness), std::move(rows), RoundLayout::k_ncu_log);
    outcome.rows_file = RoundLayout::k_rows_page;
    if (outcome.source_page) {
      // The round keeps the page where `kprof report --source` and the report's metadata say.
      if (auto written = write_file_atomic(dir / RoundLayout::k_source_page, outcome.log_text);
          !written) {
        outcome.source_error = written.error();
        outcome.source_page.reset();
      }
    }
    outcome.source_export_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return outcome;
  }

  /// The rows of a session with source counters, imported from its `report` and kept in `dir`
  /// (RoundLayout::k_rows_page), so that its reports can be analysed again without ncu.
  /// no_kernels when ncu wrote no report; a page that cannot be kept fails the rows, since a
  /// round must hold what its reports were built from.
  Result<Capture> kept_rows(const fs::path& dir, const fs::path& report) const {
    std::error_code ec;
    if (!fs::is_regular_file(report, ec)) {
      return make_error(ErrorCategory::no_kernels,
                        fmt::format("ncu wrote no report {}", report.string()));
    }
    auto text = export_rows(m_settings.ncu, report, rows_page(m_settings.metrics));
    if (!text) {
      return std::move(text).error();
    }
    if (auto written = write_file_atomic(dir / RoundLayout::k_rows_page, *text); !written) {
      return written.error();
    }
    return parse_ncu_csv(*text, {}, report.string());
  }

  /// Hands the request's candidates to `standby` and waits for its session; its files move into
  /// request.work_dir. nullopt when the standby died before taking them (run cold instead).
  std::optional<SessionOutcome> run_on_standby(Standby& standby,
                                               const SessionRequest& request) const {
    // The compile workers read the plan from the session's directory (the standby's files
    // replace it after the session, and it is written again); unwritten, none compile ahead.
    CompileWorkers workers;
    auto written = write_plan(request, workers, PlanReaders::workers_only);
    const HarnessPlan plan = written ? std::move(written).value() : request.plan;
    if (!deliver(standby, standby_message(plan))) {
      return std::nullopt;
    }
    const auto deadline = std::chrono::steady_clock::now() + request.timeout;
    standby.control->deadline_timeout_ms.store(
        std::chrono::duration_cast<std::chrono::milliseconds>(request.timeout).count());
    standby.control->deadline_ns.store(
        std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count());
    const auto handed_over = std::chrono::steady_clock::now();
    Result<ProcessResult> process = standby.done.get();
    workers.stop();
    if (process) {
      // A standby's session counts from the hand-over; the waiting before it was free.
      process->wall = std::chrono::steady_clock::now() - handed_over;
    }
    std::vector<std::string> argv = standby.argv;
    for (std::string& word : argv) { // the files now live in the session's directory
      if (word.starts_with(standby.dir.string())) {
        word = request.work_dir.string() + word.substr(standby.dir.string().size());
      }
    }
    if (!process) {
      return unstarted_session(std::move(argv), process.error());
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(standby.dir, ec)) {
      if (entry.path() != standby.fifo) {
        fs::rename(entry.path(), request.work_dir / entry.path().filename(), ec);
      }
    }
    // The record of what ran: the request's plan (the standby's own plan had no candidates).
    (void)write_file_atomic(request.work_dir / RoundLayout::k_plan, plan_to_json(plan));
    const fs::path status_file = request.work_dir / RoundLayout::k_status;
    SessionOutcome outcome =
        finish(request.work_dir, status_file, std::move(argv), std::move(process).value());
    outcome.standby = true;
    return outcome;
  }

  /// Writes the candidates into the standby's FIFO once its harness reads it. False when the
  /// standby exited first or was not ready within its own setup time.
  static bool deliver(Standby& standby, const std::string& message) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (std::chrono::steady_clock::now() < give_up && !cancellation_requested()) {
      if (standby.exited()) {
        return false;
      }
      UniqueFd fd(::open(standby.fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
      if (fd) {
        std::size_t written = 0;
        while (written < message.size()) {
          const ssize_t n = ::write(fd.get(), message.data() + written, message.size() - written);
          if (n < 0 && errno != EINTR && errno != EAGAIN) {
            return false;
          }
          written += n > 0 ? static_cast<std::size_t>(n) : 0;
        }
        return true;
      }
      if (errno != ENXIO) { // ENXIO: the harness has not opened it yet
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  /// Starts the next standby for requests like `request` (same problem, settings and GPU);
  /// `deferred`: it makes its inputs only once it takes over, so it needs no GPU lock to start.
  void start_standby(const SessionRequest& request, bool deferred) {
    auto standby = std::make_unique<Standby>();
    standby->key = key_of(request);
    standby->deferred = deferred;
    const int number = m_started.fetch_add(1);
    standby->dir = m_settings.standby_root /
                   fmt::format("{}-gpu{}-{}", static_cast<long>(::getpid()), request.gpu, number);
    standby->fifo = standby->dir / "candidates.fifo";
    // A standby runs the harness and the candidates its FIFO names: its directory must be one no
    // other user can write or swap (an --out shared like /tmp, where another user made .standby
    // first, would otherwise let them plant the script or the FIFO). Without one, no standby:
    // the rounds run cold.
    const auto made = private_directory(standby->dir, true);
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      m_standby_unavailable = made ? std::string() : made.error().message;
    }
    if (!made) {
      return;
    }
    if (::mkfifo(standby->fifo.c_str(), 0600) != 0) {
      return;
    }
    const fs::path script = standby->dir / RoundLayout::k_harness_script;
    if (!write_harness_script(script)) {
      return;
    }
    HarnessPlan plan = request.plan;
    plan.candidates.clear();
    plan.first_candidate = 0;
    plan.status_file = standby->dir / RoundLayout::k_status;
    plan.standby_fifo = standby->fifo;
    plan.standby_idle_seconds = m_settings.standby_idle_seconds;
    plan.standby_defer_inputs = deferred;
    plan.standby_primer = !deferred;
    if (!deferred) {
      if (!GpuLock::prepare_dir(m_settings.lock_dir, request.gpu)) {
        return;
      }
      plan.standby_gpu_lock = GpuLock::file_of(m_settings.lock_dir, request.gpu);
    }
    if (!write_file_atomic(standby->dir / RoundLayout::k_plan, plan_to_json(plan))) {
      return;
    }
    standby->argv = argv_for(standby->dir, script);
    ProcessSpec spec = spec_for(standby->argv, standby->dir, request);
    // Until the candidates arrive the harness keeps its own idle limit; the session's timeout
    // starts at the hand-over (ProcessControl::deadline_ns).
    spec.timeout = std::chrono::seconds(m_settings.standby_idle_seconds + 600);
    spec.control = standby->control;
    standby->status_file = plan.status_file;
    // Not ready within the time this session may take, it is stopped (run_standby): a harness
    // that never starts (a hung ncu) cannot keep the next request waiting.
    standby->done =
        std::async(std::launch::async, [spec, status = plan.status_file,
                                        limit = std::chrono::milliseconds(request.timeout)] {
          return run_standby(spec, status, limit);
        });
    const std::lock_guard<std::mutex> hold(m_mutex);
    m_standbys[request.gpu].push_back(std::move(standby));
  }

  /// Starts standbys for requests like `request` until this GPU has as many live ones of its key
  /// as its depth (1; k_max_standbys_per_gpu once candidates came back to back). Standbys of
  /// another key or that ended are dropped first.
  void top_up_standbys(const SessionRequest& request, const StandbyKey& key) {
    int missing = 0;
    std::vector<std::unique_ptr<Standby>> dropped; // stop in their destructors, after the mutex
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      auto& list = m_standbys[request.gpu];
      for (auto it = list.begin(); it != list.end();) {
        if (!((*it)->key == key) || (*it)->exited()) {
          dropped.push_back(std::move(*it));
          it = list.erase(it);
        } else {
          ++it;
        }
      }
      const auto depth = m_depth.find(request.gpu);
      missing = (depth == m_depth.end() ? 1 : depth->second) - static_cast<int>(list.size());
    }
    for (int i = 0; i < missing; ++i) {
      start_standby(request, false);
    }
  }

  /// Stops every standby of `gpu`.
  void drop_standbys(int gpu) {
    std::vector<std::unique_ptr<Standby>> dropped;
    const std::lock_guard<std::mutex> hold(m_mutex);
    dropped.swap(m_standbys[gpu]);
  }

  std::unique_ptr<Standby> take_standby(int gpu, const StandbyKey& key) {
    std::unique_ptr<Standby> standby;
    std::vector<std::unique_ptr<Standby>> dropped; // stop in their destructors, after the mutex
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      auto& list = m_standbys[gpu];
      // Of this key: the first that is ready; else the first deferred one, which needs no lock
      // to get ready. Of another key, or ended: dropped.
      for (auto it = list.begin(); it != list.end();) {
        Standby& candidate = **it;
        if (!(candidate.key == key) || candidate.exited()) {
          dropped.push_back(std::move(*it));
          it = list.erase(it);
          continue;
        }
        if (!standby && (standby_ready(candidate.status_file) || candidate.deferred)) {
          standby = std::move(*it);
          it = list.erase(it);
          continue;
        }
        ++it;
      }
    }
    if (!standby) {
      return nullptr;
    }
    // A deferred standby: wait for it (it started with the session that just ended, so most of
    // its start is behind it). Its setup limit bounds the wait: past it run_standby stops the
    // process, which then exits within the kill grace.
    while (standby->deferred && !standby->exited() && !standby_ready(standby->status_file) &&
           !cancellation_requested()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Usable only once it waits: the caller holds the GPU's lock, which a standby that is still
    // starting would need for its GPU work.
    if (standby->exited() || !standby_ready(standby->status_file)) {
      return nullptr;
    }
    return standby;
  }

  /// Standby directories of kprof processes that are gone (a kill -9 leaves them), in a standby
  /// root no other user can write (else a name of theirs could lead the removal elsewhere), and
  /// only this user's own.
  void remove_dead_standbys() const {
    if (!private_directory(m_settings.standby_root, false)) {
      return;
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(m_settings.standby_root, ec)) {
      const std::string name = entry.path().filename().string();
      const long pid = std::strtol(name.c_str(), nullptr, 10);
      if (!process_alive(pid) && is_own_directory(entry.path())) {
        std::error_code ignored;
        fs::remove_all(entry.path(), ignored);
      }
    }
  }

  NcuSessionSettings m_settings;
  std::mutex m_mutex;
  std::map<int, std::vector<std::unique_ptr<Standby>>> m_standbys; ///< per GPU, oldest first
  /// Per GPU, the truth process kept ready for the next round (keep_standbys; m_mutex).
  std::map<int, std::unique_ptr<TruthRun>> m_truth_standbys;
  std::map<int, int> m_depth; ///< standbys kept per GPU when not 1 (await_standby)
  std::atomic<int> m_started{0};
  /// Why the last standby could not be made, empty once one could (m_mutex).
  std::string m_standby_unavailable;
  /// Whether each problem's last call of one candidate made more than k_two_tier_threshold
  /// launches (remember_launches): under `--launches auto` their next round is timed first,
  /// never capped nor on a standby (whose ncu replays every launch).
  LaunchMemory m_launch_memory;
};

} // namespace

namespace {

/// A session that ran: its argv, process, log and harness status, not yet read.
SessionOutcome finished_session(std::vector<std::string> argv, ProcessResult process,
                                std::string log_text, std::optional<HarnessStatus> harness) {
  SessionOutcome outcome;
  outcome.argv = std::move(argv);
  outcome.started = true;
  outcome.process = std::move(process);
  outcome.log_text = std::move(log_text);
  outcome.harness = std::move(harness);
  return outcome;
}

} // namespace

SessionOutcome assess_session(std::vector<std::string> argv, ProcessResult process,
                              std::string log_text, std::optional<HarnessStatus> harness) {
  SessionOutcome outcome = finished_session(std::move(argv), std::move(process),
                                            std::move(log_text), std::move(harness));
  auto capture = parse_ncu_csv(outcome.log_text, {}, RoundLayout::k_ncu_log);
  if (capture) {
    outcome.capture = std::move(capture).value();
  } else {
    outcome.capture_error = std::move(capture).error();
  }
  // classify_ncu_run reads ncu's console output too: it prints some failures (bad options,
  // permission) there, not to the log.
  outcome.verdict =
      classify_ncu_run(outcome.process, outcome.log_text, outcome.capture.has_value());
  return outcome;
}

SessionOutcome assess_source_session(std::vector<std::string> argv, ProcessResult process,
                                     std::string log_text, std::optional<HarnessStatus> harness,
                                     Result<Capture> rows, std::string_view log_origin) {
  SessionOutcome outcome = finished_session(std::move(argv), std::move(process),
                                            std::move(log_text), std::move(harness));
  std::size_t launches = 0;
  if (rows) {
    outcome.capture = std::move(rows).value();
    launches = outcome.capture->kernels.size();
  } else {
    outcome.capture_error = std::move(rows).error();
  }
  outcome.verdict = classify_ncu_run_rows_imported(outcome.process, outcome.log_text, launches);
  // Rows that were there but could not be imported are that failure, not "no kernel".
  const bool lost_rows =
      outcome.capture_error && outcome.capture_error->category != ErrorCategory::no_kernels;
  if (lost_rows &&
      (!outcome.verdict.error || outcome.verdict.error->category == ErrorCategory::no_kernels)) {
    outcome.verdict.error =
        make_error(ErrorCategory::ncu_failed,
                   fmt::format("the profiled rows could not be read from ncu's report: {}",
                               outcome.capture_error->message),
                   outcome.capture_error->detail);
  }
  if (outcome.capture) {
    auto page = parse_source_page(outcome.log_text, log_origin);
    if (page) {
      outcome.source_page = std::move(page).value();
    } else {
      outcome.source_error = std::move(page).error();
    }
  }
  return outcome;
}

SessionOutcome unstarted_session(std::vector<std::string> argv, Error error) {
  SessionOutcome outcome;
  outcome.argv = std::move(argv);
  outcome.spawn_error = std::move(error);
  return outcome;
}

std::shared_ptr<SessionRunner> make_ncu_session_runner(NcuSessionSettings settings) {
  return std::make_shared<NcuSessionRunner>(std::move(settings));
}

int compile_worker_count(std::size_t later, unsigned cpus) {
  const auto spare = static_cast<std::size_t>(cpus > 2 ? cpus - 2 : 0);
  const std::size_t count =
      std::min({later, static_cast<std::size_t>(k_max_compile_workers), spare});
  return static_cast<int>(std::max<std::size_t>(1, count));
}

} // namespace kprof

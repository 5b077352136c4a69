// The real SessionRunner: one ncu process over one harness process, in the session's directory.
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/profile_session.hpp"
#include "kprof/round_layout.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

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

std::vector<std::string> preserved_env_names() {
  return {"PATH",         "LD_LIBRARY_PATH",   "CUDA_VISIBLE_DEVICES",
          "PYTHONPATH",   "TRITON_CACHE_DIR",  "TORCH_EXTENSIONS_DIR",
          "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "VIRTUAL_ENV",
          "HOME",         "PYTHONUNBUFFERED",  "PYTHONDONTWRITEBYTECODE",
          "CUDA_HOME",    "KPROF_OWNER_PID"};
}

class NcuSessionRunner final : public SessionRunner {
public:
  explicit NcuSessionRunner(NcuSessionSettings settings) : m_settings(std::move(settings)) {}

  SessionOutcome run(const SessionRequest& request) override {
    const fs::path plan_path = request.work_dir / RoundLayout::k_plan;
    const fs::path log_path = request.work_dir / RoundLayout::k_ncu_log;
    std::error_code ignored;
    fs::remove(request.plan.status_file, ignored);
    fs::remove(log_path, ignored);

    NcuCommand command;
    command.ncu = m_settings.ncu;
    command.metrics = m_settings.metrics;
    command.nvtx_include = nvtx_include_for_ranges();
    command.clock_control = m_settings.clock_control;
    command.log_file = log_path;
    if (m_settings.keep_ncu_report) {
      command.report_file = request.work_dir / RoundLayout::k_ncu_report_base;
    }
    command.use_sudo = m_settings.use_sudo;
    command.preserve_env = preserved_env_names();
    command.target = {m_settings.python.string(), request.script.string(), plan_path.string()};
    std::vector<std::string> argv = build_ncu_argv(command);

    if (auto written = write_file_atomic(plan_path, plan_to_json(request.plan)); !written) {
      return unstarted_session(std::move(argv), written.error());
    }
    ProcessSpec spec;
    spec.argv = argv;
    spec.timeout = request.timeout;
    spec.cwd = request.work_dir;
    // The harness watches this process too (templates/harness.py, die_with_owner): ncu may run
    // it under a process of its own that a `kill -9` of kprof does not reach.
    spec.env_set = {{"PYTHONUNBUFFERED", "1"},
                    {"PYTHONDONTWRITEBYTECODE", "1"},
                    {"KPROF_OWNER_PID", std::to_string(::getpid())}};
    if (!env_var("TRITON_CACHE_DIR")) {
      // One Triton cache for every round and output directory, so a kernel compiled once is
      // loaded from the cache afterwards; a TRITON_CACHE_DIR of the user's own wins.
      spec.env_set.emplace_back("TRITON_CACHE_DIR", triton_cache_dir().string());
    }
    if (request.set_visible_devices) {
      spec.env_set.emplace_back("CUDA_VISIBLE_DEVICES", std::to_string(request.gpu));
      // ncu serializes profiling across all its instances on a machine through a lock file in
      // the temp directory. Sessions on different GPUs need not wait for each other, so each GPU
      // gets its own temp directory (kprof's GpuLock still serializes sessions on one GPU).
      const fs::path tmp = fs::temp_directory_path() / fmt::format("kprof-ncu-gpu{}", request.gpu);
      std::error_code made;
      fs::create_directories(tmp, made);
      if (!made) {
        spec.env_set.emplace_back("TMPDIR", tmp.string());
      }
    }
    auto process = run_process(spec);
    if (!process) {
      return unstarted_session(std::move(argv), process.error());
    }
    std::string log_text;
    if (auto log = read_file(log_path)) {
      log_text = std::move(log).value();
    }
    std::optional<HarnessStatus> harness;
    if (auto status = read_harness_status(request.plan.status_file)) {
      harness = std::move(status).value();
    }
    return assess_session(std::move(argv), std::move(process).value(), std::move(log_text),
                          std::move(harness));
  }

private:
  NcuSessionSettings m_settings;
};

} // namespace

SessionOutcome assess_session(std::vector<std::string> argv, ProcessResult process,
                              std::string log_text, std::optional<HarnessStatus> harness) {
  SessionOutcome outcome;
  outcome.argv = std::move(argv);
  outcome.started = true;
  outcome.process = std::move(process);
  outcome.log_text = std::move(log_text);
  outcome.harness = std::move(harness);
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

SessionOutcome unstarted_session(std::vector<std::string> argv, Error error) {
  SessionOutcome outcome;
  outcome.argv = std::move(argv);
  outcome.spawn_error = std::move(error);
  return outcome;
}

std::shared_ptr<SessionRunner> make_ncu_session_runner(NcuSessionSettings settings) {
  return std::make_shared<NcuSessionRunner>(std::move(settings));
}

} // namespace kprof

// kprof doctor: can profiling work on this machine? Each check runs a real command.
#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/process.hpp"
#include "kprof/profiler.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

std::string first_line(std::string_view text) {
  const auto end = text.find('\n');
  return std::string(text.substr(0, end));
}

DoctorCheck failed(std::string name, Error error) {
  DoctorCheck check;
  check.name = std::move(name);
  check.ok = false;
  check.detail = error.message;
  check.error = std::move(error);
  return check;
}

// A few lines of Python that launch one tiny CUDA kernel inside the range kprof profiles.
constexpr std::string_view k_probe_script = R"(import torch
x = torch.ones(1024, device="cuda")
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("kprof:cand0")
y = x * 2
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
)";

/// The python check: found (--python, else KPROF_PYTHON, else python3 on PATH) and runs as
/// Python; the executable when it does.
std::optional<fs::path> check_python(const std::optional<fs::path>& python_path,
                                     std::vector<DoctorCheck>& checks) {
  auto python = find_python(python_path);
  if (!python) {
    checks.push_back(failed("python", std::move(python).error()));
    return std::nullopt;
  }
  ProcessSpec spec;
  spec.argv = {python->string(), "-c", "import sys; print(sys.version.split()[0])"};
  spec.timeout = std::chrono::seconds(30);
  auto ran = run_process(spec);
  if (!ran || !ran->succeeded()) {
    checks.push_back(
        failed("python", make_error(ErrorCategory::input_not_found,
                                    fmt::format("{} does not run as python ({})", python->string(),
                                                ran ? ran->describe() : ran.error().message),
                                    ran ? ran->err : std::string())));
    return std::nullopt;
  }
  checks.push_back(
      {"python", true, fmt::format("{} {}", python->string(), first_line(ran->out)), std::nullopt});
  return *python;
}

/// The gpu check: nvidia-smi -L lists the GPUs without needing Python.
DoctorCheck check_gpus() {
  auto smi = find_executable("nvidia-smi");
  if (!smi) {
    return failed("gpu", make_error(ErrorCategory::ncu_failed,
                                    "nvidia-smi not found: no NVIDIA driver on this machine"));
  }
  ProcessSpec spec;
  spec.argv = {smi->string(), "-L"};
  spec.timeout = std::chrono::seconds(20);
  auto listed = run_process(spec);
  if (listed && listed->succeeded() && listed->out.find("GPU ") != std::string::npos) {
    std::size_t count = 0;
    for (std::size_t pos = 0; (pos = listed->out.find("GPU ", pos)) != std::string::npos; ++pos) {
      ++count;
    }
    return {"gpu", true, fmt::format("{} visible: {}", count, first_line(listed->out)),
            std::nullopt};
  }
  return failed("gpu", make_error(ErrorCategory::ncu_failed, "nvidia-smi found no GPU",
                                  listed ? listed->err : listed.error().message));
}

} // namespace

std::vector<DoctorCheck> run_doctor(const std::optional<fs::path>& ncu_path,
                                    const std::optional<fs::path>& python_path,
                                    ClockControl clock_control) {
  std::vector<DoctorCheck> checks;

  // The python first: a --python that does not exist is what the user must fix first, and the
  // first failed check gives the exit code.
  const std::optional<fs::path> python = check_python(python_path, checks);

  auto ncu = locate_ncu(ncu_path);
  if (ncu) {
    checks.push_back({"ncu", true,
                      fmt::format("{} (version {})", ncu->executable.string(),
                                  ncu->version.empty() ? "unknown" : ncu->version),
                      std::nullopt});
  } else {
    checks.push_back(failed("ncu", ncu.error()));
  }
  checks.push_back(check_gpus());
  if (!python) {
    return checks; // torch, triton and the counters need a python
  }
  for (const char* module : {"torch", "triton"}) {
    ProcessSpec spec;
    spec.argv = {python->string(), "-c", fmt::format("import {0}; print({0}.__version__)", module)};
    spec.timeout = std::chrono::seconds(120);
    auto ran = run_process(spec);
    if (ran && ran->succeeded()) {
      checks.push_back({module, true, first_line(ran->out), std::nullopt});
    } else {
      checks.push_back(failed(module, make_error(ErrorCategory::kernel_import,
                                                 fmt::format("`import {}` failed", module),
                                                 ran ? ran->err : ran.error().message)));
    }
  }

  // Counter permission: a real, tiny profile.
  if (ncu) {
    auto dir = TempDir::create("kprof-doctor");
    if (!dir) {
      checks.push_back(failed("counters", dir.error()));
      return checks;
    }
    const fs::path script = dir->path() / "probe.py";
    const fs::path log = dir->path() / "probe.log";
    if (auto w = write_file_atomic(script, k_probe_script); !w) {
      checks.push_back(failed("counters", w.error()));
      return checks;
    }
    NcuCommand command;
    command.ncu = *ncu;
    command.metrics.name = "probe";
    command.metrics.metrics = {{"gpu__time_duration.sum", "Duration", "Time"}};
    command.nvtx_include = "kprof:cand0/";
    command.clock_control = clock_control;
    command.log_file = log;
    command.target = {python->string(), script.string()};
    ProcessSpec spec;
    spec.argv = build_ncu_argv(command);
    spec.timeout = std::chrono::seconds(180);
    auto ran = run_process(spec);
    if (!ran) {
      checks.push_back(failed("counters", ran.error()));
      return checks;
    }
    std::string log_text;
    if (auto text = read_file(log)) {
      log_text = std::move(text).value();
    }
    auto capture = parse_ncu_csv(log_text, {}, log.string());
    auto verdict = classify_ncu_run(*ran, log_text + "\n" + ran->out + "\n" + ran->err,
                                    capture.ok() && !capture->kernels.empty());
    if (verdict.error) {
      checks.push_back(failed("counters", *verdict.error));
    } else {
      checks.push_back({"counters", true,
                        fmt::format("profiled {} kernel(s) in {:.1f} s", capture->kernels.size(),
                                    ran->wall.count()),
                        std::nullopt});
    }
  }
  return checks;
}

} // namespace kprof

// `kprof profile` and `kprof batch` end to end, on a machine without a GPU: a stand-in ncu
// (tests/standins/ncu) runs the real harness under a fake torch and replays recorded H200 output.
// The real ncu is exercised by bench/device/run e2e on a GPU machine (docs/device-e2e.md).
#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "e2e/e2e_support.hpp"
#include "kprof/round.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/workload.hpp"

namespace kprof::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string standin(const std::string& name) {
  return std::string(KPROF_STANDINS_DIR) + "/" + name;
}
std::string case_file(const std::string& name) {
  return std::string(KPROF_FIXTURES_DIR) + "/../python/cases/" + name;
}
std::string example(const std::string& name) {
  return std::string(KPROF_EXAMPLES_DIR) + "/" + name;
}

json read_json(const fs::path& path) {
  auto text = read_file(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? json::parse(*text) : json();
}

/// The command line of process `pid`, its words separated by NUL bytes (empty once it is gone).
std::string cmdline_of(pid_t pid) {
  // kprof::read_file, not an ifstream: libstdc++'s filebuf throws when the read fails because
  // the process ended between the open and the read (ESRCH; seen under ASan in CI).
  auto text = read_file("/proc/" + std::to_string(pid) + "/cmdline");
  return text ? std::move(text).value() : std::string();
}

/// The pids of live processes whose command line mentions `needle` (zombies have none).
std::vector<pid_t> processes_mentioning(const std::string& needle) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const auto pid = static_cast<pid_t>(std::stoi(name));
    if (cmdline_of(pid).find(needle) != std::string::npos) {
      found.push_back(pid);
    }
  }
  return found;
}

/// Waits (at most 30 s) until `done()` holds.
template <class Done>
bool eventually(Done done) {
  for (int i = 0; i < 600; ++i) {
    if (done()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

/// Sends kprof (`pid`) SIGKILL, reaps it, and expects every process whose command line mentions
/// `needle` to be gone soon after (killing those left, so that no test inherits them).
void kill_minus_9_leaves_nothing(pid_t pid, const std::string& needle) {
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const bool all_gone = eventually([&] { return processes_mentioning(needle).empty(); });
  for (pid_t left : processes_mentioning(needle)) {
    ::kill(left, SIGKILL);
  }
  EXPECT_TRUE(all_gone) << "a child of kprof survived kill -9";
}

class KprofProfile : public E2eTest {
protected:
  void SetUp() override {
    E2eTest::SetUp();
    // The recorded captures name the range "kprof"; kprof's harness uses "kprof:cand<i>".
    auto text = read_file(fixture("curated_nvtx_twostage.csv"));
    ASSERT_TRUE(text.ok());
    std::string csv = *text;
    const std::string from = "<default domain>:kprof:none";
    for (auto pos = csv.find(from); pos != std::string::npos; pos = csv.find(from, pos)) {
      csv.replace(pos, from.size(), "<default domain>:kprof:cand0:none");
    }
    m_twostage = dir() / "twostage_cand0.csv";
    ASSERT_TRUE(write_file_atomic(m_twostage, csv).ok());
  }

  KprofRun profile(std::vector<std::string> args,
                   std::vector<std::pair<std::string, std::string>> env = {}) {
    std::vector<std::string> argv = {"profile"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--ncu", standin("ncu"), "--python", "/usr/bin/python3", "--out",
                             (dir() / "out").string(), "--format", "json", "--retries", "1"});
    return run_with_env(argv, std::move(env));
  }

  KprofRun run_with_env(const std::vector<std::string>& argv,
                        std::vector<std::pair<std::string, std::string>> env,
                        std::chrono::seconds timeout = std::chrono::seconds(120),
                        std::optional<fs::path> cwd = std::nullopt) {
    env.emplace_back("PYTHONPATH", standin("fake_torch"));
    env.emplace_back("KPROF_LOCK_DIR", (dir() / "locks").string());
    env.emplace_back("XDG_CACHE_HOME", (dir() / "cache").string());
    bool has_csv = false;
    for (const auto& [key, value] : env) {
      has_csv = has_csv || key == "KPROF_FAKE_NCU_CSV";
    }
    if (!has_csv) {
      env.emplace_back("KPROF_FAKE_NCU_CSV", m_twostage.string());
    }
    return run_kprof(argv, env, timeout, std::move(cwd));
  }

  /// The options every stand-in run passes, for a command line built by hand.
  /// `kprof batch ARGS` with the stand-in ncu, the system Python and JSON output into out().
  KprofRun run_batch(std::vector<std::string> args,
                     std::vector<std::pair<std::string, std::string>> env = {}) {
    std::vector<std::string> argv = {"batch"};
    argv.insert(argv.end(), args.begin(), args.end());
    const std::vector<std::string> options = standin_options();
    argv.insert(argv.end(), options.begin(), options.end());
    return run_with_env(argv, std::move(env));
  }

  [[nodiscard]] std::vector<std::string> standin_options() const {
    return {"--ncu", standin("ncu"), "--python", "/usr/bin/python3",
            "--out", out().string(), "--format", "json"};
  }

  [[nodiscard]] fs::path out() const { return dir() / "out"; }

  /// Starts `kprof profile KERNEL PROBLEM` in the background with the stand-in ncu (env added),
  /// stderr to dir()/stderr.txt; returns its pid.
  pid_t start_profile(const std::string& kernel, const std::string& problem,
                      const std::vector<std::pair<std::string, std::string>>& env) {
    return start_kprof({"profile", kernel, problem, "--ncu", standin("ncu"), "--python",
                        "/usr/bin/python3", "--out", out().string(), "--timeout", "120"},
                       env);
  }

  /// Starts kprof with `args` in the background, with the fake torch, the twostage capture and
  /// a lock directory and cache of the test's own (env added), stderr to dir()/stderr.txt;
  /// returns its pid.
  pid_t start_kprof(const std::vector<std::string>& args,
                    const std::vector<std::pair<std::string, std::string>>& env) {
    const fs::path err_path = dir() / "stderr.txt";
    const std::string pythonpath = standin("fake_torch");
    const std::string binary = KPROF_BINARY;
    const std::string locks = (dir() / "locks").string();
    const std::string cache = (dir() / "cache").string();
    const std::string csv = m_twostage.string();
    std::vector<std::string> words = {binary};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& word : words) {
      argv.push_back(word.data());
    }
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("PYTHONPATH", pythonpath.c_str(), 1);
      ::setenv("KPROF_LOCK_DIR", locks.c_str(), 1);
      ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
      ::setenv("KPROF_FAKE_NCU_CSV", csv.c_str(), 1);
      for (const auto& [key, value] : env) {
        ::setenv(key.c_str(), value.c_str(), 1);
      }
      if (std::freopen(err_path.c_str(), "w", stderr) == nullptr) {
        ::_exit(99);
      }
      ::execv(binary.c_str(), argv.data());
      ::_exit(98);
    }
    return pid;
  }

  /// True once a staging directory of `round` exists in out().
  [[nodiscard]] bool staging_exists(int round) const {
    const std::string prefix = fmt_round_prefix(round);
    std::error_code ec;
    for (fs::directory_iterator it(out(), ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().rfind(prefix, 0) == 0) {
        return true;
      }
    }
    return false;
  }

  static std::string fmt_round_prefix(int round) {
    char name[32];
    std::snprintf(name, sizeof name, ".round%03d.staging-", round);
    return name;
  }

  /// A kernel file whose kernel_function never returns.
  fs::path hanging_kernel() {
    const fs::path kernel = dir() / "hangs" / "kernel.py";
    fs::create_directories(kernel.parent_path());
    EXPECT_TRUE(write_file_atomic(kernel, "import time\n\n\ndef kernel_function(*args, **kwargs):\n"
                                          "    time.sleep(1000)\n")
                    .ok());
    return kernel;
  }

  /// A kernel file whose kernel_function starts a child (a Python sleeping 1000 s) and a daemon
  /// (fork, setsid, fork: tests/standins/daemonize) each call, both with the test's directory on
  /// their command line, then does positional/'s work; `only_when_compiled_ahead`: only in a
  /// compile worker.
  fs::path spawning_kernel(bool only_when_compiled_ahead = false) {
    const fs::path kernel =
        dir() / (only_when_compiled_ahead ? "spawns_ahead" : "spawns") / "kernel.py";
    fs::create_directories(kernel.parent_path());
    const std::string when = only_when_compiled_ahead ? "\"--compile-worker\" in sys.argv" : "True";
    const std::string source = R"py(import os
import subprocess
import sys

import torch
import triton
import triton.language as tl

MARK = )py" + json(dir().string()).dump() +
                               R"py(
DAEMONIZE = )py" + json(standin("daemonize")).dump() +
                               R"py(


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


def kernel_function(x, y):
    if )py" + when + R"py(:
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)", MARK])
        pid_file = os.path.join(MARK, "daemon-%d.pid" % os.getpid())
        subprocess.run([DAEMONIZE, pid_file, MARK], check=True)
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    return out
)py";
    EXPECT_TRUE(write_file_atomic(kernel, source).ok());
    return kernel;
  }

  /// Runs kprof with `args` as a plain child of the test (start_kprof: fork and exec, not
  /// run_process, whose own process keeper would kill what kprof left behind before a test could
  /// look) and waits for it; its exit code (-1 when a signal ended it).
  int run_plain(const std::vector<std::string>& args,
                const std::vector<std::pair<std::string, std::string>>& env) {
    const pid_t pid = start_kprof(args, env);
    int status = 0;
    if (pid <= 0 || ::waitpid(pid, &status, 0) != pid) {
      return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  /// What start_kprof's kprof wrote to stderr.
  [[nodiscard]] std::string plain_stderr() const {
    auto text = read_file(dir() / "stderr.txt");
    return text ? std::move(text).value() : std::string();
  }

  /// Expects no process whose command line mentions the test's directory to be left (soon),
  /// killing those left so that no test inherits them.
  void expect_no_process_left(const std::string& when) {
    const std::string needle = dir().string();
    const bool all_gone = eventually([&] { return processes_mentioning(needle).empty(); });
    std::string left;
    for (pid_t pid : processes_mentioning(needle)) {
      std::string args = cmdline_of(pid);
      std::replace(args.begin(), args.end(), '\0', ' ');
      left += "\n  " + std::to_string(pid) + ": " + args;
      ::kill(pid, SIGKILL);
    }
    EXPECT_TRUE(all_gone) << "processes outlived " << when << ":" << left;
  }

  fs::path m_twostage;
};

TEST_F(KprofProfile, ChecksTheMetricNamesOncePerNcuDriverAndGpuNotOncePerOutputDirectory) {
  const std::vector<std::pair<std::string, std::string>> env = {
      {"KPROF_NVIDIA_PROC", std::string(KPROF_FIXTURES_DIR) + "/nvidia-proc/h200"}};
  const std::string kernel = example("twostage/kernel.py");
  const std::string problem = example("twostage/problem.py");
  const auto profile_into = [&](const fs::path& out_dir, const auto& with_env) {
    return run_with_env({"profile", kernel, problem, "--ncu", standin("ncu"), "--python",
                         "/usr/bin/python3", "--out", out_dir.string(), "--format", "json"},
                        with_env);
  };
  KprofRun first = profile_into(out(), env);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string first_check =
      read_json(out() / "round000" / "report.json")["metadata"]["metric_check"];
  EXPECT_EQ(first_check.find("cached"), std::string::npos) << first_check;
  // Another output directory, so the listing cached beside the first round is not there.
  KprofRun second = profile_into(dir() / "elsewhere", env);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const std::string second_check =
      read_json(dir() / "elsewhere" / "round000" / "report.json")["metadata"]["metric_check"];
  EXPECT_EQ(second_check.rfind("ok:", 0), 0U) << second_check;
  EXPECT_NE(second_check.find("cached for this ncu, driver and GPU"), std::string::npos)
      << second_check;
  // Without a readable driver nothing is kept or reused.
  const std::vector<std::pair<std::string, std::string>> no_driver = {
      {"KPROF_NVIDIA_PROC", (dir() / "no-driver").string()}};
  KprofRun third = profile_into(dir() / "third", no_driver);
  ASSERT_EQ(third.exit_code, 0) << third.err;
  const std::string third_check =
      read_json(dir() / "third" / "round000" / "report.json")["metadata"]["metric_check"];
  EXPECT_EQ(third_check.find("cached"), std::string::npos) << third_check;
}

TEST_F(KprofProfile, UnderUmask000NothingItWritesIsWritableByOtherUsers) {
  // kprof runs the harness.py it writes; under umask 000 another user must not be able to
  // replace it (or anything else) in the directories kprof makes.
  const mode_t previous = ::umask(0);
  KprofRun run = profile({example("twostage/kernel.py"), example("twostage/problem.py")});
  ::umask(previous);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<fs::path> checked = {out()};
  for (const auto& entry : fs::recursive_directory_iterator(out())) {
    if (!entry.is_symlink()) {
      checked.push_back(entry.path());
    }
  }
  ASSERT_GT(checked.size(), 5U);
  for (const fs::path& path : checked) {
    struct stat info {};
    ASSERT_EQ(::lstat(path.c_str(), &info), 0) << path;
    if (S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode)) {
      continue;
    }
    EXPECT_EQ(info.st_mode & (S_IWGRP | S_IWOTH), 0U)
        << path << " has mode " << std::oct << (info.st_mode & 07777U);
  }
  const fs::path ncu_tmp =
      fs::temp_directory_path() / ("kprof-ncu-" + std::to_string(::geteuid()) + "-gpu0");
  if (fs::exists(ncu_tmp)) {
    struct stat info {};
    ASSERT_EQ(::lstat(ncu_tmp.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 077U, 0U) << std::oct << (info.st_mode & 07777U);
  }
}

TEST_F(KprofProfile, WritesTheWholeRoundLayoutAndReportsBothKernels) {
  KprofRun run = profile({example("twostage/kernel.py"), example("twostage/problem.py")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* file : {"harness.py", "kprof_harness/main.py", "plan.json", "status.json",
                           "ncu.log", "report.ncu-rep", "metrics.csv", "report.json"}) {
    EXPECT_TRUE(fs::exists(out() / "round000" / file)) << file;
  }
  EXPECT_FALSE(fs::exists(out() / "round000" / "error.json"));
  json report = read_json(out() / "round000" / "report.json");
  ASSERT_EQ(report["kernels"].size(), 2U);
  EXPECT_EQ(report["kernels"][0]["nvtx_range"], "kprof:cand0");
  EXPECT_EQ(report["metadata"]["clock_control"], "none");
  EXPECT_EQ(report["metadata"]["status"], "ok");
  EXPECT_EQ(report["metadata"]["metric_check"].get<std::string>().rfind("ok:", 0), 0U)
      << report["metadata"]["metric_check"];
  EXPECT_EQ(report["metadata"]["gpu_lock_wait_seconds"].is_number(), true);
  // The harness held the host's profiled-call lock, in the lock directory, around its call.
  EXPECT_EQ(report["metadata"]["call_lock"], "held");
  EXPECT_EQ(report["metadata"]["call_lock_wait_seconds"].is_number(), true);
  EXPECT_TRUE(fs::exists(dir() / "locks" / "profiled-calls.lock"));
  EXPECT_EQ(read_json(out() / "round000" / "plan.json")["profiled_call_lock"]["path"],
            (dir() / "locks" / "profiled-calls.lock").string());
  const auto& argv = report["metadata"]["ncu_argv"];
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--clock-control"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "regex:kprof:(cand[0-9]+|primer)/"), argv.end());
  json ka = read_json(out() / "round000_ncu_metrics.json");
  EXPECT_EQ(ka["metrics"]["scale_kernel"]["gpu__time_duration.sum"], 9856);
  EXPECT_EQ(ka["metadata"]["round_num"], 0);
  EXPECT_TRUE(fs::exists(out() / "kprof.db"));
  EXPECT_EQ(json::parse(run.out)["summary"]["dominant_kernel"], "scale_kernel");
}

TEST_F(KprofProfile, LeavesNoStagingDirectoryBehind) {
  ASSERT_EQ(profile({example("twostage/kernel.py"), example("twostage/problem.py")}).exit_code, 0);
  ASSERT_EQ(profile({example("twostage/kernel.py"), example("twostage/problem.py")}).exit_code, 0);
  for (const auto& entry : fs::directory_iterator(out())) {
    EXPECT_EQ(entry.path().filename().string().find(".round"), std::string::npos) << entry.path();
  }
}

TEST_F(KprofProfile, AGpuTheMachineLacksIsAUsageErrorNamingItNeverASilentSuccess) {
  // This machine shows kprof no GPU count (no CUDA_VISIBLE_DEVICES, no /proc/driver/nvidia), so
  // --gpu 99 is not refused up front; the harness finds CUDA showing it no GPU under
  // CUDA_VISIBLE_DEVICES=99 (the fake torch's machine has one).
  KprofRun run =
      profile({example("twostage/kernel.py"), example("twostage/problem.py"), "--gpu", "99"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  const bool named =
      run.err.find("kprof: error: GPU 99 is not on this machine: it has 1 GPU "
                   "(valid: 0 to 0)") != std::string::npos ||
      run.err.find("kprof: error: GPU 99: CUDA shows the profiled program no GPU, "
                   "and how many GPUs this machine has is unknown") != std::string::npos;
  EXPECT_TRUE(named) << run.err;
  EXPECT_NE(run.err.find("CUDA_VISIBLE_DEVICES=99"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("inputs on the GPU failed"), std::string::npos) << run.err;
}

TEST_F(KprofProfile, AKernelThatDoesNotImportIsClassified) {
  KprofRun run = profile({case_file("syntax_error/kernel.py"), case_file("vector/problem.py")});
  EXPECT_EQ(run.exit_code, 8) << run.err;
  EXPECT_NE(run.err.find("SyntaxError"), std::string::npos) << run.err;
  json error = read_json(out() / "round000" / "error.json");
  EXPECT_EQ(error["error"]["category"], "kernel_import");
  EXPECT_FALSE(fs::exists(out() / "round000" / "report.json"));
}

TEST_F(KprofProfile, AKernelThatRaisesIsClassifiedWithItsTraceback) {
  KprofRun run = profile({case_file("raises/kernel.py"), case_file("vector/problem.py")});
  EXPECT_EQ(run.exit_code, 10) << run.err;
  EXPECT_NE(run.err.find("Traceback"), std::string::npos) << run.err;
}

TEST_F(KprofProfile, AProblemWithoutGetInputsIsClassified) {
  KprofRun run =
      profile({case_file("positional/kernel.py"), case_file("no_get_inputs/problem.py")});
  EXPECT_EQ(run.exit_code, 9) << run.err;
}

TEST_F(KprofProfile, MissingCounterPermissionSaysHowToFixIt) {
  KprofRun run = profile({example("twostage/kernel.py"), example("twostage/problem.py")},
                         {{"KPROF_FAKE_NCU_SCENARIO", "permission"}});
  EXPECT_EQ(run.exit_code, 7) << run.err;
  EXPECT_NE(run.err.find("--sudo"), std::string::npos) << run.err;
}

TEST_F(KprofProfile, NothingProfiledIsNoKernelsEvenWithExitCodeZero) {
  KprofRun run = profile({example("twostage/kernel.py"), example("twostage/problem.py")},
                         {{"KPROF_FAKE_NCU_SCENARIO", "no_kernels"}});
  EXPECT_EQ(run.exit_code, 5) << run.err;
}

TEST_F(KprofProfile, AHangingRunTimesOutAndIsRetried) {
  KprofRun run =
      profile({example("twostage/kernel.py"), example("twostage/problem.py"), "--timeout", "2"},
              {{"KPROF_FAKE_NCU_SCENARIO", "hang"}});
  EXPECT_EQ(run.exit_code, 12) << run.err;
  json error = read_json(out() / "round000" / "error.json");
  EXPECT_EQ(error["metadata"]["attempts"], 2);
}

TEST_F(KprofProfile, ATransientNcuFailureIsRetried) {
  KprofRun run =
      profile({example("twostage/kernel.py"), example("twostage/problem.py")},
              {{"KPROF_FAKE_NCU_SCENARIO", "flaky:" + (dir() / "flaky-state").string()}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_json(out() / "round000" / "report.json")["metadata"]["attempts"], 2);
}

TEST_F(KprofProfile, UnknownMetricNamesAreRefusedBeforeRunning) {
  KprofRun run = profile({example("twostage/kernel.py"), example("twostage/problem.py"),
                          "--metrics", "foo__bar.sum,dram__bytes_read.sum"});
  EXPECT_EQ(run.exit_code, 11) << run.err;
  EXPECT_NE(run.err.find("foo__bar.sum"), std::string::npos);
  EXPECT_FALSE(fs::exists(out() / "round000"));
}

TEST_F(KprofProfile, AMissingNcuIsItsOwnError) {
  KprofRun run =
      run_kprof({"profile", example("twostage/kernel.py"), example("twostage/problem.py"), "--ncu",
                 (dir() / "no-ncu").string(), "--out", out().string()});
  EXPECT_EQ(run.exit_code, 6) << run.err;
}

TEST_F(KprofProfile, BatchKeepsGoodCandidatesWhenOthersFailOrPoisonTheContext) {
  // Candidates 0 and 3 are healthy; 1 raises; 2 poisons the CUDA context, so 3 must run in a
  // fresh process. The recorded batch capture has rows for ranges kprof:cand0..3.
  const std::vector<std::string> args = {case_file("vector/problem.py"),
                                         case_file("positional/kernel.py"),
                                         case_file("raises/kernel.py"),
                                         case_file("poisoned/kernel.py"),
                                         case_file("positional/kernel.py"),
                                         "--round",
                                         "4"};
  KprofRun run = run_batch(args, {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json batch = read_json(out() / "round004" / "batch.json");
  ASSERT_EQ(batch["candidates"].size(), 4U);
  EXPECT_EQ(batch["candidates"][0]["status"], "ok");
  EXPECT_EQ(batch["candidates"][1]["error"]["category"], "kernel_raised");
  EXPECT_EQ(batch["candidates"][2]["status"], "failed");
  EXPECT_EQ(batch["candidates"][3]["status"], "ok") << batch["candidates"][3].dump();
  EXPECT_TRUE(fs::exists(out() / "round004" / "cand0" / "report.json"));
  EXPECT_TRUE(fs::exists(out() / "round004" / "cand1" / "error.json"));
  EXPECT_TRUE(fs::exists(out() / "round004" / "gpu0-part1"))
      << "a fresh process after the poisoned candidate";
  KprofRun history = run_kprof({"history", out().string(), "--format", "json"});
  EXPECT_EQ(history.exit_code, 0) << history.err;
}

/// The keys of `object`, in order.
std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) {
    keys.push_back(item.key());
  }
  return keys;
}

TEST_F(KprofProfile, TheBatchOutputAndItsBatchJsonAreTheRoundInItsOneShape) {
  // One shape for a candidate (kprof/round.hpp), whoever writes it: here `kprof batch`'s JSON and
  // the round's batch.json; tests/python (the module, kprof serve's reply) and tests/mcp (the
  // tools) check theirs against the same schema.
  fs::copy_file(example("twostage/kernel.py"), dir() / "second.py");
  KprofRun run = run_batch({example("twostage/problem.py"), example("twostage/kernel.py"),
                            (dir() / "second.py").string(), "--round", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  using ordered = nlohmann::ordered_json;
  const ordered printed = ordered::parse(run.out);
  const ordered written =
      ordered::parse(kprof::read_file(out() / "round002" / "batch.json").value());
  std::vector<std::string> required;
  const ordered schema = kprof::candidate_json_schema();
  for (const ordered& key : schema["required"]) {
    required.push_back(key.get<std::string>());
  }
  for (const ordered* doc : {&printed, &written}) {
    EXPECT_EQ((*doc)["kind"], "round");
    EXPECT_EQ(keys_of(*doc), (std::vector<std::string>{"schema_version", "kind", "round", "dir",
                                                       "in_place", "batch", "wall_seconds",
                                                       "served_by", "metadata", "candidates"}));
    ASSERT_EQ((*doc)["candidates"].size(), 2U);
    for (const ordered& candidate : (*doc)["candidates"]) {
      EXPECT_EQ(keys_of(candidate), required) << candidate["candidate"];
    }
  }
  EXPECT_EQ(printed["served_by"]["who"], "kprof");
  EXPECT_TRUE(written["served_by"].is_null());
  // cand0 has its rows in the stand-in's capture; cand1 has none (no_kernels), a result too.
  EXPECT_TRUE(printed["candidates"][0]["report"].is_object());
  EXPECT_TRUE(written["candidates"][0]["report"].is_null()) << "its report is in cand0/";
  EXPECT_EQ(written["candidates"][0]["summary"], printed["candidates"][0]["summary"]);
  EXPECT_EQ(printed["candidates"][0]["document"],
            (out() / "round002" / "cand0" / "report.json").string());
  EXPECT_EQ(printed["candidates"][1]["document"],
            (out() / "round002" / "cand1" / "error.json").string());
  EXPECT_EQ(written["candidates"][1]["error"], printed["candidates"][1]["error"]);
}

TEST_F(KprofProfile, CompileWorkersServeTheFirstSessionAndTheStandbyAfterAPoisonedContext) {
  // KPROF_COMPILE_AHEAD=1: compile workers beside the first session and beside the standby that
  // takes over after candidate 1 poisons the context (the recorded capture has the ranges
  // kprof:cand0..3). Each fake launch takes 0.3 s, so the workers are ahead of the harness; the
  // candidate each harness ran first it compiled itself.
  const std::vector<std::string> args = {case_file("vector/problem.py"),
                                         case_file("positional/kernel.py"),
                                         case_file("poisoned/kernel.py"),
                                         case_file("positional/kernel.py"),
                                         case_file("positional/kernel.py"),
                                         "--round",
                                         "4"};
  KprofRun run = run_batch(args, {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                                  {"KPROF_COMPILE_AHEAD", "1"},
                                  {"KPROF_FAKE_TRITON_LAUNCH_SECONDS", "0.3"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto compiled_ahead = [&](int index) {
    const json report =
        read_json(out() / "round004" / ("cand" + std::to_string(index)) / "report.json");
    return report["metadata"].value("compiled_ahead", std::string("(none)"));
  };
  const std::string by_harness = "not compiled ahead: the harness's first candidate, run at once";
  EXPECT_EQ(compiled_ahead(0), by_harness);
  EXPECT_EQ(compiled_ahead(2), by_harness); // the standby's first
  EXPECT_EQ(compiled_ahead(3), "compiled");
  // The plan of part 1 holds the candidates left, 2 and 3: the second is 3.
  EXPECT_TRUE(fs::exists(out() / "round004" / "gpu0-part1" / "compile-ahead" / "1.done"))
      << "the standby's session had workers of its own";
}

TEST_F(KprofProfile, KprofCompileAheadTakesTheUsualBooleanWordsAndRefusesAnyOtherWithExitCode2) {
  const auto batch_with = [&](const std::string& value, int round) {
    return run_batch({case_file("vector/problem.py"), case_file("positional/kernel.py"),
                      case_file("positional/kernel.py"), "--round", std::to_string(round)},
                     {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                      {"KPROF_COMPILE_AHEAD", value}});
  };
  const auto round_dir = [&](int round) {
    std::array<char, 16> name{};
    std::snprintf(name.data(), name.size(), "round%03d", round);
    return out() / name.data();
  };
  const auto compiled_ahead = [&](int round) {
    return fs::exists(round_dir(round) / "gpu0-part0" / "compile-ahead");
  };
  int round = 0;
  for (const std::string off : {"0", "false", "OFF", "No"}) {
    KprofRun run = batch_with(off, round);
    ASSERT_EQ(run.exit_code, 0) << off << ": " << run.err;
    EXPECT_FALSE(compiled_ahead(round)) << off << " left the compile workers on";
    ++round;
  }
  for (const std::string on : {"", "1", "True", "yes", "on"}) {
    KprofRun run = batch_with(on, round);
    ASSERT_EQ(run.exit_code, 0) << "'" << on << "': " << run.err;
    EXPECT_TRUE(compiled_ahead(round)) << "'" << on << "' turned the compile workers off";
    ++round;
  }
  for (const std::string other : {"maybe", "2", "disable"}) {
    KprofRun run = batch_with(other, round);
    EXPECT_EQ(run.exit_code, 2) << other << ": " << run.err;
    EXPECT_NE(run.err.find("KPROF_COMPILE_AHEAD='" + other + "' is not a boolean"),
              std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("1, true, yes, on, 0, false, no, off"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(round_dir(round))) << "nothing ran";
  }
  // `kprof profile` refuses it as well.
  KprofRun profiled = profile({example("twostage/kernel.py"), example("twostage/problem.py")},
                              {{"KPROF_COMPILE_AHEAD", "maybe"}});
  EXPECT_EQ(profiled.exit_code, 2) << profiled.err;
}

/// KernelAgent's mat-vec in small: a kernel_function that insists on bf16 inputs and says so.
fs::path write_bf16_kernel(const fs::path& dir) {
  const fs::path kernel = dir / "bf16" / "kernel.py";
  fs::create_directories(kernel.parent_path());
  EXPECT_TRUE(write_file_atomic(kernel, R"(import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


def kernel_function(x, y):
    if x.dtype != torch.bfloat16 or y.dtype != torch.bfloat16:
        raise TypeError("A and B must be torch.bfloat16 tensors")
    out = torch.empty_like(x)
    add_kernel[(4,)](x, y, out, x.numel(), BLOCK=256)
    return out
)")
                  .ok());
  return kernel;
}

TEST_F(KprofProfile, CastAutoGivesEachCandidateTheDtypeItsSourceNamesAndRecordsWhy) {
  const std::vector<std::string> args = {case_file("vector/problem.py"),
                                         write_bf16_kernel(dir()).string(),
                                         case_file("positional/kernel.py"), "--cast", "auto"};
  KprofRun run = run_batch(args, {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json bf16 = read_json(out() / "round000" / "cand0" / "report.json")["metadata"];
  EXPECT_EQ(bf16["cast"], "auto");
  EXPECT_EQ(bf16["cast_applied"], "bf16");
  EXPECT_EQ(bf16["cast_reason"], "kernel_function's source mentions 'bfloat16'");
  const json plain = read_json(out() / "round000" / "cand1" / "report.json")["metadata"];
  EXPECT_EQ(plain["cast"], "auto");
  EXPECT_EQ(plain["cast_applied"], "none");
  EXPECT_EQ(plain["cast_reason"],
            "no dtype named in kernel_function's source: inputs as the problem made them");
}

TEST_F(KprofProfile, WithoutCastAutoABf16OnlyKernelRaisesAndTheErrorSaysNoCastWasAsked) {
  KprofRun run = profile({write_bf16_kernel(dir()).string(), case_file("vector/problem.py")});
  EXPECT_EQ(run.exit_code, 10) << run.err;
  EXPECT_NE(run.err.find("A and B must be torch.bfloat16 tensors"), std::string::npos) << run.err;
  const json metadata = read_json(out() / "round000" / "error.json")["metadata"];
  EXPECT_EQ(metadata["cast"], "none");
  EXPECT_EQ(metadata["cast_applied"], "none");
  EXPECT_EQ(metadata["cast_reason"], "asked for cast none: inputs as the problem made them");
}

TEST_F(KprofProfile, CtrlCStopsTheRunAndItsChildrenWithExitCode130) {
  const fs::path err_path = dir() / "stderr.txt";
  const std::string pythonpath = standin("fake_torch");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("KPROF_FAKE_NCU_SCENARIO", "hang", 1);
    ::setenv("PYTHONPATH", pythonpath.c_str(), 1);
    ::setenv("KPROF_LOCK_DIR", (dir() / "locks").c_str(), 1);
    if (std::freopen(err_path.c_str(), "w", stderr) == nullptr) {
      ::_exit(99);
    }
    const std::string binary = KPROF_BINARY;
    const std::string kernel = example("twostage/kernel.py");
    const std::string problem = example("twostage/problem.py");
    const std::string ncu = standin("ncu");
    const std::string out_dir = out().string();
    ::execl(binary.c_str(), binary.c_str(), "profile", kernel.c_str(), problem.c_str(), "--ncu",
            ncu.c_str(), "--python", "/usr/bin/python3", "--out", out_dir.c_str(), "--timeout",
            "120", static_cast<char*>(nullptr));
    ::_exit(98);
  }
  // Wait until the session has started (its staging directory exists), then press Ctrl-C.
  bool started = false;
  for (int i = 0; i < 600 && !started; ++i) {
    if (fs::exists(out())) {
      for (const auto& entry : fs::directory_iterator(out())) {
        started = started || entry.path().filename().string().rfind(".round000.staging", 0) == 0;
      }
    }
    if (!started) {
      ::usleep(50 * 1000);
    }
  }
  ASSERT_TRUE(started);
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 600 && done == 0; ++i) { // at most 30 s, far below --timeout 120
    done = ::waitpid(pid, &status, WNOHANG);
    if (done == 0) {
      ::usleep(50 * 1000);
    }
  }
  if (done == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL() << "kprof did not stop after SIGINT";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  auto err = read_file(err_path);
  ASSERT_TRUE(err.ok());
  EXPECT_NE(err->find("interrupted"), std::string::npos) << *err;
}

TEST_F(KprofProfile, AFailedReRunKeepsTheGoodRoundAndKeepsTheAttemptBesideIt) {
  ASSERT_EQ(profile({example("twostage/kernel.py"), example("twostage/problem.py"), "--round", "1"})
                .exit_code,
            0);
  auto ka_before = read_file(out() / "round001_ncu_metrics.json");
  ASSERT_TRUE(ka_before.ok());

  KprofRun rerun =
      profile({example("twostage/kernel.py"), example("twostage/problem.py"), "--round", "1"},
              {{"KPROF_FAKE_NCU_SCENARIO", "permission"}});
  EXPECT_EQ(rerun.exit_code, 7) << rerun.err;
  EXPECT_TRUE(fs::exists(out() / "round001" / "report.json"));
  EXPECT_FALSE(fs::exists(out() / "round001" / "error.json"));
  EXPECT_EQ(read_json(out() / "round001.attempt-1" / "error.json")["error"]["category"],
            "permission_denied");
  auto ka_after = read_file(out() / "round001_ncu_metrics.json");
  ASSERT_TRUE(ka_after.ok());
  EXPECT_EQ(*ka_after, *ka_before) << "the KernelAgent file keeps matching the good round";
  EXPECT_NE(rerun.err.find("round001.attempt-1"), std::string::npos) << rerun.err;

  KprofRun history = run_kprof({"history", out().string(), "--format", "json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  const json rows = json::parse(history.out)["rows"];
  ASSERT_EQ(rows.size(), 2U) << history.out;
  EXPECT_EQ(rows[0]["status"], "ok");
  EXPECT_EQ(rows[1]["status"], "failed");

  // A good re-run replaces the round again.
  ASSERT_EQ(profile({example("twostage/kernel.py"), example("twostage/problem.py"), "--round", "1"})
                .exit_code,
            0);
  EXPECT_TRUE(fs::exists(out() / "round001" / "report.json"));
}

TEST_F(KprofProfile, AnInterruptedReRunKeepsTheGoodRound) {
  ASSERT_EQ(profile({example("twostage/kernel.py"), example("twostage/problem.py")}).exit_code, 0);
  const pid_t pid = start_profile(example("twostage/kernel.py"), example("twostage/problem.py"),
                                  {{"KPROF_FAKE_NCU_SCENARIO", "hang"}});
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(eventually([&] { return staging_exists(0); }));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_TRUE(fs::exists(out() / "round000" / "report.json"));
  EXPECT_FALSE(fs::exists(out() / "round000" / "error.json"));
  EXPECT_TRUE(fs::exists(out() / "round000.attempt-1" / "error.json"));
}

TEST_F(KprofProfile, ATruncatedNcuCsvIsMalformedOutputNotAKernelThatLaunchedNothing) {
  auto text = read_file(m_twostage);
  ASSERT_TRUE(text.ok());
  // Cut the last data row inside a quoted field, after its NVTX range.
  const std::size_t last_row = text->rfind("\n\"", text->size() - 2);
  ASSERT_NE(last_row, std::string::npos);
  const std::size_t range = text->find("kprof:cand0", last_row);
  ASSERT_NE(range, std::string::npos);
  const std::size_t cut = text->find(",\"", range + 20);
  ASSERT_NE(cut, std::string::npos);
  const fs::path truncated = dir() / "truncated.csv";
  ASSERT_TRUE(write_file_atomic(truncated, text->substr(0, cut + 4)).ok());
  KprofRun run = profile({example("twostage/kernel.py"), example("twostage/problem.py")},
                         {{"KPROF_FAKE_NCU_CSV", truncated.string()}});
  EXPECT_EQ(run.exit_code, 4) << run.err;
  EXPECT_NE(run.err.find("truncated"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("without launching"), std::string::npos) << run.err;
  EXPECT_EQ(read_json(out() / "round000" / "error.json")["error"]["category"], "malformed_input");
}

TEST_F(KprofProfile, AnNcuKilledByASignalAfterItsOutputIsPartialAndSaysSo) {
  KprofRun run = profile({example("twostage/kernel.py"), example("twostage/problem.py")},
                         {{"KPROF_FAKE_NCU_SCENARIO", "killed_after_output"}});
  EXPECT_EQ(run.exit_code, 13) << run.err;
  EXPECT_NE(run.err.find("SIGKILL"), std::string::npos) << run.err;
  const json report = read_json(out() / "round000" / "report.json");
  EXPECT_EQ(report["metadata"]["status"], "partial");
  EXPECT_EQ(report["metadata"]["error"]["category"], "ncu_failed");
  EXPECT_EQ(report["kernels"].size(), 2U) << "the rows ncu wrote are kept";
}

TEST_F(KprofProfile, KillMinus9OfKprofLeavesNoNcuOrHarnessRunning) {
  const fs::path kernel = hanging_kernel();
  const pid_t pid = start_profile(kernel.string(), example("twostage/problem.py"), {});
  ASSERT_GT(pid, 0);
  // Both ncu (the stand-in) and the harness mention the output directory on their command line.
  const std::string needle = out().string();
  const bool both_running = eventually([&] {
    const auto pids = processes_mentioning(needle);
    return std::any_of(pids.begin(), pids.end(),
                       [&](pid_t p) {
                         const std::string args = cmdline_of(p);
                         return args.find("harness.py") != std::string::npos &&
                                args.find(standin("ncu")) == std::string::npos;
                       }) &&
           pids.size() >= 2;
  });
  ASSERT_TRUE(both_running) << "the harness never started";
  kill_minus_9_leaves_nothing(pid, needle);
}

TEST_F(KprofProfile, KillMinus9OfKprofDuringACompiledAheadBatchLeavesNoCompileWorkerRunning) {
  // The harness hangs in candidate 0 and a compile worker hangs compiling candidate 1 (both
  // kernel_functions sleep): kill -9 of kprof must take the workers along with ncu and the
  // harness.
  const fs::path kernel = hanging_kernel();
  const pid_t pid =
      start_kprof({"batch", case_file("vector/problem.py"), kernel.string(), kernel.string(),
                   kernel.string(), "--ncu", standin("ncu"), "--python", "/usr/bin/python3",
                   "--out", out().string(), "--timeout", "120"},
                  {{"KPROF_COMPILE_AHEAD", "1"}});
  ASSERT_GT(pid, 0);
  const std::string needle = out().string();
  const auto workers = [&] {
    std::vector<pid_t> found;
    for (pid_t p : processes_mentioning(needle)) {
      if (cmdline_of(p).find("--compile-worker") != std::string::npos) {
        found.push_back(p);
      }
    }
    return found;
  };
  const auto compiling = [&] {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(out(), ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename() == "1.claim") {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(eventually([&] { return !workers().empty() && compiling(); }))
      << "no compile worker took candidate 1";
  kill_minus_9_leaves_nothing(pid, needle);
}

TEST_F(KprofProfile, AProfileLeavesNothingTheCandidateStartedRunning) {
  // Each call of kernel_function starts a child and a daemon; `kprof profile` ends ok with none of
  // them left (the harness's children were orphans kept by nobody before the process keeper), and
  // in time: the stand-in ncu, as the real one, waits for every process of the tree it profiles,
  // so the harness must end what the candidate left (end_descendants) for ncu to finish at all.
  const int code = run_plain({"profile", spawning_kernel().string(), case_file("vector/problem.py"),
                              "--ncu", standin("ncu"), "--python", "/usr/bin/python3", "--out",
                              out().string(), "--timeout", "30", "--retries", "0"},
                             {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")}});
  EXPECT_EQ(code, 0) << plain_stderr();
  expect_no_process_left("a successful `kprof profile`");
}

TEST_F(KprofProfile, ABatchLeavesNothingACompileWorkersCandidateStartedRunning) {
  // The candidate starts its child and daemon only in a compile worker.
  const std::string spawns = spawning_kernel(true).string();
  std::vector<std::string> args = {"batch", case_file("vector/problem.py"),
                                   case_file("positional/kernel.py"), spawns, spawns};
  const std::vector<std::string> options = standin_options();
  args.insert(args.end(), options.begin(), options.end());
  const int code = run_plain(args, {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                                    {"KPROF_COMPILE_AHEAD", "1"},
                                    {"KPROF_FAKE_TRITON_LAUNCH_SECONDS", "0.3"}});
  ASSERT_EQ(code, 0) << plain_stderr();
  const json batch = read_json(out() / "round000" / "batch.json");
  for (const auto& candidate : batch["candidates"]) {
    EXPECT_EQ(candidate["status"], "ok") << candidate.dump();
  }
  bool started = false;
  for (const auto& entry : fs::directory_iterator(dir())) {
    started = started || entry.path().filename().string().rfind("daemon-", 0) == 0;
  }
  EXPECT_TRUE(started) << "no compile worker compiled the spawning candidate";
  expect_no_process_left("a batch compiled ahead");
}

TEST_F(KprofProfile, KillMinus9OfKprofWhileNcuHangsLeavesNothingTheCandidateStarted) {
  // ncu starts the harness and hangs (ignoring SIGTERM); the candidate has started a child and a
  // daemon. kill -9 of kprof: ncu dies of its parent-death signal, and so must all the rest.
  const pid_t pid = start_profile(spawning_kernel().string(), case_file("vector/problem.py"),
                                  {{"KPROF_FAKE_NCU_SCENARIO", "hang_after_start"}});
  ASSERT_GT(pid, 0);
  const bool spawned = eventually([&] {
    for (const auto& entry : fs::directory_iterator(dir())) {
      if (entry.path().filename().string().rfind("daemon-", 0) == 0) {
        return true;
      }
    }
    return false;
  });
  ASSERT_TRUE(spawned) << "the candidate never ran";
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  expect_no_process_left("kill -9 of kprof");
}

TEST_F(KprofProfile, ACandidateThatHangsOnlyInItsCompileWorkerCostsOnlyItsCompileAhead) {
  // Issue 40: `batch P a.py hang.py b.py --timeout 10` took 93 s in 4 of 7 runs and called a.py
  // no_kernels. The harness now waits for hang.py's worker a quarter of its timeout (2.5 s), then
  // compiles it in its warm-up: every candidate is profiled, and the batch ends well within its
  // timeout, with no worker left.
  const fs::path hangs = fs::path(case_file("hangs_when_compiled_ahead/kernel.py"));
  const auto started = std::chrono::steady_clock::now();
  KprofRun run = run_batch({case_file("vector/problem.py"), case_file("positional/kernel.py"),
                            hangs.string(), case_file("positional/kernel.py"), "--timeout", "10"},
                           {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                            {"KPROF_COMPILE_AHEAD", "1"},
                            {"KPROF_FAKE_TRITON_LAUNCH_SECONDS", "0.3"}});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_LT(seconds, 10.0 + 20.0);
  const json batch = read_json(out() / "round000" / "batch.json");
  ASSERT_EQ(batch["candidates"].size(), 3U);
  for (const auto& candidate : batch["candidates"]) {
    EXPECT_EQ(candidate["status"], "ok") << candidate.dump();
    const int index = candidate["candidate"];
    const json report =
        read_json(out() / "round000" / ("cand" + std::to_string(index)) / "report.json");
    EXPECT_EQ(report["metadata"]["attempts"], 1) << "cand" << index << " was run again";
  }
  const json hung = read_json(out() / "round000" / "cand1" / "report.json")["metadata"];
  // Its worker claimed it (the fake launches are slow), or the harness got to it first.
  const std::string ahead = hung["compiled_ahead"];
  EXPECT_TRUE(ahead == "not compiled ahead: still compiling after 2.5 s" ||
              ahead == "not compiled ahead: no worker had started it")
      << ahead;
  expect_no_process_left("the batch");
}

TEST_F(KprofProfile, ACandidateThatCrashesOnlyInItsCompileWorkerCostsOnlyItsCompileAhead) {
  const fs::path crashes = dir() / "crashes_ahead" / "kernel.py";
  fs::create_directories(crashes.parent_path());
  ASSERT_TRUE(write_file_atomic(crashes, R"(import os
import signal
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


def kernel_function(x, y):
    if "--compile-worker" in sys.argv:
        os.kill(os.getpid(), signal.SIGSEGV)
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    return out
)")
                  .ok());
  KprofRun run = run_batch({case_file("vector/problem.py"), case_file("positional/kernel.py"),
                            crashes.string(), case_file("positional/kernel.py")},
                           {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                            {"KPROF_COMPILE_AHEAD", "1"},
                            {"KPROF_FAKE_TRITON_LAUNCH_SECONDS", "0.3"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json batch = read_json(out() / "round000" / "batch.json");
  for (const auto& candidate : batch["candidates"]) {
    EXPECT_EQ(candidate["status"], "ok") << candidate.dump();
  }
  const std::string ahead =
      read_json(out() / "round000" / "cand1" / "report.json")["metadata"]["compiled_ahead"];
  EXPECT_TRUE(ahead == "not compiled ahead: its worker ended while compiling it" ||
              ahead == "not compiled ahead: no worker had started it")
      << ahead;
}

TEST_F(KprofProfile, ACandidateThatHangsInABatchCostsTheOthersNothingButTime) {
  // b.py hangs in the harness: the session's timeout stops ncu, which takes a.py's rows with it.
  // a.py is not "no kernel": it runs again with c.py, and both are ok; b.py is the timeout.
  const fs::path hangs = hanging_kernel();
  const auto started = std::chrono::steady_clock::now();
  KprofRun run =
      run_batch({case_file("vector/problem.py"), case_file("positional/kernel.py"), hangs.string(),
                 case_file("positional/kernel.py"), "--timeout", "2", "--retries", "0"},
                {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                 {"KPROF_COMPILE_AHEAD", "0"}});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_LT(seconds, 3 * 2.0 + 20.0);
  const json batch = read_json(out() / "round000" / "batch.json");
  ASSERT_EQ(batch["candidates"].size(), 3U);
  std::map<int, json> by_index;
  for (const auto& candidate : batch["candidates"]) {
    by_index[candidate["candidate"].get<int>()] = candidate;
  }
  EXPECT_EQ(by_index[0]["status"], "ok") << by_index[0].dump();
  EXPECT_EQ(by_index[1]["error"]["category"], "timeout") << by_index[1].dump();
  EXPECT_EQ(by_index[2]["status"], "ok") << by_index[2].dump();
  EXPECT_TRUE(fs::exists(out() / "round000" / "gpu0-part1")) << "a.py and c.py ran again";
  expect_no_process_left("the batch");
}

/// A pid no process has now (0 when none was found): a staging directory's dead owner.
pid_t unused_pid() {
  for (pid_t candidate = 4194000; candidate > 4000000; --candidate) {
    if (::kill(candidate, 0) != 0 && errno == ESRCH) {
      return candidate;
    }
  }
  return 0;
}

TEST_F(KprofProfile, RefusesAnOutputDirectoryOtherUsersCouldSwapAndRunsInOneSharedLikeTmp) {
  // ncu and the harness run from the round's staging directory under --out: under a directory
  // other users may write (without the sticky bit) they could rename it away and put their own
  // script in its place. Under a sticky one, as /tmp, they cannot.
  const fs::path open = dir() / "open";
  fs::create_directories(open);
  fs::permissions(open, fs::perms::all);
  KprofRun run = run_with_env({"profile", example("twostage/kernel.py"),
                               example("twostage/problem.py"), "--ncu", standin("ncu"), "--python",
                               "/usr/bin/python3", "--out", (open / "out").string()},
                              {});
  EXPECT_EQ(run.exit_code, 14) << run.err;
  EXPECT_NE(run.err.find(open.string() + " is writable by other users"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("it must be a directory only you (or root) can write"), std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(open / "out" / "round000")) << "nothing ran";
  EXPECT_TRUE(fs::is_empty(open / "out")) << "nothing is written there";
  KprofRun serve = run_with_env({"serve", example("twostage/problem.py"), "--ncu", standin("ncu"),
                                 "--out", (open / "out").string()},
                                {});
  EXPECT_EQ(serve.exit_code, 14) << serve.err;
  EXPECT_TRUE(fs::is_empty(open / "out")) << "kprof serve makes no socket there";

  fs::permissions(open, fs::perms::all | fs::perms::sticky_bit);
  run = run_with_env({"profile", example("twostage/kernel.py"), example("twostage/problem.py"),
                      "--ncu", standin("ncu"), "--python", "/usr/bin/python3", "--out",
                      (open / "out").string()},
                     {});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST_F(KprofProfile, LeftoverStagingDirectoriesOfDeadRunsAreRemoved) {
  const pid_t dead = unused_pid();
  ASSERT_NE(dead, 0);
  const fs::path leftover = out() / (".round003.staging-" + std::to_string(dead) + "-0badcafe");
  const fs::path alive = out() / (".round003.staging-" + std::to_string(::getpid()) + "-0badcafe");
  fs::create_directories(leftover / "cand0");
  fs::create_directories(alive);
  ASSERT_EQ(profile({example("twostage/kernel.py"), example("twostage/problem.py")}).exit_code, 0);
  EXPECT_FALSE(fs::exists(leftover)) << "the dead run's staging directory is cleaned up";
  EXPECT_TRUE(fs::exists(alive)) << "a live run's staging directory is left alone";
}

TEST_F(KprofProfile, AnotherUsersDirectoryNamedLikeADeadRunsStagingIsLeftAlone) {
  // In an output directory shared like /tmp, such a name is theirs to make; removing it as this
  // user (root) could be led through their links to files elsewhere.
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give the directory to uid 65534";
  }
  const pid_t dead = unused_pid();
  ASSERT_NE(dead, 0);
  const fs::path theirs = out() / (".round003.staging-" + std::to_string(dead) + "-0badcafe");
  fs::create_directories(theirs / "cand0");
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
  ASSERT_EQ(profile({example("twostage/kernel.py"), example("twostage/problem.py")}).exit_code, 0);
  EXPECT_TRUE(fs::exists(theirs / "cand0")) << "another user's directory is not removed";
}

TEST_F(KprofProfile, AMissingKernelIsInputNotFoundEvenWithoutNcu) {
  KprofRun run =
      run_kprof({"profile", (dir() / "missing.py").string(), example("twostage/problem.py"),
                 "--ncu", (dir() / "no-ncu").string(), "--out", out().string()},
                {{"PATH", "/usr/bin:/bin"}});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("missing.py"), std::string::npos) << run.err;
  KprofRun batch =
      run_kprof({"batch", example("twostage/problem.py"), (dir() / "missing.py").string(), "--ncu",
                 (dir() / "no-ncu").string(), "--out", out().string()});
  EXPECT_EQ(batch.exit_code, 3) << batch.err;
}

TEST_F(KprofProfile, AnNcuThatIsNotNsightComputeIsAnNcuError) {
  const fs::path liar = dir() / "liar-ncu";
  ASSERT_TRUE(write_file_atomic(liar, "#!/bin/sh\necho hello\n").ok());
  fs::permissions(liar, fs::perms::owner_all);
  for (const std::string& ncu : {std::string("/bin/true"), liar.string()}) {
    KprofRun run =
        run_kprof({"profile", example("twostage/kernel.py"), example("twostage/problem.py"),
                   "--ncu", ncu, "--out", out().string()});
    EXPECT_EQ(run.exit_code, 6) << ncu << ": " << run.err;
    EXPECT_NE(run.err.find("not Nsight Compute"), std::string::npos) << run.err;
  }
  KprofRun doctor = run_kprof({"doctor", "--ncu", "/bin/true"});
  EXPECT_NE(doctor.exit_code, 0) << doctor.out;
  EXPECT_NE(doctor.out.find("FAIL"), std::string::npos) << doctor.out;
}

TEST_F(KprofProfile, DoctorSaysEachFailureOnceAndNamesEveryCheckThatFailed) {
  const fs::path missing = dir() / "no-such-python";
  KprofRun doctor =
      run_kprof({"doctor", "--ncu", "/nonexistent/ncu", "--python", missing.string()});
  EXPECT_EQ(doctor.exit_code, 3) << doctor.out << doctor.err; // the first failure: python
  const std::string all = doctor.out + doctor.err;
  std::size_t mentions = 0;
  for (auto pos = all.find("/nonexistent/ncu"); pos != std::string::npos;
       pos = all.find("/nonexistent/ncu", pos + 1)) {
    ++mentions;
  }
  EXPECT_EQ(mentions, 1U) << all;
  EXPECT_EQ(doctor.err.find("kprof: error:"), std::string::npos) << doctor.err;
  EXPECT_EQ(doctor.out.find("the first failure"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("until the "), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("python, ncu"), std::string::npos) << doctor.out;
}

TEST_F(KprofProfile, DoctorUsesThePythonItIsGiven) {
  const fs::path missing = dir() / "no-such-python";
  KprofRun doctor = run_kprof({"doctor", "--ncu", standin("ncu"), "--python", missing.string()});
  EXPECT_NE(doctor.exit_code, 0) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find(missing.string()), std::string::npos) << doctor.out;

  const fs::path broken = dir() / "broken-python";
  ASSERT_TRUE(write_file_atomic(broken, "#!/bin/sh\nexit 1\n").ok());
  fs::permissions(broken, fs::perms::owner_all);
  doctor = run_kprof({"doctor", "--ncu", standin("ncu"), "--python", broken.string()});
  EXPECT_NE(doctor.exit_code, 0) << doctor.out;
  EXPECT_NE(doctor.out.find(broken.string()), std::string::npos) << doctor.out;
}

TEST_F(KprofProfile, InvalidUtf8InAKernelNameNeverCrashesProfileOrBatch) {
  auto text = read_file(m_twostage);
  ASSERT_TRUE(text.ok());
  std::string csv = *text;
  const std::string name = "scale_kernel";
  for (auto pos = csv.find(name); pos != std::string::npos; pos = csv.find(name, pos + 1)) {
    csv.replace(pos, name.size(), "scale_\xff\xfe_kernel");
  }
  const fs::path mangled = dir() / "mangled.csv";
  ASSERT_TRUE(write_file_atomic(mangled, csv).ok());
  KprofRun run = profile({example("twostage/kernel.py"), example("twostage/problem.py")},
                         {{"KPROF_FAKE_NCU_CSV", mangled.string()}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = read_json(out() / "round000" / "report.json");
  ASSERT_EQ(report["kernels"].size(), 2U);
  EXPECT_NE(report.dump().find("scale_\xef\xbf\xbd"), std::string::npos)
      << "invalid bytes become U+FFFD";
  EXPECT_TRUE(fs::exists(out() / "round000_ncu_metrics.json"));

  const std::vector<std::string> argv = {"batch",
                                         example("twostage/problem.py"),
                                         example("twostage/kernel.py"),
                                         "--ncu",
                                         standin("ncu"),
                                         "--python",
                                         "/usr/bin/python3",
                                         "--out",
                                         out().string(),
                                         "--format",
                                         "json",
                                         "--round",
                                         "1"};
  KprofRun batch = run_with_env(argv, {{"KPROF_FAKE_NCU_CSV", mangled.string()}});
  EXPECT_EQ(batch.exit_code, 0) << batch.err;
  json parsed;
  EXPECT_NO_THROW(parsed = json::parse(batch.out));
}

TEST_F(KprofProfile, AKernelPathThatIsNotUtf8IsRefusedClearlyNotACrash) {
  const fs::path kernel = dir() / "k\xff\xfe.py";
  fs::copy_file(example("twostage/kernel.py"), kernel);
  KprofRun run = profile({kernel.string(), example("twostage/problem.py")});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("UTF-8"), std::string::npos) << run.err;
  const std::vector<std::string> argv = {"batch",
                                         example("twostage/problem.py"),
                                         kernel.string(),
                                         "--ncu",
                                         standin("ncu"),
                                         "--python",
                                         "/usr/bin/python3",
                                         "--out",
                                         out().string()};
  EXPECT_EQ(run_with_env(argv, {}).exit_code, 2);
}

TEST_F(KprofProfile, ABatchUnderAHangingNcuEndsAtItsTimeoutAndLeavesNoProcessBehind) {
  // Two candidates: the first session starts the next harness beside it (prestart), under the
  // same hung ncu. The timeout must bound that standby too, not only the session.
  std::vector<std::string> argv = {"batch",
                                   example("twostage/problem.py"),
                                   example("twostage/kernel.py"),
                                   example("twostage/kernel.py"),
                                   "--timeout",
                                   "2",
                                   "--retries",
                                   "0"};
  const std::vector<std::string> options = standin_options();
  argv.insert(argv.end(), options.begin(), options.end());
  const auto started = std::chrono::steady_clock::now();
  KprofRun run =
      run_with_env(argv, {{"KPROF_FAKE_NCU_SCENARIO", "hang"}}, std::chrono::seconds(60));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(run.exit_code, 12) << run.err;
  EXPECT_LT(seconds, 60.0);
  const json batch = read_json(out() / "round000" / "batch.json");
  ASSERT_EQ(batch["candidates"].size(), 2U) << batch.dump();
  for (const auto& candidate : batch["candidates"]) {
    EXPECT_EQ(candidate["error"]["category"], "timeout") << candidate.dump();
  }
  const std::string needle = dir().string();
  const bool all_gone = eventually([&] { return processes_mentioning(needle).empty(); });
  for (pid_t left : processes_mentioning(needle)) {
    ::kill(left, SIGKILL); // do not leave them to the next test
  }
  EXPECT_TRUE(all_gone) << "a process of the batch outlived it";
}

TEST_F(KprofProfile, DoubleDashEndsTheOptionsSoAFileNamedLikeAnOptionCanBeProfiled) {
  fs::copy_file(example("twostage/kernel.py"), dir() / "-x.py");
  fs::copy_file(example("twostage/problem.py"), dir() / "-p.py");
  std::vector<std::string> profile = {"profile"};
  std::vector<std::string> options = standin_options();
  profile.insert(profile.end(), options.begin(), options.end());
  profile.insert(profile.end(), {"--", "-x.py", "-p.py"});
  KprofRun run = run_with_env(profile, {}, std::chrono::seconds(120), dir());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_json(out() / "round000" / "report.json")["metadata"]["kernel_file"],
            (dir() / "-x.py").string());

  std::vector<std::string> batch = {"batch", "--round", "1"};
  batch.insert(batch.end(), options.begin(), options.end());
  batch.insert(batch.end(), {"--", "-p.py", "-x.py"});
  run = run_with_env(batch, {}, std::chrono::seconds(120), dir());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_json(out() / "round001" / "batch.json")["candidates"][0]["kernel_file"],
            (dir() / "-x.py").string());

  // Without the `--`, the file is taken for an option and named as one.
  KprofRun refused = run_kprof({"profile", "-x.py", "-p.py"}, {}, std::chrono::seconds(30), dir());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
}

TEST_F(KprofProfile, AProblemOrKernelFileThatIsADirectoryIsSaidToBeOne) {
  const fs::path problem_dir = dir() / "problem_dir";
  fs::create_directories(problem_dir);
  fs::copy_file(example("twostage/problem.py"), problem_dir / "problem.py");
  KprofRun run = run_kprof({"profile", example("twostage/kernel.py"), problem_dir.string(), "--ncu",
                            (dir() / "no-ncu").string(), "--out", out().string()});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("the problem file " + problem_dir.string() +
                         " is a directory, not a file: did you mean " +
                         (problem_dir / "problem.py").string() + "?"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("not found"), std::string::npos) << run.err;

  const fs::path kernel_dir = dir() / "kernel_dir";
  fs::create_directories(kernel_dir);
  KprofRun batch = run_kprof({"batch", example("twostage/problem.py"),
                              example("twostage/kernel.py"), kernel_dir.string(), "--ncu",
                              (dir() / "no-ncu").string(), "--out", out().string()});
  EXPECT_EQ(batch.exit_code, 3) << batch.err;
  EXPECT_NE(batch.err.find("the kernel file " + kernel_dir.string() +
                           " is a directory, not a file: give the path of the kernel.py file "
                           "itself"),
            std::string::npos)
      << batch.err;
}

TEST_F(KprofProfile, DoctorWithAMissingPythonSaysSoFirstAndExitsWithInputNotFound) {
  // No --ncu and no nvidia-smi on PATH: the python the user named is still the first thing said.
  const std::string missing = (dir() / "nonexistent" / "python3").string();
  KprofRun doctor = run_kprof({"doctor", "--python", missing}, {{"PATH", "/usr/bin:/bin"}});
  EXPECT_EQ(doctor.exit_code, 3) << doctor.out << doctor.err;
  const std::string first_line = doctor.out.substr(0, doctor.out.find('\n'));
  EXPECT_EQ(first_line.rfind("python", 0), 0U) << doctor.out;
  EXPECT_NE(first_line.find("FAIL"), std::string::npos) << doctor.out;
  EXPECT_NE(first_line.find("python executable not found: " + missing + " (from --python)"),
            std::string::npos)
      << doctor.out;
  // Said once, in the table: not again as "kprof: error: ..." (issue 41).
  EXPECT_EQ(doctor.err.find("python executable not found"), std::string::npos) << doctor.err;
}

TEST_F(KprofProfile, AKernelThatEndsTheProcessWithOsExitZeroIsSaidToHaveExitedNotToLaunchNothing) {
  KprofRun run = profile({case_file("exits_in_call/kernel.py"), case_file("vector/problem.py")});
  EXPECT_EQ(run.exit_code, 18) << run.err;
  EXPECT_NE(run.err.find("the program exited (os._exit or sys.exit with code 0) during the "
                         "profiled call of " +
                         case_file("exits_in_call/kernel.py") +
                         ", before kprof's harness finished"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("no kernel"), std::string::npos) << run.err;
  const json error = read_json(out() / "round000" / "error.json");
  EXPECT_EQ(error["error"]["category"], "program_crashed");
  EXPECT_EQ(error["metadata"]["attempts"], 1) << "the same kernel exits again: no retry";
}

TEST_F(KprofProfile, AKernelThatDiesOfSigsegvIsTheProgramsCrashWithThePhaseAndTheLine) {
  KprofRun run = profile({case_file("segfault/kernel.py"), case_file("vector/problem.py")});
  EXPECT_EQ(run.exit_code, 18) << run.err;
  EXPECT_NE(run.err.find("the profiled program crashed with SIGSEGV during the warm-up calls of " +
                         case_file("segfault/kernel.py")),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("ncu failed"), std::string::npos) << run.err;
  // The harness's faulthandler put the Python stack into the detail: the line that crashed.
  EXPECT_NE(run.err.find("Fatal Python error: Segmentation fault"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("segfault/kernel.py\", line 7 in kernel_function"), std::string::npos)
      << run.err;
  const json error = read_json(out() / "round000" / "error.json");
  EXPECT_EQ(error["error"]["category"], "program_crashed");
  EXPECT_EQ(error["metadata"]["attempts"], 1);
}

// ---- Many launches (issue 42): the timeline outside ncu, representatives under it ----------

std::string many_launches_kernel() {
  return standin("../python/cases/many_launches/kernel.py");
}

bool has_word(const json& argv, std::string_view word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

TEST_F(KprofProfile, AModelsThousandsOfLaunchesAreAllTimedAndOnlyRepresentativesReplayed) {
  // --launches many: the timeline from the start, so the slow replays are the representatives'.
  KprofRun run = profile({many_launches_kernel(), example("vadd/problem.py"), "--launches", "many"},
                         {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                          {"KPROF_FAKE_STEPS", "3000"},
                          {"KPROF_FAKE_NCU_REPLAY_SECONDS", "0.7"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(out() / "round000" / "timeline.json"));
  const json report = read_json(out() / "round000" / "report.json");
  EXPECT_EQ(report["schema_version"], 4);
  ASSERT_TRUE(report.contains("workload")) << report.dump().substr(0, 400);
  const json& workload = report["workload"];
  EXPECT_EQ(workload["launches"], 6002);
  EXPECT_EQ(workload["distinct_kernels"], 4);
  EXPECT_EQ(workload["replayed"], 4);
  EXPECT_DOUBLE_EQ(workload["covered_share"].get<double>(), 1.0);
  EXPECT_EQ(report["kernels"].size(), 4U); // the representatives, not 6,002 launches
  const json& gemv = workload["kernels"][0];
  EXPECT_EQ(gemv["function"], "gemv_kernel");
  EXPECT_EQ(gemv["launches"], 3000);
  EXPECT_EQ(gemv["ops"], json::array({"aten::fake_op"}));
  EXPECT_EQ(gemv["summary"], "measured on launch 2 of 6,002; the 3,000 launches take 9.00 ms, "
                             "60% of the call's kernel time");
  const json& argv = report["metadata"]["ncu_argv"];
  EXPECT_TRUE(has_word(argv, "per-launch-config"));
  EXPECT_FALSE(has_word(argv, "--kernel-name"));
  // Progress goes to stderr with a terminal or without (an agent's pipe, a job's log): what
  // the timeline found and what is replayed ("ncu replaying ...: T s so far" follows every 5 s
  // of replay, so a loaded machine prints it too).
  EXPECT_NE(run.err.find("kprof: 6002 launches of 4 distinct kernels timed"), std::string::npos)
      << run.err;
  // Its 4 configurations fit the budget: the session started beside the timeline with one
  // launch per configuration was the plan, and went on (no second session after the timeline).
  EXPECT_NE(run.err.find("the session started beside the timeline with these filters goes on"),
            std::string::npos)
      << run.err;
}

TEST_F(KprofProfile, UnderTheReplayBudgetTheKernelsOfMostTimeAreKeptAndTheRestNamedAsLeftOut) {
  KprofRun run =
      profile({many_launches_kernel(), example("vadd/problem.py"), "--max-replayed", "2"},
              {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
               {"KPROF_FAKE_STEPS", "100"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = read_json(out() / "round000" / "report.json");
  const json& workload = report["workload"];
  EXPECT_EQ(workload["replayed"], 2);
  EXPECT_EQ(workload["left_out"]["kernels"], 2);
  EXPECT_NE(workload["left_out"]["note"].get<std::string>().find("--max-replayed, now 2"),
            std::string::npos);
  EXPECT_TRUE(has_word(report["metadata"]["ncu_argv"], "--kernel-name"));
  // The prompt says it, for the model that reads it, also when the round is read again.
  KprofRun prompt =
      run_kprof({"report", (out() / "round000" / "report.json").string(), "--format", "prompt"});
  ASSERT_EQ(prompt.exit_code, 0) << prompt.err;
  EXPECT_NE(prompt.out.find("Workload: 202 launches of 4 distinct kernels"), std::string::npos)
      << prompt.out;
  EXPECT_NE(prompt.out.find("not replayed (left out by the budget of 2 replays)"),
            std::string::npos)
      << prompt.out;
  // Its JSON, and a round recorded from it, keep the workload and the truth as the round wrote
  // them: the rows are analysed again, the timeline and the timed call are not made again.
  KprofRun again =
      run_kprof({"report", (out() / "round000" / "report.json").string(), "--format", "json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const json reanalysed = json::parse(again.out);
  EXPECT_EQ(reanalysed["workload"], workload);
  ASSERT_TRUE(report.contains("truth")) << report.dump().substr(0, 400);
  EXPECT_EQ(reanalysed["truth"], report["truth"]);
  KprofRun recorded = run_kprof({"report", (out() / "round000" / "report.json").string(), "--out",
                                 out().string(), "--round", "7", "--format", "json"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const json round7 = read_json(out() / "round007" / "report.json");
  EXPECT_EQ(round7["workload"], workload);
  EXPECT_EQ(round7["truth"], report["truth"]);
}

TEST_F(KprofProfile, UnderLaunchesAutoACallPastTheCapIsTimedThenReplayedInTwoTiers) {
  // 6,002 launches: the first session stops replaying at 34 (--launch-count), then the call is
  // timed alone outside ncu, and a second session replays the 4 representatives.
  KprofRun run = profile({many_launches_kernel(), example("vadd/problem.py")},
                         {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                          {"KPROF_FAKE_STEPS", "3000"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(out() / "round000" / "timeline.json"));
  EXPECT_FALSE(fs::exists(out() / "round000" / "timeline-gate")); // nothing waited for it
  EXPECT_FALSE(read_json(out() / "round000" / "plan.json").contains("timeline_gate"));
  const json report = read_json(out() / "round000" / "report.json");
  ASSERT_TRUE(report.contains("workload")) << report.dump().substr(0, 400);
  EXPECT_EQ(report["workload"]["launches"], 6002);
  EXPECT_EQ(report["workload"]["replayed"], 4);
  EXPECT_EQ(report["kernels"].size(), 4U);
  const json& argv = report["metadata"]["ncu_argv"];
  EXPECT_TRUE(has_word(argv, "per-launch-config"));
  const std::string note = report["metadata"]["timeline"].get<std::string>();
  EXPECT_EQ(note.find("6002 launches of 4 distinct"), 0U) << note;
  EXPECT_NE(note.find("and replayed 4"), std::string::npos) << note; // its rows, not ncu's lines
}

TEST_F(KprofProfile, UnderLaunchesAutoTheNextKprofOfTheSameOutDirTimesAManyLaunchCallFirst) {
  // An agent that runs `kprof profile` once per round. A problem nothing in the --out has
  // profiled yet is timed first (its call could be a model's); what the round finds is kept in
  // .cache/launches, and a problem known to make few launches gets the capped session, which
  // finds a call that has become long. The next kprof of the same --out reads that and times the
  // call first, until the problem's text changes or the file is not one kprof can trust (open to
  // other users' writes).
  const fs::path problem = dir() / "problem.py";
  fs::copy_file(example("vadd/problem.py"), problem);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
      {"KPROF_FAKE_STEPS", "3000"}};
  // Whether the round ran the capped session first.
  const auto round = [&](int number, const std::string& kernel) {
    KprofRun run = profile({kernel, problem.string(), "--round", std::to_string(number)}, env);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    if (kernel == many_launches_kernel()) {
      const json report = read_json(out() / RoundLayout::round_name(number) / "report.json");
      EXPECT_EQ(report["workload"]["launches"], 6002) << report.dump().substr(0, 400);
    }
    return run.err.find("went on past 34 replayed launches") != std::string::npos;
  };
  const std::string few = example("vadd/kernel.py");
  EXPECT_FALSE(round(1, few)); // unknown: timed first, found few
  const fs::path memory = out() / ".cache" / "launches";
  ASSERT_TRUE(fs::is_directory(memory));
  EXPECT_EQ(fs::status(memory).permissions() & (fs::perms::group_all | fs::perms::others_all),
            fs::perms::none);
  EXPECT_TRUE(round(2, many_launches_kernel()));  // known few: capped, found long
  EXPECT_FALSE(round(3, many_launches_kernel())); // known many: timed first
  {
    std::ofstream edit(problem, std::ios::app);
    edit << "\n# edited\n";
  }
  EXPECT_FALSE(round(4, few)); // a changed problem is unknown again: timed first, found few
  for (const auto& entry : fs::directory_iterator(memory)) {
    fs::permissions(entry.path(), fs::perms::group_write | fs::perms::others_write,
                    std::filesystem::perm_options::add);
  }
  // A file others may write is not read: the problem is unknown, timed first (read, its "few"
  // would have capped the session).
  EXPECT_FALSE(round(5, many_launches_kernel()));
}

TEST_F(KprofProfile,
       ARoundOfAModelWhosePlanIsTheLastRoundsReplaysInTheSessionStartedBesideItsTimeline) {
  // A model's later rounds: the session starts beside the timeline with the filters its last
  // round replayed with (kept in .cache/launches) and goes on when the timeline's plan asks the
  // same, so no second session starts after the timeline; a plan that differs (here a smaller
  // budget) stops it and replays its own representatives, as a first round does.
  const std::vector<std::pair<std::string, std::string>> env = {
      {"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
      {"KPROF_FAKE_STEPS", "3000"}};
  const auto round = [&](int number, const std::string& budget) {
    KprofRun run = profile({many_launches_kernel(), example("vadd/problem.py"), "--launches",
                            "many", "--max-replayed", budget, "--round", std::to_string(number)},
                           env);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const json report = read_json(out() / RoundLayout::round_name(number) / "report.json");
    EXPECT_EQ(report["workload"]["launches"], 6002) << report.dump().substr(0, 400);
    EXPECT_EQ(report["workload"]["replayed"], std::stoi(budget));
    EXPECT_EQ(report["kernels"].size(), static_cast<std::size_t>(std::stoi(budget)));
    EXPECT_TRUE(has_word(report["metadata"]["ncu_argv"], "--kernel-name"));
    return run.err;
  };
  const std::string goes_on = "the session started beside the timeline with these filters goes on";
  EXPECT_EQ(round(0, "2").find(goes_on), std::string::npos); // nothing remembered yet
  std::string second = round(1, "2");
  EXPECT_NE(second.find(goes_on), std::string::npos) << second;
  EXPECT_EQ(round(2, "3").find(goes_on), std::string::npos); // another plan: a session of its own
  second = round(3, "3");
  EXPECT_NE(second.find(goes_on), std::string::npos) << second;
  // The same replayed launches either way.
  EXPECT_EQ(read_json(out() / "round003" / "report.json")["workload"]["kernels"].dump(),
            read_json(out() / "round002" / "report.json")["workload"]["kernels"].dump());
  // The problem's call of few launches now (another candidate): its session, started with the
  // filters, would replay some of them; a session without filters replays every launch.
  KprofRun few = profile(
      {example("vadd/kernel.py"), example("vadd/problem.py"), "--launches", "many", "--round", "4"},
      env);
  ASSERT_EQ(few.exit_code, 0) << few.err;
  const json argv = read_json(out() / "round004" / "report.json")["metadata"]["ncu_argv"];
  EXPECT_FALSE(has_word(argv, "--kernel-name")) << argv.dump();
  EXPECT_FALSE(has_word(argv, "per-launch-config")) << argv.dump();
}

TEST_F(KprofProfile, ABatchOfAManyLaunchProblemProfilesEachCandidateInItsOwnTimedSession) {
  // A batch of a model's candidates: one session would replay every launch of each (6,002
  // here). Once the problem is known to make many launches (a first round found it, or
  // --launches many), each candidate gets a session of its own, timed first and replayed in
  // representatives; a problem of few launches keeps the one session.
  const fs::path problem = dir() / "problem.py";
  fs::copy_file(example("vadd/problem.py"), problem);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
      {"KPROF_FAKE_STEPS", "3000"}};
  const auto batch = [&](int number, std::vector<std::string> more = {}) {
    std::vector<std::string> argv = {"batch",
                                     problem.string(),
                                     many_launches_kernel(),
                                     many_launches_kernel(),
                                     "--ncu",
                                     standin("ncu"),
                                     "--python",
                                     "/usr/bin/python3",
                                     "--out",
                                     out().string(),
                                     "--format",
                                     "json",
                                     "--retries",
                                     "1",
                                     "--round",
                                     std::to_string(number)};
    argv.insert(argv.end(), more.begin(), more.end());
    return run_with_env(argv, env);
  };
  const auto launches_timed = [&](int number, int candidate) {
    const json report = read_json(out() / RoundLayout::round_name(number) /
                                  ("cand" + std::to_string(candidate)) / "report.json");
    return report.contains("workload") ? report["workload"]["launches"].get<int>() : 0;
  };
  KprofRun first = batch(1, {"--launches", "many"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("profiled one per session, each timed first"), std::string::npos)
      << first.err;
  EXPECT_EQ(launches_timed(1, 0), 6002);
  EXPECT_EQ(launches_timed(1, 1), 6002);

  // Under auto, a kprof profile of the problem teaches the out dir that its call is long.
  KprofRun learn = profile({many_launches_kernel(), problem.string(), "--round", "2"}, env);
  ASSERT_EQ(learn.exit_code, 0) << learn.err;
  KprofRun known = batch(3);
  ASSERT_EQ(known.exit_code, 0) << known.err;
  EXPECT_NE(known.err.find("profiled one per session"), std::string::npos) << known.err;
  EXPECT_EQ(launches_timed(3, 0), 6002);
  EXPECT_EQ(launches_timed(3, 1), 6002);
}

TEST_F(KprofProfile, UnderLaunchesAutoACallOfFewLaunchesIsReplayedWholeInOneSessionNoTimeline) {
  // The usual candidate, once its problem is known to make few launches (the first round of a
  // problem is timed first, and goes on in its session: the next test): one session, every
  // launch replayed, no timeline process (the cap was not reached), so it costs what
  // --launches all costs.
  const std::vector<std::pair<std::string, std::string>> env = {
      {"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")}, {"KPROF_FAKE_STEPS", "2"}};
  KprofRun first = profile({many_launches_kernel(), example("vadd/problem.py")}, env);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(fs::exists(out() / "round000" / "timeline.json")); // unknown: timed first
  KprofRun run = profile({many_launches_kernel(), example("vadd/problem.py"), "--round", "1"}, env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = read_json(out() / "round001" / "report.json");
  EXPECT_FALSE(report.contains("workload"));
  const json& argv = report["metadata"]["ncu_argv"];
  EXPECT_FALSE(has_word(argv, "--filter-mode"));
  const auto count = std::find(argv.begin(), argv.end(), "--launch-count");
  ASSERT_NE(count, argv.end()) << argv;
  EXPECT_EQ(*std::next(count), std::to_string(k_auto_launch_cap));
  EXPECT_FALSE(fs::exists(out() / "round001" / "timeline.json"));
  EXPECT_FALSE(report["metadata"].contains("timeline")) << report["metadata"];
}

TEST_F(KprofProfile, AFirstRoundWhoseTimelineFailsIsCappedNotReplayedWhole) {
  // A problem nothing is known of is timed first; when its timeline cannot be made, the gated
  // session (no cap) is stopped and the call capped, as before the timeline came first: a
  // model's first round never replays every launch of its call.
  KprofRun run = profile({many_launches_kernel(), example("vadd/problem.py")},
                         {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                          {"KPROF_FAKE_STEPS", "3000"},
                          {"KPROF_FAKE_PROFILER_FAILS", "1"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = read_json(out() / "round000" / "report.json");
  const json& argv = report["metadata"]["ncu_argv"];
  const auto count = std::find(argv.begin(), argv.end(), "--launch-count");
  ASSERT_NE(count, argv.end()) << argv;
  EXPECT_EQ(*std::next(count), std::to_string(k_auto_launch_cap));
  const std::string note = report["metadata"]["timeline"].get<std::string>();
  EXPECT_NE(note.find("the timeline could not be made"), std::string::npos) << note;
  EXPECT_NE(note.find("CUPTI could not be initialized"), std::string::npos) << note;
}

TEST_F(KprofProfile, UnderLaunchesManyACallOfFewLaunchesIsReplayedWhole) {
  // The session starts beside the timeline with one launch per configuration (a model's plan
  // when its configurations fit the budget). A call of few launches, each its own configuration,
  // lets it go on: it replays every launch.
  KprofRun single = profile({example("vadd/kernel.py"), example("vadd/problem.py"), "--launches",
                             "many", "--round", "1"});
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const json one = read_json(out() / "round001" / "report.json");
  EXPECT_FALSE(one.contains("workload"));
  EXPECT_TRUE(has_word(one["metadata"]["ncu_argv"], "per-launch-config"));
  EXPECT_TRUE(fs::exists(out() / "round001" / "timeline-gate"));
  // A call of few launches, some of one configuration: those filters would replay one of them,
  // so that session stops and one without filters replays every launch.
  KprofRun run = profile(
      {many_launches_kernel(), example("vadd/problem.py"), "--launches", "many"},
      {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")}, {"KPROF_FAKE_STEPS", "2"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = read_json(out() / "round000" / "report.json");
  EXPECT_FALSE(report.contains("workload"));
  EXPECT_FALSE(has_word(report["metadata"]["ncu_argv"], "--filter-mode"));
  EXPECT_FALSE(has_word(report["metadata"]["ncu_argv"], "--launch-count"));
  EXPECT_TRUE(fs::exists(out() / "round000" / "timeline.json"));
}

TEST_F(KprofProfile, LaunchesAllMakesNoTimelineAndReplaysEveryLaunch) {
  KprofRun run = profile({many_launches_kernel(), example("vadd/problem.py"), "--launches", "all"},
                         {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                          {"KPROF_FAKE_STEPS", "100"}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(fs::exists(out() / "round000" / "timeline.json"));
  EXPECT_FALSE(read_json(out() / "round000" / "plan.json").contains("timeline_gate"));
  EXPECT_FALSE(read_json(out() / "round000" / "report.json").contains("workload"));
}

TEST_F(KprofProfile, ATimelineThatFailsCostsNothingButTheReasonTheSessionGoesOnWhole) {
  // The candidate raises in its call: the timeline holds the error; the session judges it.
  KprofRun run =
      profile({example("failures/raises.py"), example("vadd/problem.py"), "--launches", "many"});
  EXPECT_NE(run.exit_code, 0);
  const json timeline = read_json(out() / "round000" / "timeline.json");
  EXPECT_TRUE(timeline.contains("error")) << timeline.dump();
}

TEST_F(KprofProfile, AReplaySessionCutShortKeepsTheTimelineAndSaysSoInTheCandidatesError) {
  const std::vector<std::string> argv = {"profile",
                                         many_launches_kernel(),
                                         example("vadd/problem.py"),
                                         "--ncu",
                                         standin("ncu"),
                                         "--python",
                                         "/usr/bin/python3",
                                         "--out",
                                         (dir() / "out").string(),
                                         "--format",
                                         "json",
                                         "--retries",
                                         "0",
                                         "--timeout",
                                         "6",
                                         "--launches",
                                         "many"};
  KprofRun run =
      run_with_env(argv, {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
                          {"KPROF_FAKE_STEPS", "100"},
                          {"KPROF_FAKE_NCU_REPLAY_SECONDS", "4"}});
  EXPECT_NE(run.exit_code, 0) << run.err;
  const fs::path round = out() / "round000";
  ASSERT_TRUE(fs::exists(round / "error.json")) << run.err;
  EXPECT_TRUE(fs::exists(round / "timeline.json"));
  const json error = read_json(round / "error.json");
  const std::string note = error["metadata"]["timeline"].get<std::string>();
  EXPECT_NE(note.find("202 launches of 4 distinct kernels timed outside ncu (timeline.json)"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("this round holds the timeline, not metrics"), std::string::npos) << note;
}

// ---- kprof model (issue 42 item 3): a problem's Model as the candidate -------------------------

/// `kprof model PROBLEM --out OUT EXTRA...` against the stand-ins.
std::vector<std::string> model_argv(const std::filesystem::path& out, const std::string& problem,
                                    std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {
      "model",      problem,     "--ncu", standin("ncu"), "--python", "/usr/bin/python3", "--out",
      out.string(), "--retries", "0"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

std::vector<std::pair<std::string, std::string>> model_env() {
  return {{"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
          {"KPROF_FAKE_STEPS", "100"}};
}

TEST_F(KprofProfile, AModelIsProfiledWholeAndItsKernelsRankedByTheirShareOfTheCall) {
  const std::string problem = standin("../python/cases/model/problem.py");
  KprofRun run = run_with_env(model_argv(out(), problem, {"--format", "json"}), model_env());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const fs::path candidate = out() / "model" / "kernel.py";
  ASSERT_TRUE(fs::exists(candidate));
  const json report = read_json(out() / "round000" / "report.json");
  EXPECT_EQ(report["metadata"]["kernel_file"], candidate.string());
  ASSERT_TRUE(report.contains("workload")) << report.dump().substr(0, 400);
  EXPECT_EQ(report["workload"]["launches"], 201);
  EXPECT_EQ(report["workload"]["kernels"][0]["function"], "gemv_kernel");
  // No check: the candidate is the reference; its time and the speed of light are kept.
  EXPECT_TRUE(report["truth"]["check"].is_null()) << report["truth"].dump();
  EXPECT_TRUE(report["truth"]["timing"].is_object()) << report["truth"].dump();
  // The Model is built and timed once, as the reference, not a second time as the candidate.
  EXPECT_EQ(report["truth"]["reference"]["same_as_candidate"], true) << report["truth"].dump();
  EXPECT_TRUE(report["truth"]["reference"]["timing"].is_null());
  EXPECT_TRUE(report["truth"]["reference"]["speedup"].is_null());
  EXPECT_GT(report["truth"]["timing"]["median_us"].get<double>(), 0);
  KprofRun table =
      run_kprof({"report", (out() / "round000" / "report.json").string(), "--format", "table"});
  EXPECT_NE(table.out.find("the PyTorch reference is this Model itself (timed once)"),
            std::string::npos)
      << table.out;
  KprofRun prompt =
      run_kprof({"report", (out() / "round000" / "report.json").string(), "--format", "prompt"});
  ASSERT_EQ(prompt.exit_code, 0) << prompt.err;
  EXPECT_NE(prompt.out.find("Optimize first, by share of the call's kernel time: gemv_kernel "
                            "(59%), cell_kernel (40%), gemm_kernel (1%)."),
            std::string::npos)
      << prompt.out;
}

TEST_F(KprofProfile, AModelThroughTorchCompileAndAProblemWithoutModelSayWhatTheyDid) {
  KprofRun compiled =
      run_with_env(model_argv(out(), standin("../python/cases/model/problem.py"),
                              {"--compile", "--launches", "all", "--format", "json"}),
                   model_env());
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  auto candidate = read_file(out() / "model" / "kernel.py");
  ASSERT_TRUE(candidate.ok());
  EXPECT_NE(candidate->find("torch.compile(_model)"), std::string::npos) << *candidate;
  // Compiled, it is not the reference: both are timed, and the speed-up is compile's.
  const json compiled_truth = read_json(out() / "round000" / "report.json")["truth"];
  EXPECT_FALSE(compiled_truth["reference"].contains("same_as_candidate")) << compiled_truth.dump();
  EXPECT_TRUE(compiled_truth["reference"]["timing"].is_object()) << compiled_truth.dump();
  // --launches as given (all: every launch replayed, no timeline), not model's default (many).
  EXPECT_FALSE(fs::exists(out() / "round000" / "timeline.json"));
  EXPECT_FALSE(read_json(out() / "round000" / "report.json").contains("workload"));
  // A problem without Model: the candidate cannot build it, a classified failure, never a hang.
  KprofRun missing =
      run_with_env(model_argv(dir() / "other", standin("../python/cases/cpu_only/problem.py"),
                              {"--format", "json"}),
                   model_env());
  EXPECT_NE(missing.exit_code, 0) << missing.err;
  EXPECT_NE(missing.err.find("Model"), std::string::npos) << missing.err;
  EXPECT_EQ(run_with_env(model_argv(out(), (dir() / "absent.py").string()), model_env()).exit_code,
            3);
}

TEST_F(KprofProfile, ACandidateIsTakenForTheModelItselfOnlyWhenItIsKprofModelsTextExactly) {
  // What a candidate says of itself is never trusted: one that would be taken for the reference
  // gets the reference's timing and no check. kprof model's own text, edited by one line, is
  // checked and timed as any candidate.
  const std::string problem = standin("../python/cases/model/problem.py");
  ASSERT_EQ(run_with_env(model_argv(out(), problem, {"--format", "json"}), model_env()).exit_code,
            0);
  auto text = read_file(out() / "model" / "kernel.py");
  ASSERT_TRUE(text.ok());
  const fs::path edited = dir() / "edited" / "kernel.py";
  fs::create_directories(edited.parent_path());
  std::ofstream(edited) << *text << "\nKPROF_REFERENCE_ITSELF = PROBLEM  # an edit\n";
  KprofRun run =
      run_with_env({"profile", edited.string(), problem, "--ncu", standin("ncu"), "--python",
                    "/usr/bin/python3", "--out", (dir() / "edited-out").string(), "--retries", "0",
                    "--launches", "many", "--format", "json"},
                   model_env());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json truth = read_json(dir() / "edited-out" / "round000" / "report.json")["truth"];
  EXPECT_EQ(truth["check"]["verdict"], "pass") << truth.dump();
  EXPECT_FALSE(truth["reference"].contains("same_as_candidate")) << truth.dump();
  EXPECT_TRUE(truth["reference"]["timing"].is_object()) << truth.dump();
}

TEST_F(KprofProfile, AModelsCostliestTritonKernelsAreExtractedAsCasesThatKprofProfileTakes) {
  const std::string problem = standin("../python/cases/model/problem.py");
  const fs::path cases = dir() / "cases";
  KprofRun run = run_with_env(
      model_argv(out(), problem,
                 {"--format", "json", "--extract", cases.string(), "--extract-top", "2"}),
      model_env());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The two costliest of the call's timeline (gemv 59%, cell 40%), each a case and a command.
  const fs::path gemv = cases / "gemv_kernel";
  EXPECT_NE(run.err.find("extracted gemv_kernel (59% of the call's kernel time): kprof profile " +
                         (gemv / "kernel.py").string() + " " + (gemv / "problem.py").string()),
            std::string::npos)
      << run.err;
  const json extracted = read_json(cases / "extracted.json");
  ASSERT_EQ(extracted["kernels"].size(), 2U) << extracted.dump();
  EXPECT_EQ(extracted["kernels"][1]["name"], "cell_kernel");
  EXPECT_EQ(extracted["kernels"][1]["extracted"], true);
  EXPECT_FALSE(fs::exists(cases / "gemm_kernel")); // the third: not among the top two
  // The case as it is, profiled by kprof profile: its reference is the kernel as extracted.
  KprofRun profiled =
      run_with_env({"profile", (gemv / "kernel.py").string(), (gemv / "problem.py").string(),
                    "--ncu", standin("ncu"), "--python", "/usr/bin/python3", "--out",
                    (dir() / "case-out").string(), "--retries", "0", "--format", "json"},
                   model_env());
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  const json report = read_json(dir() / "case-out" / "round000" / "report.json");
  EXPECT_EQ(report["truth"]["check"]["verdict"], "pass") << report["truth"].dump();
}

TEST_F(KprofProfile, ExtractingIntoADirectoryOthersCanWriteIsRefusedWithTheModelsRoundKept) {
  // Another user could swap the cases' files there for code of theirs, which kprof profile runs.
  const fs::path open_dir = dir() / "open";
  fs::create_directories(open_dir);
  fs::permissions(open_dir, fs::perms::all);
  KprofRun run = run_with_env(model_argv(out(), standin("../python/cases/model/problem.py"),
                                         {"--format", "json", "--extract", open_dir.string()}),
                              model_env());
  EXPECT_EQ(run.exit_code, 14) << run.err; // io
  EXPECT_NE(run.err.find(open_dir.string()), std::string::npos) << run.err;
  EXPECT_TRUE(fs::exists(out() / "round000" / "report.json")); // the model's round stands
  EXPECT_FALSE(fs::exists(open_dir / "gemv_kernel"));
}

TEST_F(KprofProfile, LaunchesRefusesAnUnknownWordNamingTheValidOnes) {
  KprofRun run =
      profile({example("vadd/kernel.py"), example("vadd/problem.py"), "--launches", "some"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("auto, many, all"), std::string::npos) << run.err;
}

} // namespace
} // namespace kprof::e2e

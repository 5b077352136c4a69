// kprof on a shared host: what it prints can be trusted by a terminal or a log, and the read-only
// commands read a history they cannot (or must not) write.
//
// - stderr: messages and their details (a file name, ncu's log, a traceback) come out with their
//   control characters as `\xNN`, never raw;
// - `kprof history` (every format, --converged) and `kprof diff DIR A B` read a history in a
//   directory of another user, with a live or a dead writer's -wal/-shm that the reader cannot
//   write, on a read-only mount, or with a -wal whose -shm is gone, and leave no file behind;
// - `kprof history` lists a round that was committed to its directory but whose row is not in
//   kprof.db (its writer was killed in between) as not recorded yet, writing nothing.
//
// The tests that read as another user run as uid 65534 (setpriv), so they need root; they say
// skipped otherwise.
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "e2e/e2e_support.hpp"
#include "kprof/history.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/strings.hpp"

namespace kprof::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int k_input_not_found = 3;

/// The first raw control byte of `text` (C0 but '\n' and '\t', DEL, a UTF-8 encoded C1, a byte
/// that is not UTF-8), as "offset N: byte B"; "" when there is none.
std::string first_raw_control(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 =
        byte == 0xC2U && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9FU;
    if ((byte < 0x20U && byte != '\n' && byte != '\t') || byte == 0x7FU || c1) {
      return "offset " + std::to_string(i) + ": byte " + std::to_string(byte);
    }
  }
  return is_printable(text, Multiline::yes) ? "" : "a byte that is not UTF-8";
}

std::string standin(const std::string& name) {
  return std::string(KPROF_STANDINS_DIR) + "/" + name;
}

// ---- stderr ---------------------------------------------------------------------------------

class PrintableStderr : public E2eTest {};

TEST_F(PrintableStderr, AMissingFileWhoseNameHoldsControlCharactersIsNamedEscaped) {
  const std::string name = "capture\x1b[2J\x1b]0;owned\x07\xc2\x9b\xff.csv";
  KprofRun run = run_kprof({"report", (dir() / name).string()});
  EXPECT_EQ(run.exit_code, k_input_not_found) << run.err;
  EXPECT_EQ(first_raw_control(run.err), "") << run.err;
  EXPECT_NE(run.err.find("capture\\x1b[2J\\x1b]0;owned\\x07\\x9b\\xff.csv"), std::string::npos)
      << run.err;
}

TEST_F(PrintableStderr, AnUnknownOptionWithControlCharactersIsQuotedEscaped) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_vadd.csv"), "--\x1b[2Jbogus"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(first_raw_control(run.err), "") << run.err;
  EXPECT_NE(run.err.find("--\\x1b[2Jbogus"), std::string::npos) << run.err;
}

/// `kprof profile` with the stand-in ncu and the fake torch (tests/standins).
KprofRun profile_with_standins(const fs::path& dir, const fs::path& kernel,
                               std::vector<std::pair<std::string, std::string>> env = {}) {
  env.emplace_back("PYTHONPATH", standin("fake_torch"));
  env.emplace_back("KPROF_LOCK_DIR", (dir / "locks").string());
  env.emplace_back("XDG_CACHE_HOME", (dir / "cache").string());
  return run_kprof({"profile", kernel.string(),
                    std::string(KPROF_EXAMPLES_DIR) + "/twostage/problem.py", "--ncu",
                    standin("ncu"), "--python", "/usr/bin/python3", "--out", (dir / "out").string(),
                    "--format", "json", "--retries", "0"},
                   env);
}

TEST_F(PrintableStderr, AKernelsTracebackReachesStderrEscaped) {
  const fs::path kernel = dir() / "kernel.py";
  ASSERT_TRUE(write_file_atomic(kernel, "def kernel_function(*args, **kwargs):\n"
                                        "    raise RuntimeError('boom \\x1b[2J\\x1b]0;owned\\x07"
                                        "\\x9b31m')\n")
                  .ok());
  KprofRun run = profile_with_standins(dir(), kernel);
  EXPECT_EQ(run.exit_code, 10) << run.err; // kernel_raised
  EXPECT_NE(run.err.find("Traceback"), std::string::npos) << run.err;
  EXPECT_EQ(first_raw_control(run.err), "") << run.err;
  EXPECT_NE(run.err.find("boom \\x1b[2J\\x1b]0;owned\\x07\\x9b31m"), std::string::npos) << run.err;
}

TEST_F(PrintableStderr, ABinaryNcuLogReachesStderrEscapedNotByteForByte) {
  KprofRun run =
      profile_with_standins(dir(), std::string(KPROF_EXAMPLES_DIR) + "/twostage/kernel.py",
                            {{"KPROF_FAKE_NCU_SCENARIO", "binary_log"}});
  EXPECT_NE(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("==ERROR== "), std::string::npos) << "the log tail is shown: " << run.err;
  EXPECT_EQ(first_raw_control(run.err), "") << run.err;
  EXPECT_NE(run.err.find("\\x1b[2J\\x1b]0;owned\\x07\\x00\\x9b\\xff\\xfe"), std::string::npos)
      << run.err;
}

// ---- the Triton cache ------------------------------------------------------------------------

/// A kernel.py that writes the TRITON_CACHE_DIR its harness was given into `seen`.
fs::path kernel_that_reports_its_triton_cache(const fs::path& dir, const fs::path& seen) {
  const fs::path kernel = dir / "kernel.py";
  EXPECT_TRUE(write_file_atomic(kernel, "import os\n\n\ndef kernel_function(*args, **kwargs):\n"
                                        "    with open(" +
                                            json(seen.string()).dump() +
                                            ", 'w') as f:\n"
                                            "        f.write(os.environ.get('TRITON_CACHE_DIR', "
                                            "'<unset>'))\n"
                                            "    return args[0]\n")
                  .ok());
  return kernel;
}

class SharedTritonCache : public E2eTest {};

TEST_F(SharedTritonCache, TheHarnessGetsKprofsCacheOnlyWhenNoOtherUserCanWriteIt) {
  // Triton loads kernels and its launcher's shared library from its cache. The cache home here is
  // shared like /tmp (sticky, world-writable) and uid 65534 made kprof/triton in it first: the
  // harness must not be pointed there (Triton then keeps its own default).
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root, to make the cache as uid 65534 (setpriv)";
  }
  fs::permissions(dir(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  const fs::path cache = dir() / "cache";
  fs::create_directories(cache);
  fs::permissions(cache, fs::perms::all | fs::perms::sticky_bit);
  ProcessSpec plant;
  plant.argv = {"setpriv", "--reuid", "65534",
                "--regid", "65534",   "--clear-groups",
                "mkdir",   "-p",      (cache / "kprof" / "triton").string()};
  auto planted = run_process(plant);
  ASSERT_TRUE(planted.ok() && planted->exit_code == 0)
      << (planted.ok() ? planted->err : planted.error().message);
  const fs::path seen = dir() / "seen.txt";
  KprofRun run = profile_with_standins(dir(), kernel_that_reports_its_triton_cache(dir(), seen));
  ASSERT_TRUE(fs::exists(seen)) << run.err;
  EXPECT_EQ(read_file(seen).value(), "<unset>");

  // The same run with kprof/ made by this user: the harness gets it, made 0700.
  fs::remove_all(cache / "kprof");
  fs::remove(seen);
  run = profile_with_standins(dir(), kernel_that_reports_its_triton_cache(dir(), seen));
  ASSERT_TRUE(fs::exists(seen)) << run.err;
  EXPECT_EQ(read_file(seen).value(), (cache / "kprof" / "triton").string());
  EXPECT_EQ(fs::status(cache / "kprof" / "triton").permissions(), fs::perms::owner_all);
}

// ---- the GPU lock directory ------------------------------------------------------------------

/// `kprof profile` with the stand-ins and `KPROF_LOCK_DIR=locks`, limited to `timeout_seconds`.
KprofRun profile_with_lock_dir(const fs::path& dir, const fs::path& locks,
                               const std::string& timeout_seconds = "60") {
  return run_kprof({"profile", std::string(KPROF_EXAMPLES_DIR) + "/twostage/kernel.py",
                    std::string(KPROF_EXAMPLES_DIR) + "/twostage/problem.py", "--ncu",
                    standin("ncu"), "--python", "/usr/bin/python3", "--out", (dir / "out").string(),
                    "--format", "json", "--retries", "0", "--timeout", timeout_seconds},
                   {{"PYTHONPATH", standin("fake_torch")},
                    {"KPROF_LOCK_DIR", locks.string()},
                    {"XDG_CACHE_HOME", (dir / "cache").string()}},
                   std::chrono::seconds(120));
}

/// Runs `argv` as uid 65534 (setpriv); its exit code, or -1 with the reason in `why`.
int run_as_nobody(std::vector<std::string> argv, std::string& why) {
  ProcessSpec spec;
  spec.argv = {"setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"};
  spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
  auto done = run_process(spec);
  if (!done.ok()) {
    why = done.error().message;
    return -1;
  }
  why = done->err;
  return done->exit_code;
}

class HostileLockDirectory : public E2eTest {
protected:
  void SetUp() override {
    E2eTest::SetUp();
    if (::geteuid() != 0) {
      GTEST_SKIP() << "needs root, to plant the lock directory as uid 65534 (setpriv)";
    }
    // The test's directory stands in for /tmp: root's, sticky, writable by every user.
    fs::permissions(dir(), fs::perms::all | fs::perms::sticky_bit);
  }
};

TEST_F(HostileLockDirectory, RootsProfileRefusesADirectoryAnotherUserMadeAndCreatesNothingThrough) {
  // The issue's local root: uid 65534 makes the lock directory first and plants dangling links
  // to a file root would then create with mode 0666 (the system's /etc/ld.so.preload).
  const fs::path locks = dir() / "kprof-locks";
  const fs::path preload = dir() / "ld.so.preload";
  std::string why;
  ASSERT_EQ(run_as_nobody({"mkdir", "-m", "0755", locks.string()}, why), 0) << why;
  for (const char* name : {"gpu0.lock", "profiled-calls.lock"}) {
    ASSERT_EQ(run_as_nobody({"ln", "-s", preload.string(), (locks / name).string()}, why), 0)
        << why;
  }
  KprofRun run = profile_with_lock_dir(dir(), locks);
  EXPECT_EQ(run.exit_code, 14) << run.err; // io
  EXPECT_NE(run.err.find("GPU lock directory " + locks.string() + " refused"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("belongs to uid 65534"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("KPROF_LOCK_DIR"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(preload));
}

TEST_F(HostileLockDirectory, RootsModelRefusesAnOutDirectoryAnotherUserMadeAndWritesNoCandidate) {
  // kprof model writes its candidate (<out>/model/kernel.py) before the round: uid 65534 makes
  // --out first and plants `model` as a link to a directory root would then write into.
  const fs::path out = dir() / "out";
  const fs::path target = dir() / "target";
  fs::create_directories(target);
  std::string why;
  ASSERT_EQ(run_as_nobody({"mkdir", "-m", "0755", out.string()}, why), 0) << why;
  ASSERT_EQ(run_as_nobody({"ln", "-s", target.string(), (out / "model").string()}, why), 0) << why;
  KprofRun run = run_kprof(
      {"model", std::string(KPROF_STANDINS_DIR) + "/../python/cases/model/problem.py", "--ncu",
       standin("ncu"), "--python", "/usr/bin/python3", "--out", out.string(), "--format", "json"},
      {{"PYTHONPATH", standin("fake_torch")}, {"KPROF_LOCK_DIR", (dir() / "locks").string()}});
  EXPECT_EQ(run.exit_code, 14) << run.err; // io
  EXPECT_NE(run.err.find("belongs to uid 65534"), std::string::npos) << run.err;
  EXPECT_TRUE(fs::is_empty(target));
}

TEST_F(HostileLockDirectory, RootsModelExtractRefusesACasesDirectoryAnotherUserMade) {
  // The cases are code kprof profile runs later: uid 65534 makes --extract's directory first
  // (0755, theirs), where they could swap a case's kernel.py for their own.
  const fs::path cases = dir() / "cases";
  std::string why;
  ASSERT_EQ(run_as_nobody({"mkdir", "-m", "0755", cases.string()}, why), 0) << why;
  KprofRun run = run_kprof(
      {"model", std::string(KPROF_STANDINS_DIR) + "/../python/cases/model/problem.py", "--ncu",
       standin("ncu"), "--python", "/usr/bin/python3", "--out", (dir() / "out").string(),
       "--format", "json", "--retries", "0", "--extract", cases.string()},
      {{"PYTHONPATH", standin("fake_torch")},
       {"KPROF_LOCK_DIR", (dir() / "locks").string()},
       {"KPROF_FAKE_NCU_CSV", fixture("batch4_flat_regex_ranges.csv")},
       {"KPROF_FAKE_STEPS", "100"}});
  EXPECT_EQ(run.exit_code, 14) << run.err; // io
  EXPECT_NE(run.err.find("belongs to uid 65534"), std::string::npos) << run.err;
  EXPECT_TRUE(fs::is_empty(cases));
  EXPECT_TRUE(fs::exists(dir() / "out" / "round000" / "report.json")); // the round stands
}

TEST_F(HostileLockDirectory, RootsProfileRefusesALinkPlantedInAStickyDirectoryWithoutFollowingIt) {
  const fs::path locks = dir() / "kprof-locks";
  fs::create_directory(locks);
  fs::permissions(locks, fs::perms::all | fs::perms::sticky_bit);
  const fs::path preload = dir() / "ld.so.preload";
  std::string why;
  ASSERT_EQ(run_as_nobody({"ln", "-s", preload.string(), (locks / "gpu0.lock").string()}, why), 0)
      << why;
  KprofRun run = profile_with_lock_dir(dir(), locks);
  EXPECT_EQ(run.exit_code, 14) << run.err;
  EXPECT_NE(run.err.find("GPU lock file " + (locks / "gpu0.lock").string() +
                         " refused: it is a symbolic link of uid 65534"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(preload));
}

TEST_F(HostileLockDirectory, AFifoPlantedAsALockFileEndsTheProfileAtOnceNamingIt) {
  // Before: kprof blocked in open() on gpu0.lock whatever --timeout said, and the harness on
  // profiled-calls.lock until ncu's timeout (about 15 minutes a round).
  for (const char* name : {"gpu0.lock", "profiled-calls.lock"}) {
    const fs::path locks = dir() / (std::string("locks-") + name);
    fs::create_directory(locks);
    fs::permissions(locks, fs::perms::all | fs::perms::sticky_bit);
    std::string why;
    ASSERT_EQ(run_as_nobody({"mkfifo", "-m", "0666", (locks / name).string()}, why), 0) << why;
    const auto started = std::chrono::steady_clock::now();
    KprofRun run = profile_with_lock_dir(dir(), locks, "10");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << name;
    EXPECT_EQ(run.exit_code, 14) << run.err;
    EXPECT_NE(run.err.find((locks / name).string() + " refused: it is a FIFO of uid 65534"),
              std::string::npos)
        << run.err;
  }
}

TEST_F(HostileLockDirectory, ALockFileOthersCannotOpenIsNamedWithItsOwnerNotAsPermissionDenied) {
  // uid 65534 makes gpu0.lock 0600 in the shared directory: uid 65534's profile still works, and
  // another user's message says whose file it is and what to do (root reads any file, so the
  // other user here is uid 65533).
  const fs::path locks = dir() / "kprof-locks";
  fs::create_directory(locks);
  fs::permissions(locks, fs::perms::all | fs::perms::sticky_bit);
  std::string why;
  ASSERT_EQ(run_as_nobody({"sh", "-c", "umask 077 && : > " + (locks / "gpu0.lock").string()}, why),
            0)
      << why;
  fs::create_directories(dir() / "bin");
  fs::copy_file(KPROF_BINARY, dir() / "bin" / "kprof");
  fs::permissions(dir() / "bin",
                  fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir() / "bin" / "kprof",
                  fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  ProcessSpec spec;
  spec.argv = {"setpriv",
               "--reuid",
               "65533",
               "--regid",
               "65533",
               "--clear-groups",
               (dir() / "bin" / "kprof").string(),
               "profile",
               std::string(KPROF_EXAMPLES_DIR) + "/twostage/kernel.py",
               std::string(KPROF_EXAMPLES_DIR) + "/twostage/problem.py",
               "--ncu",
               standin("ncu"),
               "--python",
               "/usr/bin/python3",
               "--out",
               (dir() / "out-65533").string()};
  spec.env_set = {{"KPROF_LOCK_DIR", locks.string()},
                  {"PYTHONPATH", standin("fake_torch")},
                  {"XDG_CACHE_HOME", (dir() / "cache-65533").string()},
                  {"TMPDIR", "/tmp"},
                  {"NO_COLOR", "1"}};
  spec.timeout = std::chrono::seconds(60);
  auto done = run_process(spec);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->exit_code, 14) << done->err;
  EXPECT_NE(done->err.find("GPU lock file " + (locks / "gpu0.lock").string() +
                           " refused: it belongs to uid 65534 (nobody) with mode 0600"),
            std::string::npos)
      << done->err;
}

// ---- a history that the reader cannot write -------------------------------------------------

/// Every file under `dir` with its size and modification time: what a reader must not change.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0) {
      files[it->path().lexically_relative(dir).string()] =
          std::to_string(st.st_size) + "@" + std::to_string(st.st_mtim.tv_sec) + "." +
          std::to_string(st.st_mtim.tv_nsec) + " mode " + std::to_string(st.st_mode);
    }
  }
  return files;
}

class ReadOnlyHistoryCli : public E2eTest {
protected:
  void SetUp() override {
    E2eTest::SetUp();
    if (::geteuid() != 0) {
      GTEST_SKIP() << "needs root, to read as another user (uid 65534 through setpriv)";
    }
    // uid 65534 reaches the test's directory and runs its own copy of the binary (the build
    // tree may be out of its reach).
    fs::permissions(dir(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
    fs::create_directories(dir() / "bin");
    fs::copy_file(KPROF_BINARY, dir() / "bin" / "kprof");
    fs::permissions(dir() / "bin",
                    fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(dir() / "bin" / "kprof",
                    fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
    KprofRun probe = as_nobody({"--version"});
    if (probe.exit_code != 0) {
      GTEST_SKIP() << "cannot run kprof as uid 65534 through setpriv: " << probe.err;
    }
  }

  /// `kprof ARGS` as uid 65534 (setpriv).
  KprofRun as_nobody(const std::vector<std::string>& args) {
    ProcessSpec spec;
    spec.argv = {"setpriv",
                 "--reuid",
                 "65534",
                 "--regid",
                 "65534",
                 "--clear-groups",
                 (dir() / "bin" / "kprof").string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env_set.emplace_back("NO_COLOR", "1");
    spec.env_set.emplace_back("TMPDIR", "/tmp");
    spec.timeout = std::chrono::seconds(60);
    auto result = run_process(spec);
    if (!result.ok()) {
      return {-1, "", result.error().message};
    }
    return {result->exit_code, result->out, result->err};
  }

  /// A run directory `name` with rounds 1 and 2 recorded by `kprof report --round` (closed,
  /// checkpointed), as root.
  fs::path recorded_run(const std::string& name) {
    const fs::path run = dir() / name;
    for (const auto& [round, capture] : {std::pair{"1", "curated_nvtx_twostage.csv"},
                                         std::pair{"2", "curated_instances_twostage.csv"}}) {
      KprofRun recorded = run_kprof({"report", fixture(capture), "--round", round, "--out",
                                     run.string(), "--format", "json"});
      EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
    }
    EXPECT_FALSE(fs::exists(run / "kprof.db-wal"));
    return run;
  }

  /// Round 3 (round 2's report again) recorded by a writer that is killed before it closes the
  /// database: the round is only in the -wal, and -wal and -shm stay behind.
  static void record_round_three_and_die(const fs::path& run) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const std::optional<HistoryStore> store = record_round_three(run);
      std::_Exit(store ? 0 : 1); // the store stays open: no checkpoint, -wal and -shm stay
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_TRUE(fs::exists(run / "kprof.db-wal"));
    ASSERT_TRUE(fs::exists(run / "kprof.db-shm"));
  }

  /// Round 3 recorded through `store` (left open by the caller: a live writer), else through a
  /// store of its own.
  static std::optional<HistoryStore> record_round_three(const fs::path& run) {
    auto store = HistoryStore::open(run / "kprof.db");
    if (!store) {
      ADD_FAILURE() << store.error().message;
      return std::nullopt;
    }
    auto report = load_report(run / "round002" / "report.json");
    if (!report) {
      ADD_FAILURE() << report.error().message;
      return std::nullopt;
    }
    RoundEntry entry;
    entry.round = 3;
    entry.label = "kernel.py";
    entry.document = std::move(report).value();
    if (auto recorded = store->record_round(entry); !recorded) {
      ADD_FAILURE() << recorded.error().message;
    }
    return std::move(store).value();
  }

  /// Every read-only command on `run` as uid 65534: history in each format and --converged, and
  /// diff; each sees `rounds` rounds and leaves every file of `run` as it was.
  void expect_history_and_diff_work(const fs::path& run, int rounds) {
    const auto before = files_of(run);
    KprofRun as_json = as_nobody({"history", run.string(), "--format", "json"});
    ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
    ASSERT_TRUE(json::accept(as_json.out)) << as_json.out;
    EXPECT_EQ(json::parse(as_json.out)["rows"].size(), static_cast<std::size_t>(rounds))
        << as_json.out;

    KprofRun as_csv = as_nobody({"history", run.string(), "--format", "csv"});
    ASSERT_EQ(as_csv.exit_code, 0) << as_csv.err;
    EXPECT_EQ(std::count(as_csv.out.begin(), as_csv.out.end(), '\n'), rounds + 1) << as_csv.out;

    KprofRun as_table = as_nobody({"history", run.string(), "--format", "table"});
    ASSERT_EQ(as_table.exit_code, 0) << as_table.err;
    EXPECT_NE(as_table.out.find("scale_kernel"), std::string::npos) << as_table.out;

    KprofRun verdict = as_nobody({"history", run.string(), "--converged", "--format", "json"});
    EXPECT_TRUE(verdict.exit_code == 0 || verdict.exit_code == 1) << verdict.err;
    ASSERT_TRUE(json::accept(verdict.out)) << verdict.err;
    EXPECT_EQ(json::parse(verdict.out)["kind"], "convergence");
    EXPECT_EQ(json::parse(verdict.out)["rounds"], rounds);

    KprofRun diff =
        as_nobody({"diff", run.string(), "1", std::to_string(rounds), "--format", "json"});
    ASSERT_EQ(diff.exit_code, 0) << diff.err;
    ASSERT_TRUE(json::accept(diff.out)) << diff.out;
    EXPECT_EQ(json::parse(diff.out)["kind"], "diff");

    EXPECT_EQ(files_of(run), before) << "a read-only command changed or created a file";
  }
};

constexpr fs::perms k_0755 = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec;
constexpr fs::perms k_0644 =
    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
constexpr fs::perms k_0555 = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                             fs::perms::group_exec | fs::perms::others_read |
                             fs::perms::others_exec;
constexpr fs::perms k_0444 = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;

void set_modes(const fs::path& run, fs::perms dir_mode, fs::perms file_mode) {
  for (const auto& entry : fs::recursive_directory_iterator(run)) {
    fs::permissions(entry.path(), entry.is_directory() ? dir_mode : file_mode);
  }
  fs::permissions(run, dir_mode);
}

void chown_all(const fs::path& run, uid_t uid) {
  for (const auto& entry : fs::recursive_directory_iterator(run)) {
    ASSERT_EQ(::lchown(entry.path().c_str(), uid, uid), 0) << entry.path();
  }
  ASSERT_EQ(::lchown(run.c_str(), uid, uid), 0);
}

// Each case is read twice: as a finished history (no journal beside kprof.db, which is what a
// reader usually finds, and what the read-write open of kprof 0.1 failed on), then with the
// -wal (and -shm) of a writer, whose round 3 is only in the -wal.

TEST_F(ReadOnlyHistoryCli, ReadsARootOwnedRunDirectoryWithAndWithoutALiveWriter) {
  // (a) run directory root:root 0755, kprof.db 0644.
  const fs::path run = recorded_run("run");
  set_modes(run, k_0755, k_0644);
  expect_history_and_diff_work(run, 2);
  // A writer at work: the test holds the store open, round 3 is in its -wal.
  std::optional<HistoryStore> writer = record_round_three(run);
  ASSERT_TRUE(writer.has_value());
  set_modes(run, k_0755, k_0644);
  ASSERT_TRUE(fs::exists(run / "kprof.db-wal"));
  expect_history_and_diff_work(run, 3);
}

TEST_F(ReadOnlyHistoryCli, ReadsA0555DirectoryWithAndWithoutADeadWritersWalAndShm) {
  // (b) a directory made read-only (0555, files 0444), of the reader itself.
  const fs::path run = recorded_run("run");
  chown_all(run, 65534);
  set_modes(run, k_0555, k_0444);
  expect_history_and_diff_work(run, 2);
  // The -wal and -shm of a writer that was killed.
  record_round_three_and_die(run);
  chown_all(run, 65534);
  set_modes(run, k_0555, k_0444);
  expect_history_and_diff_work(run, 3);
}

TEST_F(ReadOnlyHistoryCli, ReadsAReadOnlyBindMount) {
  // (b) the run directory on a read-only mount (a bind mount in a mount namespace of this test
  // process alone); the writer's journal is added through the directory itself.
  const fs::path run = recorded_run("run");
  const fs::path mounted = dir() / "mounted";
  fs::create_directories(mounted);
  fs::permissions(mounted, k_0755);
  if (::unshare(CLONE_NEWNS) != 0 ||
      ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
      ::mount(run.c_str(), mounted.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    GTEST_SKIP() << "cannot make a bind mount here: " << std::strerror(errno);
  }
  const bool read_only =
      ::mount(nullptr, mounted.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0;
  if (read_only) {
    EXPECT_FALSE(std::ofstream(mounted / "probe").is_open()) << "the mount is writable";
    expect_history_and_diff_work(mounted, 2);
    record_round_three_and_die(run);
    expect_history_and_diff_work(mounted, 3);
  }
  ::umount2(mounted.c_str(), MNT_DETACH);
  if (!read_only) {
    GTEST_SKIP() << "cannot remount read-only here";
  }
}

TEST_F(ReadOnlyHistoryCli, ReadsAWritableDirectoryLeavingNoJournalAndReadsJournalsItCannotWrite) {
  // (c) the reader may write the directory (0777) but not the root-owned 0644 kprof.db. Opened
  // read-write, SQLite made -wal and -shm files of the reader's there, which the owner's next
  // kprof could not write; read-only, nothing is made.
  const fs::path run = recorded_run("run");
  set_modes(run, fs::perms::all, k_0644);
  expect_history_and_diff_work(run, 2);
  EXPECT_FALSE(fs::exists(run / "kprof.db-shm"));
  // The root-owned 0644 -wal and -shm of a killed writer, which the reader cannot write.
  record_round_three_and_die(run);
  set_modes(run, fs::perms::all, k_0644);
  expect_history_and_diff_work(run, 3);
}

TEST_F(ReadOnlyHistoryCli, ReadsTheRoundsOfAWalWhoseShmIsGoneFromAReadOnlyDirectory) {
  // A -wal without its -shm (a copy of the run directory, a cleaner) in a 0555 directory: SQLite
  // cannot make the -shm it needs, and reading the file alone would miss round 3.
  const fs::path run = recorded_run("run");
  record_round_three_and_die(run);
  fs::remove(run / "kprof.db-shm");
  set_modes(run, k_0555, k_0444);
  expect_history_and_diff_work(run, 3);
  EXPECT_FALSE(fs::exists(run / "kprof.db-shm"));
}

// ---- a committed round without its row ------------------------------------------------------

class UnrecordedRound : public E2eTest {};

TEST_F(UnrecordedRound, HistoryListsACommittedRoundWithoutItsRowAsNotRecordedYet) {
  // Round 2's directory is in place with its note of the rows to write (what StagedRound::commit
  // leaves when it is killed after the rename), but kprof.db holds round 1 only.
  const fs::path run = dir() / "run";
  KprofRun first = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--round", "1",
                              "--out", run.string(), "--format", "json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const fs::path round2 = run / "round002";
  fs::create_directories(round2);
  fs::copy_file(run / "round001" / "report.json", round2 / "report.json");
  RoundEntry entry;
  entry.round = 2;
  entry.label = "kernel.py";
  entry.created_at = "2026-12-01T10:00:00Z";
  entry.document = Json::object(); // only whether there is one goes into the note
  ASSERT_TRUE(write_pending_round(round2, std::span<const RoundEntry>(&entry, 1)).ok());
  const auto before = files_of(run);

  KprofRun as_json = run_kprof({"history", run.string(), "--format", "json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const json rows = json::parse(as_json.out)["rows"];
  ASSERT_EQ(rows.size(), 2U) << as_json.out;
  EXPECT_EQ(rows[0]["recorded"], true);
  EXPECT_EQ(rows[1]["round"], 2);
  EXPECT_EQ(rows[1]["recorded"], false);
  EXPECT_EQ(rows[1]["attempt"], nullptr);
  EXPECT_EQ(rows[1]["created_at"], "2026-12-01T10:00:00Z");
  EXPECT_EQ(rows[1]["dominant_kernel"], rows[0]["dominant_kernel"]) << "read from round002/";

  KprofRun as_table = run_kprof({"history", run.string(), "--format", "table"});
  ASSERT_EQ(as_table.exit_code, 0) << as_table.err;
  EXPECT_NE(as_table.out.find("not recorded in kprof.db yet"), std::string::npos) << as_table.out;
  KprofRun as_csv = run_kprof({"history", run.string(), "--format", "csv"});
  ASSERT_EQ(as_csv.exit_code, 0) << as_csv.err;
  // The `recorded` field of the last row, found by the header's names (no field here is quoted).
  std::vector<std::vector<std::string>> csv_rows;
  std::istringstream csv_lines(as_csv.out);
  for (std::string line; std::getline(csv_lines, line);) {
    std::vector<std::string> fields;
    std::istringstream split(line + ",");
    for (std::string field; std::getline(split, field, ',');) {
      fields.push_back(field);
    }
    csv_rows.push_back(std::move(fields));
  }
  ASSERT_EQ(csv_rows.size(), 3U) << as_csv.out;
  const auto column = std::find(csv_rows[0].begin(), csv_rows[0].end(), "recorded");
  ASSERT_NE(column, csv_rows[0].end()) << as_csv.out;
  const auto index = static_cast<std::size_t>(column - csv_rows[0].begin());
  EXPECT_EQ(csv_rows[1].at(index), "1") << as_csv.out;
  EXPECT_EQ(csv_rows[2].at(index), "0") << as_csv.out;

  EXPECT_EQ(files_of(run), before) << "history wrote something";
}

} // namespace
} // namespace kprof::e2e

#include "kprof/process.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "kprof/files.hpp"

namespace {

using namespace std::chrono_literals;

std::string standin(const char* name) {
  return std::string(KPROF_STANDINS_DIR) + "/" + name;
}

kprof::TempDir make_temp_dir() {
  auto dir = kprof::TempDir::create("kprof-process-test");
  KPROF_ASSERT(dir.ok());
  return std::move(dir).value();
}

/// Dead means gone, or a zombie its new parent has not reaped yet.
bool process_is_dead(pid_t pid) {
  if (::kill(pid, 0) == -1 && errno == ESRCH) {
    return true;
  }
  auto stat = kprof::read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) {
    return true;
  }
  const std::size_t name_end = stat->rfind(')');
  return name_end != std::string::npos && name_end + 2 < stat->size() &&
         (*stat)[name_end + 2] == 'Z';
}

/// SIGKILL is delivered asynchronously: waits (bounded) until `pid` has died.
bool becomes_dead(pid_t pid) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    if (process_is_dead(pid)) {
      return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(RunProcess, PropagatesTheExitCode) {
  auto result = kprof::run_process({.argv = {standin("exit_code"), "3"}});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_FALSE(result->signaled);
  EXPECT_FALSE(result->timed_out);
  EXPECT_FALSE(result->succeeded());
  EXPECT_EQ(result->describe(), "exit code 3");
}

TEST(RunProcess, ReportsSuccessForExitCodeZero) {
  auto result = kprof::run_process({.argv = {standin("sleep_then_exit"), "0", "0"}});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->succeeded());
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_GT(result->wall.count(), 0.0);
}

TEST(RunProcess, ReportsTheSignalThatKilledTheChild) {
  auto result = kprof::run_process({.argv = {standin("crash")}});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->signaled);
  EXPECT_EQ(result->term_signal, SIGSEGV);
  EXPECT_FALSE(result->timed_out);
  EXPECT_FALSE(result->succeeded());
  EXPECT_EQ(result->describe(), "killed by signal 11 (SIGSEGV)");
}

TEST(RunProcess, StopsAChildAtTheTimeoutWithSigterm) {
  auto result = kprof::run_process(
      {.argv = {standin("sleep_then_exit"), "1000", "0"}, .timeout = 200ms, .kill_grace = 60s});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->signaled);
  EXPECT_EQ(result->term_signal, SIGTERM);
  EXPECT_FALSE(result->succeeded());
  EXPECT_EQ(result->describe(), "timed out after 0.2 s");
}

TEST(RunProcess, StopsAChildStartedBeforeACancellationEvenWhenItWasClearedBeforeItsRunnerLooked) {
  // kprof mcp clears a cancellation as soon as the cancelled call returns; a standby started
  // beside that call must still be stopped (tests/mcp saw one left running, 2026-12-04).
  std::atomic<bool> started{false};
  std::thread runner;
  kprof::Result<kprof::ProcessResult> result =
      kprof::make_error(kprof::ErrorCategory::internal, "not run");
  runner = std::thread([&] {
    started.store(true);
    result = kprof::run_process({.argv = {standin("sleep_then_exit"), "30", "0"}});
  });
  while (!started.load()) {
    std::this_thread::sleep_for(1ms);
  }
  std::this_thread::sleep_for(300ms); // the child runs and its runner sleeps in poll
  kprof::request_cancellation();
  kprof::clear_cancellation();
  runner.join();
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->cancelled);
  EXPECT_FALSE(result->succeeded());
  // A child started after the cancellation ended runs as usual.
  auto later = kprof::run_process({.argv = {standin("sleep_then_exit"), "0", "3"}});
  ASSERT_TRUE(later.ok()) << later.error().message;
  EXPECT_FALSE(later->cancelled);
  EXPECT_EQ(later->exit_code, 3);
}

TEST(RunProcess, KillsASigtermIgnoringChildAndItsGrandchildAfterTheGrace) {
  const kprof::TempDir dir = make_temp_dir();
  const std::filesystem::path pid_file = dir.path() / "grandchild.pid";
  auto result = kprof::run_process({.argv = {standin("ignore_term"), pid_file.string()},
                                    .timeout = 1000ms,
                                    .kill_grace = 200ms});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->signaled);
  EXPECT_EQ(result->term_signal, SIGKILL);
  EXPECT_EQ(result->out, "started\n");
  EXPECT_EQ(result->describe(), "timed out after 1.0 s");

  auto pid_text = kprof::read_file(pid_file);
  ASSERT_TRUE(pid_text.ok()) << "the stand-in did not record its grandchild: "
                             << pid_text.error().message;
  const pid_t grandchild = static_cast<pid_t>(std::stol(*pid_text));
  ASSERT_GT(grandchild, 1);
  EXPECT_TRUE(becomes_dead(grandchild)) << "grandchild " << grandchild << " survived the timeout";
}

TEST(RunProcess, DrainsBothStreamsOfAFloodingChildAndKeepsTheTail) {
  constexpr std::size_t k_limit = 1u << 20u;
  constexpr std::size_t k_flood = std::size_t{64} << 20u;
  auto result =
      kprof::run_process({.argv = {standin("flood"), "64"}, .max_captured_bytes = k_limit});
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_TRUE(result->succeeded()) << result->describe() << "\n" << result->err.substr(0, 200);

  const std::string out_marker = "END-OF-STDOUT\n";
  EXPECT_EQ(result->out.size(), k_limit);
  EXPECT_EQ(result->out_dropped + result->out.size(), k_flood + out_marker.size());
  EXPECT_TRUE(result->out.ends_with(out_marker));
  EXPECT_EQ(result->out.find_first_not_of('o'), k_limit - out_marker.size());

  const std::string err_marker = "END-OF-STDERR\n";
  EXPECT_EQ(result->err.size(), k_limit);
  EXPECT_EQ(result->err_dropped + result->err.size(), k_flood + err_marker.size());
  EXPECT_TRUE(result->err.ends_with(err_marker));
  EXPECT_EQ(result->err.find_first_not_of('e'), k_limit - err_marker.size());
}

TEST(RunProcess, KeepsShortOutputWhole) {
  auto result = kprof::run_process({.argv = {standin("flood"), "0"}});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->out, "END-OF-STDOUT\n");
  EXPECT_EQ(result->err, "END-OF-STDERR\n");
  EXPECT_EQ(result->out_dropped, 0u);
  EXPECT_EQ(result->err_dropped, 0u);
}

TEST(RunProcess, SetsEnvironmentVariablesInTheChild) {
  auto result = kprof::run_process({.argv = {standin("echo_env"), "KPROF_TEST_SET"},
                                    .env_set = {{"KPROF_TEST_SET", "hello world"}}});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->out, "hello world\n");
}

TEST(RunProcess, InheritsOverridesAndUnsetsEnvironmentVariables) {
  ASSERT_EQ(::setenv("KPROF_TEST_INHERITED", "from parent", 1), 0);
  ASSERT_EQ(::setenv("KPROF_TEST_OVERRIDDEN", "old", 1), 0);
  ASSERT_EQ(::setenv("KPROF_TEST_UNSET", "doomed", 1), 0);
  const auto echo = [](const char* name) {
    auto result = kprof::run_process({.argv = {standin("echo_env"), name},
                                      .env_set = {{"KPROF_TEST_OVERRIDDEN", "new"}},
                                      .env_unset = {"KPROF_TEST_UNSET"}});
    return result.ok() ? result->out : "run failed: " + result.error().message;
  };
  EXPECT_EQ(echo("KPROF_TEST_INHERITED"), "from parent\n");
  EXPECT_EQ(echo("KPROF_TEST_OVERRIDDEN"), "new\n");
  EXPECT_EQ(echo("KPROF_TEST_UNSET"), "<unset>\n");
  ::unsetenv("KPROF_TEST_INHERITED");
  ::unsetenv("KPROF_TEST_OVERRIDDEN");
  ::unsetenv("KPROF_TEST_UNSET");
}

TEST(RunProcess, RunsTheChildInTheRequestedDirectory) {
  const kprof::TempDir dir = make_temp_dir();
  auto result = kprof::run_process({.argv = {standin("print_cwd")}, .cwd = dir.path()});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->out, std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST(RunProcess, ResolvesARelativeProgramPathAgainstOurDirectoryNotTheChilds) {
  const kprof::TempDir dir = make_temp_dir();
  const std::filesystem::path relative =
      std::filesystem::relative(standin("print_cwd"), std::filesystem::current_path());
  ASSERT_NE(relative.string().find('/'), std::string::npos);
  auto result = kprof::run_process({.argv = {relative.string()}, .cwd = dir.path()});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->out, std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST(RunProcess, FailsWithInputNotFoundForAMissingDirectory) {
  const kprof::TempDir dir = make_temp_dir();
  auto result = kprof::run_process({.argv = {standin("print_cwd")}, .cwd = dir.path() / "nope"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, kprof::ErrorCategory::input_not_found);
  EXPECT_NE(result.error().message.find("nope"), std::string::npos) << result.error().message;
}

TEST(RunProcess, FailsWithInputNotFoundForAMissingProgram) {
  auto result = kprof::run_process({.argv = {"/nonexistent/kprof-no-such-program"}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, kprof::ErrorCategory::input_not_found);
  EXPECT_EQ(result.error().message,
            "cannot run /nonexistent/kprof-no-such-program: No such file or directory");
}

TEST(RunProcess, FailsWithInputNotFoundForAProgramNotOnPath) {
  // Our PATH decides the lookup; make it one empty directory (an unreadable PATH entry would
  // turn ENOENT into EACCES).
  const kprof::TempDir dir = make_temp_dir();
  const std::string saved_path = kprof::env_var("PATH").value_or("");
  ASSERT_EQ(::setenv("PATH", dir.path().c_str(), 1), 0);
  auto result = kprof::run_process({.argv = {"kprof-no-such-program-on-path"}});
  ::setenv("PATH", saved_path.c_str(), 1);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, kprof::ErrorCategory::input_not_found);
  EXPECT_EQ(result.error().message,
            "cannot run kprof-no-such-program-on-path: No such file or directory");
}

TEST(RunProcess, FailsWithInputNotFoundForAFileThatIsNotExecutable) {
  const kprof::TempDir dir = make_temp_dir();
  const std::filesystem::path script = dir.path() / "not_executable";
  ASSERT_TRUE(kprof::write_file_atomic(script, "#!/bin/sh\nexit 0\n").ok());
  ASSERT_EQ(::chmod(script.c_str(), 0644), 0);
  auto result = kprof::run_process({.argv = {script.string()}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, kprof::ErrorCategory::input_not_found);
  EXPECT_EQ(result.error().message, "cannot run " + script.string() + ": Permission denied");
}

TEST(RunProcess, FindsProgramsOnPath) {
  auto result = kprof::run_process({.argv = {"cat"}, .stdin_data = "via PATH"});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->out, "via PATH");
}

TEST(RunProcess, FeedsStdinDataToTheChild) {
  std::string data;
  for (int i = 0; data.size() < (std::size_t{4} << 20u); ++i) {
    data += "line " + std::to_string(i) + "\n";
  }
  auto result = kprof::run_process({.argv = {"cat"}, .stdin_data = data});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->succeeded());
  EXPECT_EQ(result->out.size(), data.size());
  EXPECT_TRUE(result->out == data);
}

TEST(RunProcess, SurvivesAChildThatIgnoresItsStdin) {
  // Writing to a pipe nobody reads raises SIGPIPE; it must not kill us.
  auto result = kprof::run_process(
      {.argv = {standin("exit_code"), "0"}, .stdin_data = std::string(std::size_t{4} << 20u, 'x')});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->succeeded());
}

TEST(RunProcess, GivesTheChildAnEmptyStdinByDefault) {
  auto result = kprof::run_process({.argv = {"cat"}});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->succeeded());
  EXPECT_EQ(result->out, "");
}

TEST(RunProcess, PutsTheChildInItsOwnProcessGroup) {
  auto result = kprof::run_process({.argv = {"cat", "/proc/self/stat"}});
  ASSERT_TRUE(result.ok()) << result.error().message;
  // "pid (comm) state ppid pgrp ..."
  const std::string& stat = result->out;
  const std::size_t name_end = stat.rfind(')');
  ASSERT_NE(name_end, std::string::npos) << stat;
  const long pid = std::stol(stat);
  std::size_t field = name_end + 2;
  for (int skip = 0; skip < 2; ++skip) { // state, ppid
    field = stat.find(' ', field) + 1;
  }
  const long pgrp = std::stol(stat.substr(field));
  EXPECT_EQ(pgrp, pid);
  EXPECT_NE(pgrp, static_cast<long>(::getpgrp()));
}

TEST(RunProcess, StartsTheChildWithAnEmptySignalMask) {
  sigset_t block;
  sigset_t previous;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  sigaddset(&block, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &block, &previous), 0);
  auto result = kprof::run_process({.argv = {"grep", "^SigBlk:", "/proc/self/status"}});
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->out, "SigBlk:\t0000000000000000\n");
}

TEST(RunProcess, DoesNotLeakOurFileDescriptorsToTheChild) {
  const int leaky = ::open("/dev/null", O_RDONLY); // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 3);
  const std::string leaky_path = "/proc/self/fd/" + std::to_string(leaky);
  auto sanity = kprof::run_process({.argv = {"test", "-e", "/proc/self/fd/1"}});
  auto result = kprof::run_process({.argv = {"test", "-e", leaky_path}});
  ::close(leaky);
  ASSERT_TRUE(sanity.ok()) << sanity.error().message;
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(sanity->exit_code, 0);
  EXPECT_EQ(result->exit_code, 1) << leaky_path << " is open in the child";
}

TEST(RunProcess, TheChildDiesWhenKprofIsKilled) {
  // A forked copy of this test plays kprof: it runs a child that records its pid and sleeps.
  // SIGKILL of the copy (nothing can be cleaned up) must take the child with it.
  const kprof::TempDir dir = make_temp_dir();
  const std::string pid_file = (dir.path() / "child.pid").string();
  const pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    kprof::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 "echo $$ > \"$0.partial\"; mv \"$0.partial\" \"$0\"; exec sleep 1000", pid_file};
    (void)kprof::run_process(spec);
    ::_exit(0);
  }
  pid_t child = 0;
  for (int attempt = 0; attempt < 1000 && child == 0; ++attempt) {
    if (auto text = kprof::read_file(pid_file)) {
      child = static_cast<pid_t>(std::stoi(*text));
    } else {
      std::this_thread::sleep_for(10ms);
    }
  }
  ASSERT_NE(child, 0) << "the child never started";
  ASSERT_EQ(::kill(runner, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(runner, &status, 0), runner);
  const bool dead = becomes_dead(child);
  if (!dead) {
    ::kill(child, SIGKILL);
  }
  EXPECT_TRUE(dead) << "the child outlived its killed parent";
}

/// The pid a stand-in wrote to `path` (0 when it did not).
pid_t pid_in(const std::filesystem::path& path) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    if (auto text = kprof::read_file(path)) {
      return static_cast<pid_t>(std::stol(*text));
    }
    std::this_thread::sleep_for(10ms);
  }
  return 0;
}

/// Expects `pid` to die soon; kills it when it does not, so that no test leaves it behind.
void expect_dies(pid_t pid, const char* what) {
  ASSERT_GT(pid, 1) << what << " never started";
  const bool dead = becomes_dead(pid);
  if (!dead) {
    ::kill(pid, SIGKILL);
  }
  EXPECT_TRUE(dead) << what << " (" << pid << ") outlived the run";
}

/// Why kprof's process keeper cannot run here (a child runs first, so that it was tried); tests
/// of what only it guarantees are skipped then (only the child's process group is killed).
std::optional<std::string> keeper_missing() {
  (void)kprof::run_process({.argv = {"true"}});
  return kprof::process_keeper_unavailable();
}

TEST(RunProcess, RunsEveryChildUnderTheProcessKeeperHere) {
  const auto why = keeper_missing();
  EXPECT_FALSE(why.has_value()) << *why;
}

TEST(RunProcess, LeavesNothingTheChildStartedRunningWhenItExitsNormally) {
  // A child that starts `sleep 1000` in the background and a daemon (fork, setsid, fork: in
  // none of its groups, nobody's child), then exits 0 at once.
  if (auto why = keeper_missing()) {
    GTEST_SKIP() << "kprof's process keeper cannot run here: " << *why;
  }
  const kprof::TempDir dir = make_temp_dir();
  const std::string sleeper = (dir.path() / "sleep.pid").string();
  const std::string daemon = (dir.path() / "daemon.pid").string();
  auto result = kprof::run_process(
      {.argv = {"/bin/sh", "-c", "sleep 1000 & echo $! > \"$0\"; \"$1\" \"$2\"; echo done", sleeper,
                standin("daemonize"), daemon}});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->succeeded()) << result->describe() << result->err;
  EXPECT_EQ(result->out, "done\n");
  expect_dies(pid_in(sleeper), "the background sleep");
  expect_dies(pid_in(daemon), "the daemon");
}

TEST(RunProcess, KillsADaemonTheChildStartedAtTheTimeout) {
  if (auto why = keeper_missing()) {
    GTEST_SKIP() << "kprof's process keeper cannot run here: " << *why;
  }
  const kprof::TempDir dir = make_temp_dir();
  const std::string daemon = (dir.path() / "daemon.pid").string();
  auto result = kprof::run_process(
      {.argv = {"/bin/sh", "-c", "\"$0\" \"$1\"; exec sleep 1000", standin("daemonize"), daemon},
       .timeout = 1000ms,
       .kill_grace = 200ms});
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->describe(), "timed out after 1.0 s");
  expect_dies(pid_in(daemon), "the daemon");
}

TEST(RunProcess, WhatTheChildStartedDiesWhenKprofIsKilled) {
  // As TheChildDiesWhenKprofIsKilled, with a background `sleep 1000` (its parent-death signal is
  // not the child's) and a daemon that left the child's group and session.
  if (auto why = keeper_missing()) {
    GTEST_SKIP() << "kprof's process keeper cannot run here: " << *why;
  }
  const kprof::TempDir dir = make_temp_dir();
  const std::string child_file = (dir.path() / "child.pid").string();
  const std::string sleeper = (dir.path() / "sleep.pid").string();
  const std::string daemon = (dir.path() / "daemon.pid").string();
  const pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    kprof::ProcessSpec spec;
    spec.argv = {"/bin/sh",
                 "-c",
                 "sleep 1000 & echo $! > \"$1\"; \"$2\" \"$3\"; echo $$ > \"$0.partial\"; "
                 "mv \"$0.partial\" \"$0\"; exec sleep 1000",
                 child_file,
                 sleeper,
                 standin("daemonize"),
                 daemon};
    (void)kprof::run_process(spec);
    ::_exit(0);
  }
  const pid_t child = pid_in(child_file);
  ASSERT_NE(child, 0) << "the child never started";
  ASSERT_EQ(::kill(runner, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(runner, &status, 0), runner);
  expect_dies(child, "the child");
  expect_dies(pid_in(sleeper), "the background sleep");
  expect_dies(pid_in(daemon), "the daemon");
}

TEST(RunProcess, ReportsTheProgramsOwnExitCodeAndSignalNotTheKeepers) {
  // Whatever the program left behind (killed by the keeper at its end).
  auto crashed = kprof::run_process({.argv = {standin("crash")}});
  ASSERT_TRUE(crashed.ok()) << crashed.error().message;
  EXPECT_TRUE(crashed->signaled);
  EXPECT_EQ(crashed->term_signal, SIGSEGV);
  auto code = kprof::run_process({.argv = {"/bin/sh", "-c", "sleep 1000 & exit 7"}});
  ASSERT_TRUE(code.ok()) << code.error().message;
  EXPECT_EQ(code->exit_code, 7);
  EXPECT_FALSE(code->signaled);
}

TEST(ProcessResult, DescribesHowTheChildEnded) {
  kprof::ProcessResult exited;
  exited.exit_code = 2;
  EXPECT_EQ(exited.describe(), "exit code 2");

  kprof::ProcessResult killed;
  killed.signaled = true;
  killed.term_signal = SIGKILL;
  EXPECT_EQ(killed.describe(), "killed by signal 9 (SIGKILL)");

  kprof::ProcessResult timed_out;
  timed_out.timed_out = true;
  timed_out.term_signal = SIGTERM;
  timed_out.timeout = 3000ms;
  EXPECT_EQ(timed_out.describe(), "timed out after 3.0 s");
}

TEST(FindExecutable, FindsAProgramOnPath) {
  const auto found = kprof::find_executable("sh");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->filename(), "sh");
  EXPECT_EQ(::access(found->c_str(), X_OK), 0);
}

TEST(FindExecutable, ReturnsAPathWithASlashWhenItIsExecutable) {
  const auto found = kprof::find_executable(standin("exit_code"));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->string(), standin("exit_code"));
}

TEST(FindExecutable, ReturnsNothingForMissingOrNonExecutablePrograms) {
  EXPECT_FALSE(kprof::find_executable("kprof-no-such-program-on-path").has_value());
  EXPECT_FALSE(kprof::find_executable("/nonexistent/sh").has_value());
  EXPECT_FALSE(kprof::find_executable(std::string(KPROF_STANDINS_DIR) + "/README.md").has_value());
  EXPECT_FALSE(kprof::find_executable(KPROF_STANDINS_DIR).has_value());
  EXPECT_FALSE(kprof::find_executable("").has_value());
}

} // namespace

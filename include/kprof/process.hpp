// kprof: running child programs (ncu, python) safely.
//
// Children get an argv vector (never a shell), their own process group, and stdout/stderr
// drained while we wait. Each runs under kprof's process keeper, a child subreaper that kills all
// the child started once it exits, on timeout (SIGTERM, then SIGKILL after a grace period) and
// when kprof dies, so nothing the child started is left running (process.cpp's design note).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kprof/error.hpp"

namespace kprof {

/// Stops or limits one running child from another thread (run_process() blocks its caller):
/// the owner of a long-lived child, such as a standby harness, keeps a shared pointer to it.
struct ProcessControl {
  /// Set to stop the child like a cancellation (process group: SIGTERM, then SIGKILL after the
  /// grace); the result says `cancelled`.
  std::atomic<bool> stop{false};
  /// A deadline set after the start (steady clock, nanoseconds since its epoch; 0: none). Past
  /// it the child is killed as on ProcessSpec::timeout and the result says `timed_out`.
  std::atomic<std::int64_t> deadline_ns{0};
  /// The timeout that deadline_ns stands for, reported by ProcessResult::describe().
  std::atomic<std::int64_t> deadline_timeout_ms{0};
};

struct ProcessSpec {
  std::vector<std::string> argv{}; ///< argv[0] is the program; looked up on PATH if it has no '/'
  /// Variables to set (override) in the child's environment; the rest is inherited.
  std::vector<std::pair<std::string, std::string>> env_set{};
  std::vector<std::string> env_unset{};
  std::optional<std::filesystem::path> cwd{};
  /// Zero means no limit.
  std::chrono::milliseconds timeout{0};
  /// Time between SIGTERM and SIGKILL on timeout.
  std::chrono::milliseconds kill_grace{2000};
  /// At most this many bytes of each stream are kept (the tail; the head is dropped first).
  std::size_t max_captured_bytes = 16u << 20u;
  /// Data written to the child's stdin, then stdin is closed. Empty: stdin is /dev/null.
  std::string stdin_data{};
  /// Keep running after request_cancellation(): for the commands that clean up after Ctrl-C
  /// (scancel), which must not be stopped by it. The timeout still applies.
  bool ignore_cancellation = false;
  /// Optional: stop or limit the child from another thread.
  std::shared_ptr<ProcessControl> control{};
};

struct ProcessResult {
  int exit_code = -1;    ///< valid when !signaled && !timed_out
  bool signaled = false; ///< ended by a signal (other than our timeout kill)
  int term_signal = 0;
  bool timed_out = false;      ///< we killed it at the time limit
  bool cancelled = false;      ///< we killed it because request_cancellation() was called
  std::string out;             ///< captured stdout (tail, see max_captured_bytes)
  std::string err;             ///< captured stderr (tail)
  std::size_t out_dropped = 0; ///< bytes of stdout dropped from the head
  std::size_t err_dropped = 0;
  std::chrono::duration<double> wall{0};
  std::chrono::milliseconds timeout{0}; ///< the limit that applied (spec.timeout), for describe()

  /// True when the program ran to completion and returned 0.
  [[nodiscard]] bool succeeded() const { return !signaled && !timed_out && exit_code == 0; }
  /// "exit code 2", "killed by signal 9 (SIGKILL)", "timed out after 3.0 s".
  [[nodiscard]] std::string describe() const;
};

/// Runs a child and waits for it. Fails (input_not_found) only when the program cannot be
/// started at all (not found, not executable); a child that runs and fails is a ProcessResult.
Result<ProcessResult> run_process(const ProcessSpec& spec);

/// Asks every run_process() in this process to stop its child (process group: SIGTERM, then
/// SIGKILL after the grace) and return with `cancelled` set. Async-signal-safe: the CLI calls it
/// from its SIGINT/SIGTERM handler, so Ctrl-C never leaves ncu or the harness running.
void request_cancellation() noexcept;

/// True once request_cancellation() was called (and clear_cancellation() was not called since).
bool cancellation_requested() noexcept;

/// Ends a cancellation: later run_process() calls run again. For a long-lived process that
/// cancels one call and keeps serving (`kprof mcp` after `notifications/cancelled`), called once
/// the cancelled call has returned. A child started before the cancellation is stopped all the
/// same (a standby started beside the cancelled call), even when its runner looks only after
/// this call.
void clear_cancellation() noexcept;

/// Why children run without kprof's process keeper (the process between kprof and each program
/// that kills all the program leaves behind, process.cpp), nullopt while they run under it: a
/// kernel or security module that runs no program from a memfd. Without it only the program's
/// process group is killed when it ends.
std::optional<std::string> process_keeper_unavailable();

/// Looks `program` up on PATH (or returns it when it contains '/'), nullopt when not executable.
std::optional<std::filesystem::path> find_executable(std::string_view program);

} // namespace kprof

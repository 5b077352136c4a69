// kprof: what run_process() (process.cpp) and the process keeper (process_keeper.cpp) say to
// each other. Internal to src/util.
#pragma once

#include <csignal>
#include <cstdint>

namespace kprof::keeper {

/// The keeper's report pipe: fd 3 in the keeper (kprof's end is its read end).
inline constexpr int k_report_fd = 3;

/// Sent by kprof to the keeper: stop the program (SIGTERM to all it started, SIGKILL to all that
/// is left after the grace).
inline constexpr int k_stop_signal = SIGUSR1;

/// How long the keeper waits for the processes it killed to be gone before it reports anyway
/// (a process in uninterruptible sleep dies only when the kernel lets it).
inline constexpr int k_reap_limit_ms = 5000;

enum class MessageKind : std::int32_t {
  started = 1,       ///< value: the program's pid; it runs (its exec succeeded)
  exec_failed = 2,   ///< value: the errno of the program's exec (or of chdir before it)
  keeper_failed = 3, ///< value: the errno of what the keeper could not do (pipe, fork)
  finished = 4,      ///< value: the program's wait status, once nothing it started is left
  /// Sent by kprof's forked child, not the keeper: the keeper's image could not be exec'd (value:
  /// errno); the program is exec'd directly next, and its exec failure, if any, follows.
  keeper_unavailable = 5,
};

/// One message on the report pipe: 8 bytes, written whole (below PIPE_BUF).
struct Message {
  MessageKind kind;
  std::int32_t value;
};

} // namespace kprof::keeper

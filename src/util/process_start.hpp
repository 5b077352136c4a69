// kprof: how run_process (process.cpp) starts a child: under the process keeper, or directly where
// the keeper cannot run. Internal to src/util.
#pragma once

#include <sys/types.h>

#include <string>

#include "kprof/process.hpp"
#include "util/unique_fd.hpp"

namespace kprof {

/// The child's ends of its streams (stdin -1: /dev/null); the caller keeps them and closes its
/// copies once the child started.
struct ChildStreams {
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

/// A started child: `pid` is the caller's to wait for and reap, the keeper or the program run
/// directly.
struct StartedChild {
  pid_t pid = -1;
  bool keeper = false; ///< `pid` is the keeper: stop it with keeper::k_stop_signal
  UniqueFd reports;    ///< the keeper's report pipe, for its last report (program_status)
};

/// Forks and starts `spec`'s program at `exec_path` (resolved) in its own process group, with the
/// environment, directory, death signal and descriptors of process.cpp's design note, under the
/// keeper unless it cannot run (process_keeper_unavailable()). Returns once the program's exec
/// succeeded. input_not_found when the program cannot be run (not found, not executable, the
/// directory gone), io when the system could not start a process (the child is reaped then).
Result<StartedChild> start_child(const ProcessSpec& spec, const std::string& exec_path,
                                 const ChildStreams& streams);

/// The program's wait status once `child.pid` has ended with `own_status`: the keeper's last
/// report (SIGKILL's when the keeper gave up waiting for the program), else `own_status`.
int program_status(const StartedChild& child, int own_status);

/// Reaps `pid` (waitpid, retried on EINTR); its wait status.
int reap(pid_t pid);

} // namespace kprof

// kprof's process keeper: the process between kprof and every program it runs (run_process,
// process.cpp), so that nothing the program starts outlives the run or kprof.
//
// Design note.
// - Why a process of its own: a parent-death signal reaches only a direct child, and a process
//   group only those that stay in it. A candidate that starts `sleep 1000`, or a daemon that
//   calls setsid() and forks twice, outlived a successful run and a `kill -9` of kprof. The
//   keeper is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever the program leaves behind is
//   re-parented to the keeper, not to init, and the keeper kills it.
// - Why an executable: kprof runs in Python processes too (the module), with torch imported and
//   GiBs resident. A keeper that were a fork of kprof kept alive would share all of it
//   copy-on-write, and every page kprof writes during a session (for minutes, with standbys)
//   would be copied. This program is embedded in libkprof and started from a memfd
//   (process.cpp); it uses no C++ runtime, only libc.
// - Usage: `kprof-keeper GRACE_MS PATH ARGV0 ARGV...`, with the program's streams on 0-2, the
//   report pipe on 3 (process_keeper.hpp), every signal blocked (the keeper takes them with
//   sigtimedwait), the environment the program gets, in the directory it runs in, and a
//   parent-death signal (SIGTERM) on kprof's thread that runs it.
// - The program runs in its own process group (its pid), with every signal unblocked and a
//   parent-death signal (SIGKILL) on the keeper. The keeper reports its pid once its exec
//   succeeded (or the exec's errno), points its own 0-2 at /dev/null (the program's pipes are
//   the program's: kprof sees their end when the program's side closes), and waits:
//   - the program exits: everything left is killed;
//   - k_stop_signal from kprof (a timeout, a cancellation): SIGTERM to the program's group and to
//     every process re-parented to the keeper, then everything is killed once the program has
//     exited or the grace is over, whichever is first;
//   - SIGTERM, SIGINT, SIGHUP or SIGQUIT (its parent-death signal: kprof is gone, or somebody
//     stops the keeper): everything is killed at once.
//   Killing everything: SIGKILL to the program's group (the program is not reaped before, so its
//   pid, the group's id, cannot be recycled), then to every child of the keeper, again after
//   each reaping (the children of a killed process are re-parented to the keeper), until none is
//   left or k_reap_limit_ms is over; then the program's wait status goes to kprof.
// - What it cannot do: kill a process of another user (a setuid program, `sudo ncu`'s root
//   processes), one that is never its descendant (a service the program asked to start
//   something), or anything once the keeper itself is SIGKILLed (the OOM killer, `kill -9 -1`):
//   then the program dies of its parent-death signal and what it started is left.
#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "util/process_keeper.hpp"

extern char** environ; // NOLINT: POSIX global

namespace {

using kprof::keeper::Message;
using kprof::keeper::MessageKind;

void report(MessageKind kind, std::int32_t value) {
  const Message message{kind, value};
  while (::write(kprof::keeper::k_report_fd, &message, sizeof message) < 0 && errno == EINTR) {}
}

std::int64_t now_ms() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

/// Waits at most `ms` for one of `signals`; returns it, or 0 when none came.
int wait_signal(const sigset_t& signals, std::int64_t ms) {
  if (ms < 0) {
    ms = 0;
  }
  const timespec limit{static_cast<time_t>(ms / 1000), static_cast<long>((ms % 1000) * 1000000)};
  const int got = ::sigtimedwait(&signals, nullptr, &limit);
  return got > 0 ? got : 0;
}

bool parse_ms(const char* text, std::int64_t& value) {
  value = 0;
  if (*text == '\0') {
    return false;
  }
  for (; *text != '\0'; ++text) {
    if (*text < '0' || *text > '9' || value > 86400000) {
      return false;
    }
    value = value * 10 + (*text - '0');
  }
  return true;
}

/// Calls `each(pid)` for each pid in /proc/self/task/<pid>/children (CONFIG_PROC_CHILDREN: the
/// children of this thread, the keeper's only one). False when that file cannot be read.
template <class Each>
bool read_children_file(Each each) {
  std::array<char, 64> path{};
  std::snprintf(path.data(), path.size(), "/proc/self/task/%d/children",
                static_cast<int>(::getpid()));
  const int fd = ::open(path.data(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  std::array<char, 4096> chunk{};
  long pid = 0;
  bool digits = false;
  ssize_t got = 0;
  while ((got = ::read(fd, chunk.data(), chunk.size())) > 0) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(got); ++i) {
      const char c = chunk[i];
      if (c >= '0' && c <= '9') {
        pid = pid * 10 + (c - '0');
        digits = true;
      } else if (digits) {
        each(static_cast<pid_t>(pid));
        pid = 0;
        digits = false;
      }
    }
  }
  if (digits) {
    each(static_cast<pid_t>(pid));
  }
  ::close(fd);
  return true;
}

/// The parent of process `pid` from /proc/<pid>/stat, 0 when it cannot be read.
long parent_of(long pid) {
  std::array<char, 64> path{};
  std::snprintf(path.data(), path.size(), "/proc/%ld/stat", pid);
  const int fd = ::open(path.data(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return 0;
  }
  std::array<char, 1024> stat{};
  const ssize_t got = ::read(fd, stat.data(), stat.size() - 1);
  ::close(fd);
  if (got <= 0) {
    return 0;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so from its last ')'.
  const char* close_paren = std::strrchr(stat.data(), ')');
  long ppid = 0;
  if (close_paren == nullptr || std::sscanf(close_paren + 1, " %*c %ld", &ppid) != 1) {
    return 0;
  }
  return ppid;
}

/// Calls `each(pid)` for every child of the keeper: from its children file, else from every
/// /proc/<pid>/stat that names the keeper as parent.
template <class Each>
void for_each_child(Each each) {
  if (read_children_file(each)) {
    return;
  }
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return;
  }
  const long self = ::getpid();
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid > 0 && *end == '\0' && parent_of(pid) == self) {
      each(static_cast<pid_t>(pid));
    }
  }
  ::closedir(proc);
}

/// Reaps the processes re-parented to the keeper that have ended; true once the program has
/// ended (it is left unreaped).
bool program_ended(pid_t program) {
  while (true) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
      return errno != EINTR; // ECHILD: cannot be while the program is unreaped
    }
    if (info.si_pid == 0) {
      return false;
    }
    if (info.si_pid == program) {
      return true;
    }
    while (::waitpid(info.si_pid, nullptr, 0) < 0 && errno == EINTR) {}
  }
}

/// Kills the program's group and every descendant of the keeper, reaps them, and returns the
/// program's wait status (-1 when it was not reaped within k_reap_limit_ms).
int kill_everything(pid_t program) {
  ::kill(-program, SIGKILL);
  ::kill(program, SIGKILL); // in case it left its group
  sigset_t child_signal;
  sigemptyset(&child_signal);
  sigaddset(&child_signal, SIGCHLD);
  int program_status = -1;
  const std::int64_t give_up = now_ms() + kprof::keeper::k_reap_limit_ms;
  while (true) {
    bool killable = false; // a child took the signal (a zombie too): it is reaped soon
    for_each_child([&](pid_t child) { killable = ::kill(child, SIGKILL) == 0 || killable; });
    int status = 0;
    pid_t reaped = 0;
    bool any_reaped = false;
    while ((reaped = ::waitpid(-1, &status, WNOHANG)) > 0) {
      any_reaped = true;
      if (reaped == program) {
        program_status = status;
      }
    }
    if (reaped < 0 && errno == ECHILD) {
      break; // nothing left
    }
    // What is left cannot be signalled (another user's) and has not ended: leave it.
    if ((!killable && !any_reaped && program_status != -1) || now_ms() >= give_up) {
      break;
    }
    (void)wait_signal(child_signal, 20);
  }
  return program_status;
}

/// SIGTERM to the program's group and to every other child of the keeper.
void terminate_everything(pid_t program) {
  ::kill(-program, SIGTERM);
  for_each_child([&](pid_t child) {
    if (child != program) {
      ::kill(child, SIGTERM);
    }
  });
}

/// Waits for the program's end, a stop or the end of kprof (see the design note); then kills
/// what is left and returns the program's wait status.
int supervise(pid_t program, std::int64_t grace_ms) {
  sigset_t wanted;
  sigemptyset(&wanted);
  for (const int sig : {SIGCHLD, kprof::keeper::k_stop_signal, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) {
    sigaddset(&wanted, sig);
  }
  bool stopping = false;
  std::int64_t kill_at = 0;
  while (!program_ended(program)) {
    const std::int64_t wait = stopping ? kill_at - now_ms() : 1000;
    const int sig = wait_signal(wanted, wait);
    if (sig == kprof::keeper::k_stop_signal && !stopping) {
      terminate_everything(program);
      stopping = true;
      kill_at = now_ms() + grace_ms;
    } else if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT) {
      break;
    }
    if (stopping && now_ms() >= kill_at) {
      break;
    }
  }
  return kill_everything(program);
}

/// The program's side of the fork: its own group, its signals back, dies with the keeper.
[[noreturn]] void run_program(pid_t keeper, int exec_report, const char* path, char** argv) {
  ::close(kprof::keeper::k_report_fd);
  ::setpgid(0, 0);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != keeper) {
    ::_exit(127);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(path, argv, environ);
  const int error = errno;
  while (::write(exec_report, &error, sizeof error) < 0 && errno == EINTR) {}
  ::_exit(127);
}

} // namespace

int main(int argc, char** argv) {
  std::int64_t grace_ms = 0;
  if (argc < 4 || !parse_ms(argv[1], grace_ms)) {
    report(MessageKind::keeper_failed, EINVAL);
    return 127;
  }
  // Everything the program leaves behind comes to the keeper, not to init.
  (void)::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // kprof blocked every signal before its exec; block them again should it not have.
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  sigset_t pending;
  sigemptyset(&pending);
  ::sigpending(&pending);
  if (sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGHUP) == 1) {
    report(MessageKind::keeper_failed, ECANCELED); // kprof died before the program started
    return 127;
  }
  std::array<int, 2> exec_pipe{-1, -1};
  if (::pipe2(exec_pipe.data(), O_CLOEXEC) != 0) {
    report(MessageKind::keeper_failed, errno);
    return 127;
  }
  const pid_t keeper = ::getpid();
  const pid_t program = ::fork();
  if (program < 0) {
    report(MessageKind::keeper_failed, errno);
    return 127;
  }
  if (program == 0) {
    ::close(exec_pipe[0]);
    run_program(keeper, exec_pipe[1], argv[2], argv + 3);
  }
  ::setpgid(program, program); // also from here: the group exists before anyone signals it
  ::close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t got = 0;
  while ((got = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {}
  ::close(exec_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    while (::waitpid(program, nullptr, 0) < 0 && errno == EINTR) {}
    report(MessageKind::exec_failed, exec_errno);
    return 0;
  }
  report(MessageKind::started, static_cast<std::int32_t>(program));
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(null_fd, 2);
    ::close(null_fd);
  }
  const int status = supervise(program, grace_ms);
  if (status == -1) {
    report(MessageKind::keeper_failed, ETIMEDOUT);
  } else {
    report(MessageKind::finished, status);
  }
  return 0;
}

// kprof: starting a child for run_process (process.cpp): the fork, the child's set-up between fork
// and exec, the process keeper's image and what the keeper reports. process.cpp's design note
// says why it is done this way; process_keeper.cpp is the keeper itself.
#include "util/process_start.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "util/process_keeper.hpp"

extern char** environ; // NOLINT: POSIX global

namespace kprof {

/// The process keeper's executable (src/util/process_keeper.cpp), embedded at build time.
std::string_view process_keeper_image();

namespace {

/// Where exec_in_child puts the keeper's report pipe and its image, right after 0-2.
constexpr int k_image_fd = keeper::k_report_fd + 1;
/// Descriptors are moved at or above this first, so that no dup2 onto 0-4 overwrites another.
constexpr int k_fd_staging = 10;

/// The keeper's image in a sealed memfd, made once per process; -1 and why when it cannot be.
struct KeeperImage {
  int fd = -1;
  std::string unavailable;
};

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U // Linux 6.3: exec allowed under vm.memfd_noexec=1
#endif

KeeperImage make_keeper_image() {
  KeeperImage image;
  const std::string_view bytes = process_keeper_image();
  int fd = ::memfd_create("kprof-keeper", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL) { // a kernel before 6.3 knows no MFD_EXEC
    fd = ::memfd_create("kprof-keeper", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  }
  if (fd < 0) {
    image.unavailable = fmt::format("memfd_create failed: {}", errno_text(errno));
    return image;
  }
  UniqueFd owned(fd);
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      image.unavailable = fmt::format("cannot write the keeper's image: {}", errno_text(errno));
      return image;
    }
    written += static_cast<std::size_t>(n);
  }
  // Nobody may change what every child of this process runs through.
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    image.unavailable = fmt::format("cannot seal the keeper's image: {}", errno_text(errno));
    return image;
  }
  image.fd = owned.release();
  return image;
}

const KeeperImage& keeper_image() {
  static const KeeperImage image = make_keeper_image();
  return image;
}

/// Why children run without the keeper, once a child could not exec it (its report says
/// keeper_unavailable): later children run directly at once. Empty while it works.
std::mutex g_keeper_mutex;
std::string g_keeper_unavailable;

std::string keeper_unavailable_reason() {
  if (!keeper_image().unavailable.empty()) {
    return keeper_image().unavailable;
  }
  const std::lock_guard<std::mutex> hold(g_keeper_mutex);
  return g_keeper_unavailable;
}

/// The environment for the child: ours, minus env_unset, then env_set applied.
std::vector<std::string> child_environment(const ProcessSpec& spec) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    entries.emplace_back(*entry);
  }
  const auto remove_name = [&entries](std::string_view name) {
    std::erase_if(entries, [name](const std::string& entry) {
      return entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
             entry[name.size()] == '=';
    });
  };
  for (const std::string& name : spec.env_unset) {
    KPROF_ASSERT(!name.empty() && name.find('=') == std::string::npos);
    remove_name(name);
  }
  for (const auto& [name, value] : spec.env_set) {
    KPROF_ASSERT(!name.empty() && name.find('=') == std::string::npos);
    remove_name(name);
    entries.push_back(fmt::format("{}={}", name, value));
  }
  return entries;
}

std::vector<char*> c_pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& text : strings) {
    pointers.push_back(text.data());
  }
  pointers.push_back(nullptr);
  return pointers;
}

/// errno values of exec that mean "this program cannot be run" rather than "the system
/// could not start a process".
bool is_unrunnable(int error_number) {
  switch (error_number) {
  case ENOENT:
  case EACCES:
  case ENOEXEC:
  case ENOTDIR:
  case ELOOP:
  case ENAMETOOLONG:
  case EPERM:
  case EISDIR:
  case ETXTBSY:
    return true;
  default:
    return false;
  }
}

/// What the child needs between fork and exec, prepared before the fork.
struct ChildSetup {
  pid_t parent;
  int stdin_fd; ///< -1: /dev/null
  int stdout_fd;
  int stderr_fd;
  int report_fd;   ///< the keeper's reports; exec failures of a program run directly
  int image_fd;    ///< the keeper's image; -1: run the program directly
  const char* cwd; ///< nullptr: keep ours
  const char* path;
  char* const* argv;
  char* const* keeper_argv;
  char* const* envp;
};

void send_message(int fd, keeper::MessageKind kind, std::int32_t value) {
  const keeper::Message message{kind, value};
  while (::write(fd, &message, sizeof message) < 0 && errno == EINTR) {}
}

[[noreturn]] void child_failed(int report_fd, int error_number) {
  // Best effort: the parent reads EOF (and treats it as success) only if exec succeeded.
  send_message(report_fd, keeper::MessageKind::exec_failed, error_number);
  ::_exit(127);
}

/// Puts the child's descriptors in place: 0-2 its streams, 3 the report pipe, 4 the keeper's
/// image (close-on-exec), nothing else. False (errno set) when a dup fails.
bool arrange_descriptors(const ChildSetup& setup, int stdin_fd) {
  // Everything above 0-4 first, so that no dup2 below overwrites a descriptor still needed (our
  // own 0-2 may be closed, so the pipes may have any number).
  const int in = ::fcntl(stdin_fd, F_DUPFD_CLOEXEC, k_fd_staging);
  const int out = ::fcntl(setup.stdout_fd, F_DUPFD_CLOEXEC, k_fd_staging);
  const int err = ::fcntl(setup.stderr_fd, F_DUPFD_CLOEXEC, k_fd_staging);
  const int report = ::fcntl(setup.report_fd, F_DUPFD_CLOEXEC, k_fd_staging);
  const int image =
      setup.image_fd >= 0 ? ::fcntl(setup.image_fd, F_DUPFD_CLOEXEC, k_fd_staging) : -1;
  if (in < 0 || out < 0 || err < 0 || report < 0 || (setup.image_fd >= 0 && image < 0)) {
    return false;
  }
  if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 ||
      ::dup2(report, keeper::k_report_fd) < 0 ||
      (image >= 0 && ::dup3(image, k_image_fd, O_CLOEXEC) < 0)) {
    return false;
  }
  ::close_range(static_cast<unsigned>(k_image_fd) + 1, ~0U, 0);
  if (image < 0) {
    ::close(k_image_fd);
  }
  return true;
}

/// Runs in the forked child; never returns. Only async-signal-safe calls.
[[noreturn]] void exec_in_child(const ChildSetup& setup) {
  // Default dispositions, and every signal blocked: the keeper takes them with sigtimedwait (a
  // SIGTERM of its parent-death signal that comes before it waits stays pending for it); a
  // program run directly gets an empty mask just before its exec.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) {
      ::sigaction(sig, &default_action, nullptr); // fails harmlessly for reserved signals
    }
  }
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  ::setpgid(0, 0);
  // What kprof's children write (ncu's log and report, the harness's status) is never writable
  // by other users, whatever umask kprof was started with: kprof reads it back as its answer.
  const mode_t inherited = ::umask(0);
  ::umask(inherited | S_IWGRP | S_IWOTH);
  const bool use_keeper = setup.image_fd >= 0;
  // Die with kprof. A parent that died before the prctl is caught by the re-check.
  if (::prctl(PR_SET_PDEATHSIG, use_keeper ? SIGTERM : SIGKILL) != 0 ||
      ::getppid() != setup.parent) {
    ::_exit(127);
  }
  int stdin_fd = setup.stdin_fd;
  if (stdin_fd < 0) {
    stdin_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (stdin_fd < 0) {
      child_failed(setup.report_fd, errno);
    }
  }
  if (!arrange_descriptors(setup, stdin_fd)) {
    child_failed(setup.report_fd, errno);
  }
  if (setup.cwd != nullptr && ::chdir(setup.cwd) != 0) {
    child_failed(keeper::k_report_fd, errno);
  }
  if (use_keeper) {
    ::syscall(SYS_execveat, k_image_fd, "", setup.keeper_argv, setup.envp, AT_EMPTY_PATH);
    // No keeper here (a kernel or a security module that runs no memfd): say why once, and run
    // the program directly, with the death signal a direct child needs.
    send_message(keeper::k_report_fd, keeper::MessageKind::keeper_unavailable, errno);
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != setup.parent) {
      ::_exit(127);
    }
  }
  ::close(k_image_fd);
  ::fcntl(keeper::k_report_fd, F_SETFD, FD_CLOEXEC); // an exec that succeeds closes it
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(setup.path, setup.argv, setup.envp);
  child_failed(keeper::k_report_fd, errno);
}

} // namespace

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    KPROF_ASSERT(errno == EINTR);
  }
  return status;
}

namespace {

/// Reads one message from the report pipe (blocking); nullopt at EOF.
std::optional<keeper::Message> read_message(int fd) {
  std::array<char, sizeof(keeper::Message)> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return std::nullopt;
    }
    got += static_cast<std::size_t>(n);
  }
  keeper::Message message{};
  std::memcpy(&message, bytes.data(), sizeof message);
  return message;
}

/// The start of child `pid` as its report pipe tells it (see the design note): the keeper runs
/// the program, or the program runs directly, or why it could not start (the child reaped).
Result<StartedChild> await_start(pid_t pid, UniqueFd reports, const std::string& program) {
  while (true) {
    const auto message = read_message(reports.get());
    if (!message) {
      return StartedChild{pid, false, UniqueFd()}; // EOF: the program's exec closed the pipe
    }
    switch (message->kind) {
    case keeper::MessageKind::started:
      return StartedChild{pid, true, std::move(reports)};
    case keeper::MessageKind::keeper_unavailable: {
      const std::lock_guard<std::mutex> hold(g_keeper_mutex);
      g_keeper_unavailable =
          fmt::format("the keeper's image could not be run: {}", errno_text(message->value));
      continue;
    }
    case keeper::MessageKind::exec_failed: {
      reap(pid);
      const ErrorCategory category =
          is_unrunnable(message->value) ? ErrorCategory::input_not_found : ErrorCategory::io;
      return make_error(category,
                        fmt::format("cannot run {}: {}", program, errno_text(message->value)));
    }
    case keeper::MessageKind::keeper_failed:
    case keeper::MessageKind::finished:
      break;
    }
    reap(pid);
    return make_error(ErrorCategory::io,
                      fmt::format("cannot run {}: kprof's process keeper failed: {}", program,
                                  errno_text(message->value)));
  }
}

} // namespace

int program_status(const StartedChild& child, int own_status) {
  if (!child.keeper) {
    return own_status;
  }
  const auto last = read_message(child.reports.get());
  if (last && last->kind == keeper::MessageKind::finished) {
    return last->value;
  }
  if (last && last->kind == keeper::MessageKind::keeper_failed) {
    return SIGKILL; // not reaped in time: it was killed, and is gone or going
  }
  return own_status; // the keeper was killed (k_keeper_slack)
}

Result<StartedChild> start_child(const ProcessSpec& spec, const std::string& exec_path,
                                 const ChildStreams& streams) {
  const std::string& program = spec.argv.front();
  // The keeper's reports, or the errno of a failed exec; close-on-exec, so the exec of a
  // program run directly closes it (process_keeper.hpp).
  std::array<int, 2> report_fds{-1, -1};
  if (::pipe2(report_fds.data(), O_CLOEXEC) != 0) {
    return make_error(ErrorCategory::io,
                      fmt::format("cannot create a pipe: {}", errno_text(errno)));
  }
  UniqueFd report_read(report_fds[0]);
  UniqueFd report_write(report_fds[1]);

  std::vector<std::string> argv_strings = spec.argv;
  std::vector<char*> argv = c_pointers(argv_strings);
  // The grace in ms, as the keeper reads it (at most a day).
  const auto grace_ms = std::min<std::int64_t>(spec.kill_grace.count(), 86400000);
  std::vector<std::string> keeper_strings = {
      "kprof-keeper", std::to_string(std::max<std::int64_t>(0, grace_ms)), exec_path};
  keeper_strings.insert(keeper_strings.end(), spec.argv.begin(), spec.argv.end());
  std::vector<char*> keeper_argv = c_pointers(keeper_strings);
  std::vector<std::string> env_strings = child_environment(spec);
  std::vector<char*> envp = c_pointers(env_strings);
  const std::string cwd = spec.cwd ? spec.cwd->string() : std::string();
  const int image_fd = keeper_unavailable_reason().empty() ? keeper_image().fd : -1;
  const ChildSetup setup{::getpid(),
                         streams.stdin_fd,
                         streams.stdout_fd,
                         streams.stderr_fd,
                         report_write.get(),
                         image_fd,
                         cwd.empty() ? nullptr : cwd.c_str(),
                         exec_path.c_str(),
                         argv.data(),
                         keeper_argv.data(),
                         envp.data()};

  const pid_t pid = ::fork();
  if (pid < 0) {
    return make_error(ErrorCategory::io,
                      fmt::format("cannot run {}: fork failed: {}", program, errno_text(errno)));
  }
  if (pid == 0) {
    exec_in_child(setup); // the child: async-signal-safe calls only (see the design note)
  }
  // Also from here, so that a kill(-pid) right away cannot miss the group (EACCES once the
  // child has exec'd, which is fine: it did it itself).
  ::setpgid(pid, pid);
  report_write.reset();
  return await_start(pid, std::move(report_read), program);
}

std::optional<std::string> process_keeper_unavailable() {
  std::string reason = keeper_unavailable_reason();
  if (reason.empty()) {
    return std::nullopt;
  }
  return reason;
}

} // namespace kprof

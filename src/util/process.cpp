// kprof: the process runner.
//
// Design note.
// - Spawning (process_start.cpp): fork + exec with an argv vector, never a shell. What runs is
//   the process keeper (process_keeper.cpp, embedded in this library and exec'd from a sealed
//   memfd), which starts the program: the keeper is a child subreaper, so nothing the program
//   starts outlives it (a daemon that called setsid() too), and it kills all of it when the
//   program exits, when we ask it to stop, or when kprof dies. Where a memfd cannot be exec'd
//   (vm.memfd_noexec=2, a security module) the program is exec'd directly instead, with only its
//   process group killed (process_keeper_unavailable() says why). Either way the child gets its
//   own process group (Ctrl-C of the terminal does not reach it; kprof's handler stops it),
//   default signal dispositions, no descriptors beyond 0-2 (and the keeper's report pipe), a
//   umask without group or other write, and a parent-death signal: PR_SET_PDEATHSIG, SIGTERM for
//   the keeper (blocked, so that it can kill what the program started; the program's own is
//   SIGKILL on the keeper), SIGKILL for a program run directly, then a getppid() re-check for a
//   parent that died before the prctl. So `kill -9` of kprof leaves nothing running (posix_spawn
//   cannot set the death signal, hence fork). The signal fires when the *thread* that forked
//   exits; run_process() waits for its child in that thread, so the thread outlives the child.
//   Between fork and exec the child calls only async-signal-safe functions; everything it needs
//   (argv, envp, the resolved path) is built before the fork. Exec failures travel back as errno
//   through a close-on-exec pipe, which the keeper keeps for its reports (process_keeper.hpp).
//   A program name without '/' is looked up on *our* PATH (find_executable); one with '/' that is
//   relative is made absolute against our cwd first, so `cwd` does not change which program runs.
// - Waiting: one poll() loop drains stdout and stderr (non-blocking pipe ends) and feeds stdin,
//   so a child that floods either stream, or reads stdin slowly, never deadlocks with us. Child
//   exit is noticed with waitid(WNOWAIT) on each turn: the child stays a zombie until the very end,
//   which keeps its pid (= pgid) reserved, so a late kill(-pgid) can never hit a recycled id. The
//   poll timeout is bounded (50 ms, shorter right after the pipes close) and by the next deadline;
//   there is no busy loop and no SIGCHLD handler (a process-wide handler is not ours to set).
// - Timeout: the keeper is told to stop (keeper::k_stop_signal): SIGTERM to the program's group
//   and to all it adopted, then SIGKILL to all once the program has exited or the grace is over,
//   whichever is first; should the keeper not end within the grace and k_keeper_slack, it is
//   killed (the program dies of its parent-death signal). Without a keeper: SIGTERM to the
//   group, then SIGKILL to the group. A program that exits normally has nothing it started left
//   running either: the keeper kills it (without one, its group is killed).
// - Capture: each stream keeps its tail (max_captured_bytes); the buffer is trimmed only when it
//   reaches twice the limit, so trimming costs amortized O(1) per byte even for a 64 MB flood.
// - Writing stdin: a child that exits without reading it makes write() fail with EPIPE; SIGPIPE is
//   blocked in this thread around the write (and a pending one consumed), so kprof is not killed.
#include "kprof/process.hpp"

#include <atomic>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "util/process_keeper.hpp"
#include "util/process_start.hpp"
#include "util/unique_fd.hpp"

namespace kprof {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_cancellation_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");
/// How many cancellations were requested: a child started before one is stopped by it even when
/// clear_cancellation() came before its runner looked (a kept standby beside a cancelled call).
std::atomic<std::uint64_t> g_cancellations{0};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "used from a signal handler");

constexpr std::chrono::milliseconds k_exit_check_tick{50};
constexpr std::size_t k_read_chunk = std::size_t{1} << 16U;
constexpr int k_pipe_size = 1 << 20;
/// Bytes read in one turn of the loop from one stream before deadlines are looked at again.
constexpr std::size_t k_max_read_per_turn = std::size_t{4} << 20U;
/// After the child is gone, read what it left in the pipes, but not forever: a grandchild that
/// still holds the pipe could keep writing.
constexpr std::size_t k_max_final_drain = std::size_t{16} << 20U;
/// How long after the grace a keeper that was told to stop may take before it is killed.
constexpr std::chrono::milliseconds k_keeper_slack{keeper::k_reap_limit_ms + 1000};

/// The last `limit` bytes of a stream, and how many bytes were dropped before them.
class TailBuffer {
public:
  explicit TailBuffer(std::size_t limit) : m_limit(limit) {}

  void append(const char* data, std::size_t size) {
    m_data.append(data, size);
    // Trim at 2x the limit so that the erase (a memmove of `limit` bytes) is amortized.
    if (m_data.size() > 2 * m_limit) {
      trim();
    }
  }

  /// Drops the head beyond the limit; returns the tail and the dropped count.
  std::pair<std::string, std::size_t> finish() {
    trim();
    return {std::move(m_data), m_dropped};
  }

private:
  void trim() {
    if (m_data.size() > m_limit) {
      const std::size_t excess = m_data.size() - m_limit;
      m_data.erase(0, excess);
      m_dropped += excess;
    }
  }

  std::size_t m_limit;
  std::string m_data;
  std::size_t m_dropped = 0;
};

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Result<Pipe> make_pipe() {
  std::array<int, 2> fds{-1, -1};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) {
    return make_error(ErrorCategory::io,
                      fmt::format("cannot create a pipe: {}", errno_text(errno)));
  }
  // Bigger pipes mean fewer wake-ups for chatty children; best effort (the limit is
  // /proc/sys/fs/pipe-max-size, 1 MiB by default).
  ::fcntl(fds[0], F_SETPIPE_SZ, k_pipe_size);
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  KPROF_ASSERT(flags >= 0);
  KPROF_ASSERT(::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0);
}

/// write() that cannot raise SIGPIPE in this process (see the design note).
ssize_t write_without_sigpipe(int fd, const char* data, std::size_t size) {
  sigset_t pipe_set;
  sigset_t old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;

  const ssize_t written = ::write(fd, data, size);
  const int saved_errno = errno;
  if (written < 0 && saved_errno == EPIPE && !was_pending) {
    const timespec no_wait{};
    while (sigtimedwait(&pipe_set, nullptr, &no_wait) < 0 && errno == EINTR) {}
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = saved_errno;
  return written;
}

/// Reads what is available on `fd` into `buffer`, at most `budget` bytes. Returns false at EOF or
/// on a read error (the stream is finished), true when it would block or the budget is spent.
bool drain(int fd, TailBuffer& buffer, std::size_t budget) {
  std::array<char, k_read_chunk> chunk{};
  std::size_t taken = 0;
  while (taken < budget) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got > 0) {
      buffer.append(chunk.data(), static_cast<std::size_t>(got));
      taken += static_cast<std::size_t>(got);
      continue;
    }
    if (got < 0 && errno == EINTR) {
      continue;
    }
    // Would block: come back later. EOF, or an error we can do nothing about: the stream is done.
    return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

/// True once the child has exited; it stays a zombie (WNOWAIT) until reap().
bool has_exited(pid_t pid) {
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    KPROF_ASSERT(errno == EINTR);
  }
  return info.si_pid != 0;
}

int poll_timeout_ms(Clock::time_point now, Clock::time_point next_event,
                    std::chrono::milliseconds tick) {
  auto wait = tick;
  if (next_event != Clock::time_point::max()) {
    const auto until_event = std::chrono::ceil<std::chrono::milliseconds>(next_event - now);
    wait = std::clamp(until_event, std::chrono::milliseconds{0}, tick);
  }
  return static_cast<int>(wait.count());
}

std::string fixed_one_decimal(double value) {
  std::array<char, 64> text{};
  const auto [end, error] =
      std::to_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed, 1);
  KPROF_ASSERT(error == std::errc{});
  return std::string(text.data(), end);
}

} // namespace

std::string ProcessResult::describe() const {
  if (cancelled) {
    return "stopped: kprof was interrupted";
  }
  if (timed_out) {
    const double limit_seconds =
        timeout.count() > 0 ? std::chrono::duration<double>(timeout).count() : wall.count();
    return fmt::format("timed out after {} s", fixed_one_decimal(limit_seconds));
  }
  if (signaled) {
    const char* name = sigabbrev_np(term_signal);
    if (name == nullptr) {
      return fmt::format("killed by signal {}", term_signal);
    }
    return fmt::format("killed by signal {} (SIG{})", term_signal, name);
  }
  return fmt::format("exit code {}", exit_code);
}

// Above the tree's cognitive-complexity cap: fork, exec and the wait loop read best as one
// sequence (the process rules of ../shared/STYLE.md); split, the fd hand-offs scatter.
// NOLINTNEXTLINE(readability-function-cognitive-complexity)
Result<ProcessResult> run_process(const ProcessSpec& spec) {
  KPROF_ASSERT(!spec.argv.empty() && !spec.argv.front().empty());
  const std::string& program = spec.argv.front();

  if (spec.cwd) {
    std::error_code error;
    if (!std::filesystem::is_directory(*spec.cwd, error)) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("cannot run {} in {}: {}", program, spec.cwd->string(),
                                    errno_text(error ? error.value() : ENOTDIR)));
    }
  }
  const bool search_path = program.find('/') == std::string::npos;
  std::string exec_path = program;
  if (!search_path && spec.cwd && !std::filesystem::path(program).is_absolute()) {
    std::error_code error;
    exec_path = std::filesystem::absolute(program, error).string();
  }

  auto out_pipe = make_pipe();
  if (!out_pipe) {
    return std::move(out_pipe).error();
  }
  auto err_pipe = make_pipe();
  if (!err_pipe) {
    return std::move(err_pipe).error();
  }
  Pipe in_pipe;
  const bool feed_stdin = !spec.stdin_data.empty();
  if (feed_stdin) {
    auto created = make_pipe();
    if (!created) {
      return std::move(created).error();
    }
    in_pipe = std::move(created).value();
  }

  if (search_path) {
    auto found = find_executable(program);
    if (!found) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("cannot run {}: {}", program, errno_text(ENOENT)));
    }
    exec_path = found->string();
  }
  const std::uint64_t cancellations_before = g_cancellations.load();
  const Clock::time_point started = Clock::now();
  auto spawned = start_child(spec, exec_path,
                             ChildStreams{feed_stdin ? in_pipe.read_end.get() : -1,
                                          out_pipe->write_end.get(), err_pipe->write_end.get()});
  if (!spawned) {
    return std::move(spawned).error();
  }
  const pid_t pid = spawned->pid;
  const bool keeper = spawned->keeper;

  // The child holds its ends now; ours must go, or we would never see EOF.
  out_pipe->write_end.reset();
  err_pipe->write_end.reset();
  in_pipe.read_end.reset();
  UniqueFd out_fd = std::move(out_pipe->read_end);
  UniqueFd err_fd = std::move(err_pipe->read_end);
  UniqueFd in_fd = std::move(in_pipe.write_end);
  set_nonblocking(out_fd.get());
  set_nonblocking(err_fd.get());
  if (in_fd) {
    set_nonblocking(in_fd.get());
  }

  TailBuffer out_buffer(spec.max_captured_bytes);
  TailBuffer err_buffer(spec.max_captured_bytes);
  std::size_t stdin_offset = 0;

  Clock::time_point deadline =
      spec.timeout.count() > 0 ? started + spec.timeout : Clock::time_point::max();
  Clock::time_point kill_at = Clock::time_point::max();
  bool term_sent = false;
  bool cancelled = false;
  bool kill_sent = false;
  bool exited = false;
  std::chrono::milliseconds idle_tick{1};

  while (true) {
    const Clock::time_point now = Clock::now();
    exited = exited || has_exited(pid);
    const bool stopped = spec.control && spec.control->stop.load();
    if (spec.control) {
      if (const std::int64_t late = spec.control->deadline_ns.load(); late > 0) {
        deadline = std::min(deadline, Clock::time_point(std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::nanoseconds(late))));
      }
    }
    const bool cancelled_since_start =
        cancellation_requested() || g_cancellations.load() != cancellations_before;
    if (!term_sent && !exited &&
        (now >= deadline || stopped || (!spec.ignore_cancellation && cancelled_since_start))) {
      cancelled = now < deadline;
      // The keeper sends SIGTERM to all the program started, and SIGKILL after the grace.
      ::kill(keeper ? pid : -pid, keeper ? keeper::k_stop_signal : SIGTERM);
      term_sent = true;
      kill_at = now + spec.kill_grace + (keeper ? k_keeper_slack : std::chrono::milliseconds(0));
    }
    if (term_sent && !kill_sent && (exited || now >= kill_at)) {
      if (!keeper) {
        ::kill(-pid, SIGKILL);
      } else if (!exited) {
        ::kill(pid, SIGKILL); // a keeper that did not end: the program dies with it
      }
      kill_sent = true;
    }
    if (exited) {
      if (!keeper) {
        ::kill(-pid, SIGKILL); // what the program left in its group (its pid is still reserved)
      }
      break;
    }

    std::array<pollfd, 3> fds{};
    nfds_t count = 0;
    const auto watch = [&](const UniqueFd& fd, short events) {
      if (fd) {
        fds[count++] = pollfd{fd.get(), events, 0};
      }
    };
    watch(out_fd, POLLIN);
    watch(err_fd, POLLIN);
    watch(in_fd, POLLOUT);

    // With pipes open, their activity wakes us and the tick only bounds how late we notice the
    // exit. With all pipes closed the child is usually exiting right now: back off from 1 ms.
    std::chrono::milliseconds tick = k_exit_check_tick;
    if (count == 0) {
      tick = idle_tick;
      idle_tick = std::min(idle_tick * 2, k_exit_check_tick);
    }
    const Clock::time_point next_event = term_sent ? kill_at : deadline;
    const int ready = ::poll(fds.data(), count, poll_timeout_ms(now, next_event, tick));
    if (ready < 0) {
      KPROF_ASSERT(errno == EINTR);
      continue;
    }
    for (nfds_t i = 0; i < count; ++i) {
      const pollfd& entry = fds[i];
      if (entry.revents == 0) {
        continue;
      }
      if (entry.fd == out_fd.get()) {
        if (!drain(entry.fd, out_buffer, k_max_read_per_turn)) {
          out_fd.reset();
        }
        continue;
      }
      if (entry.fd == err_fd.get()) {
        if (!drain(entry.fd, err_buffer, k_max_read_per_turn)) {
          err_fd.reset();
        }
        continue;
      }
      // stdin
      if ((entry.revents & (POLLERR | POLLHUP)) != 0) {
        in_fd.reset(); // the child closed its stdin: it does not want the rest
        continue;
      }
      const std::string_view rest = std::string_view(spec.stdin_data).substr(stdin_offset);
      const ssize_t written = write_without_sigpipe(in_fd.get(), rest.data(), rest.size());
      if (written > 0) {
        stdin_offset += static_cast<std::size_t>(written);
      } else if (written < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        in_fd.reset(); // EPIPE: the child exited or closed stdin without reading it all
      }
      if (stdin_offset == spec.stdin_data.size()) {
        in_fd.reset(); // EOF for the child
      }
    }
  }

  in_fd.reset();
  if (out_fd) {
    drain(out_fd.get(), out_buffer, k_max_final_drain);
  }
  if (err_fd) {
    drain(err_fd.get(), err_buffer, k_max_final_drain);
  }
  const int status = program_status(*spawned, reap(pid));

  ProcessResult result;
  result.wall = Clock::now() - started;
  result.timeout = spec.timeout;
  if (spec.control && spec.control->deadline_ns.load() > 0) {
    result.timeout = std::chrono::milliseconds(spec.control->deadline_timeout_ms.load());
  }
  result.timed_out = term_sent && !cancelled;
  result.cancelled = cancelled;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
    result.signaled = !term_sent;
  }
  std::tie(result.out, result.out_dropped) = out_buffer.finish();
  std::tie(result.err, result.err_dropped) = err_buffer.finish();
  return result;
}

void request_cancellation() noexcept {
  g_cancellations.fetch_add(1);
  g_cancellation_requested.store(true);
}

bool cancellation_requested() noexcept {
  return g_cancellation_requested.load();
}

void clear_cancellation() noexcept {
  g_cancellation_requested.store(false);
}

std::optional<std::filesystem::path> find_executable(std::string_view program) {
  const auto runnable = [](const std::filesystem::path& candidate) {
    struct stat info {};
    return ::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(candidate.c_str(), X_OK) == 0;
  };
  if (program.empty()) {
    return std::nullopt;
  }
  if (program.find('/') != std::string_view::npos) {
    std::filesystem::path candidate(program);
    return runnable(candidate) ? std::optional(candidate) : std::nullopt;
  }
  const char* path_variable = std::getenv("PATH");
  // execvp's default when PATH is unset.
  const std::string_view search = path_variable != nullptr ? path_variable : "/bin:/usr/bin";
  std::size_t start = 0;
  while (start <= search.size()) {
    std::size_t end = search.find(':', start);
    if (end == std::string_view::npos) {
      end = search.size();
    }
    const std::string_view directory = search.substr(start, end - start);
    // An empty PATH entry means the current directory (POSIX legacy).
    std::filesystem::path candidate =
        std::filesystem::path(directory.empty() ? "." : directory) / std::filesystem::path(program);
    if (runnable(candidate)) {
      return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

} // namespace kprof

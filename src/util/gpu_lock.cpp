// kprof: the per-GPU lock.
//
// flock() rather than a pid file: the kernel drops the lock when the holder dies, so a crashed
// kprof never leaves a stale lock behind. The lock files are never deleted (deleting one while it
// is held would let a second process lock a fresh inode under the same name).
//
// Design note: a lock directory and its files are input from a hostile user. Root runs kprof on
// most GPU hosts (ncu needs the counters), and a lock directory in /tmp is a name any user can
// make first. So a directory is used only when it belongs to this user or root and no other user
// can write it unless it is sticky, under ancestors no other user can rename it out of
// (safe_directory_chain); its files are reached through a descriptor of the directory itself, and
// opened with O_NOFOLLOW | O_NONBLOCK (a planted link is never followed, a planted FIFO never
// blocks), then checked with fstat (a regular file with one link, and in a private directory one
// of this user's). A lock file is only ever opened read-only and flocked, never written: in a
// shared directory the first user to lock a GPU creates its file 0644 and every other user opens
// that file. What a hostile user can still do there is what any user of a shared GPU can do: hold
// its lock (the busy message says for how long), or leave a file others cannot open (refused,
// with its owner named).
#include "kprof/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "util/unique_fd.hpp"

namespace kprof {
namespace {

using Clock = std::chrono::steady_clock;

// Short, so that a round waiting for the GPU takes it before a standby that also waits for it to
// do its setup (the harness polls every 100 ms: templates/kprof_harness/locks.py, take_gpu_lock):
// the round's candidates are waited for, the standby's setup is not. A poll is one flock call.
constexpr std::chrono::milliseconds k_poll_interval{10};

constexpr std::string_view k_rule = "kprof uses a lock directory only when it belongs to you or "
                                    "root and no other user can write it unless it is sticky";
constexpr std::string_view k_fix =
    "Ask its owner or an administrator to remove it, or set KPROF_LOCK_DIR to a directory of your "
    "own (runs there are not coordinated with other users' runs)";

Error refuse_directory(const std::filesystem::path& dir, std::string_view why) {
  return make_error(ErrorCategory::io, fmt::format("GPU lock directory {} refused: {}; {}. {}",
                                                   dir.string(), why, k_rule, k_fix));
}

Error refuse_file(const std::filesystem::path& path, std::string_view why) {
  return make_error(ErrorCategory::io,
                    fmt::format("GPU lock file {} refused: {}. {}", path.string(), why, k_fix));
}

std::string_view file_kind(mode_t mode) {
  if (S_ISLNK(mode)) {
    return "a symbolic link";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  if (S_ISCHR(mode) || S_ISBLK(mode)) {
    return "a device";
  }
  return "a special file";
}

/// Creates `dir` 0700 (its missing parents as create_directories does) when nothing has its name.
Result<void> create_missing_directory(const std::filesystem::path& dir) {
  struct stat info {};
  if (::lstat(dir.c_str(), &info) == 0 || errno != ENOENT) {
    return {};
  }
  if (auto parents = kprof::create_directories(dir.parent_path()); !parents) {
    return refuse_directory(dir, parents.error().message);
  }
  if (::mkdir(dir.c_str(), S_IRWXU) != 0 && errno != EEXIST) {
    return make_error(ErrorCategory::io, fmt::format("cannot create GPU lock directory {}: {}",
                                                     dir.string(), errno_text(errno)));
  }
  return {};
}

/// A descriptor of the lock directory `dir` and who shares it, once the directory passed the checks
/// of the file comment.
struct OpenedDirectory {
  UniqueFd fd;
  LockSharing sharing = LockSharing::this_user;
};

Result<OpenedDirectory> open_lock_directory(const std::filesystem::path& dir) {
  if (auto created = create_missing_directory(dir); !created) {
    return std::move(created).error();
  }
  if (auto chain = safe_directory_chain(dir); !chain) {
    return refuse_directory(dir, chain.error().message);
  }
  std::error_code error;
  const std::filesystem::path real = std::filesystem::canonical(dir, error);
  if (error) {
    return refuse_directory(dir, error.message());
  }
  OpenedDirectory opened;
  opened.fd.reset(::open(real.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!opened.fd) {
    return refuse_directory(dir, errno == ENOTDIR ? "not a directory" : errno_text(errno));
  }
  // Checked again on the descriptor: what was checked by name may have been swapped since.
  struct stat info {};
  if (::fstat(opened.fd.get(), &info) != 0) {
    return refuse_directory(dir, errno_text(errno));
  }
  if (info.st_uid != ::geteuid() && info.st_uid != 0) {
    return refuse_directory(dir, fmt::format("it belongs to {}", user_text(info.st_uid)));
  }
  const bool others_write = (info.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (others_write && (info.st_mode & S_ISVTX) == 0) {
    return refuse_directory(dir, "it is writable by other users and not sticky");
  }
  opened.sharing = others_write ? LockSharing::all_users : LockSharing::this_user;
  return opened;
}

/// Why `name` in the directory `dir_fd` cannot be opened, as a refusal of `path`.
Error open_failure(int dir_fd, const std::filesystem::path& path, std::string_view name,
                   int error_number) {
  struct stat info {};
  const bool seen = ::fstatat(dir_fd, std::string(name).c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0;
  if (error_number == ELOOP && seen && S_ISLNK(info.st_mode)) {
    std::array<char, 4096> target{};
    const ssize_t length =
        ::readlinkat(dir_fd, std::string(name).c_str(), target.data(), target.size() - 1);
    return refuse_file(
        path, fmt::format("it is a symbolic link of {} to {}", user_text(info.st_uid),
                          length > 0 ? std::string_view(target.data(), static_cast<size_t>(length))
                                     : std::string_view("?")));
  }
  if (error_number == EACCES && seen) {
    return refuse_file(path, fmt::format("it belongs to {} with mode {:04o}, which you may not "
                                         "open",
                                         user_text(info.st_uid), info.st_mode & 07777));
  }
  return make_error(ErrorCategory::io, fmt::format("cannot open GPU lock file {}: {}",
                                                   path.string(), errno_text(error_number)));
}

/// Opens (creating if needed) the lock file `name` of the checked directory `dir`, as the file
/// comment says. Read-only is enough for flock, and lets a user lock a file another user created.
Result<UniqueFd> open_lock_file(const OpenedDirectory& dir, const std::filesystem::path& dir_path,
                                std::string_view name) {
  const std::filesystem::path path = dir_path / name;
  const std::string name_text(name);
  constexpr int k_flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  const mode_t mode = dir.sharing == LockSharing::all_users ? 0644 : 0600;
  UniqueFd fd;
  // Open an existing file without O_CREAT first: in a sticky world-writable directory,
  // fs.protected_regular refuses O_CREAT on a file owned by someone else. A file made or removed
  // between the two calls is looked at again.
  for (int attempt = 0; !fd && attempt < 3; ++attempt) {
    fd.reset(::openat(dir.fd.get(), name_text.c_str(), k_flags));
    if (fd || errno != ENOENT) {
      break;
    }
    fd.reset(::openat(dir.fd.get(), name_text.c_str(), k_flags | O_CREAT | O_EXCL, mode));
    if (fd) {
      ::fchmod(fd.get(), mode); // past the umask, so other users of a shared directory can open it
    } else if (errno != EEXIST) {
      break;
    }
  }
  if (!fd) {
    return open_failure(dir.fd.get(), path, name, errno);
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    return make_error(ErrorCategory::io, fmt::format("cannot stat GPU lock file {}: {}",
                                                     path.string(), errno_text(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return refuse_file(path, fmt::format("it is {} of {}, not a regular file",
                                         file_kind(info.st_mode), user_text(info.st_uid)));
  }
  if (info.st_nlink != 1) {
    return refuse_file(
        path, fmt::format("it has {} hard links (of {})", info.st_nlink, user_text(info.st_uid)));
  }
  if (dir.sharing == LockSharing::this_user && info.st_uid != ::geteuid()) {
    return refuse_file(
        path, fmt::format("it belongs to {} in a directory of yours", user_text(info.st_uid)));
  }
  return fd;
}

std::string seconds_text(std::chrono::duration<double> duration) {
  std::array<char, 64> text{};
  const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), duration.count(),
                                          std::chars_format::fixed, 1);
  KPROF_ASSERT(error == std::errc{});
  return std::string(text.data(), end);
}

/// Who holds the flock on the file `fd` is open on, from /proc/locks: " (held by pid N (comm) of
/// uid U (name))", or "" when it cannot be told (another PID namespace, no /proc).
std::string lock_holder(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return {};
  }
  auto locks = read_file("/proc/locks");
  if (!locks) {
    return {};
  }
  // "1: FLOCK  ADVISORY  WRITE 1234 fd:01:123456 0 EOF": the device in hex, the inode in decimal.
  const std::string key =
      fmt::format(" {:02x}:{:02x}:{} ", major(info.st_dev), minor(info.st_dev), info.st_ino);
  std::string_view rest = *locks;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    const std::size_t at = line.find(key);
    if (line.find("FLOCK") == std::string_view::npos || at == std::string_view::npos) {
      continue;
    }
    const std::size_t pid_start = line.rfind(' ', at - 1) + 1;
    const std::string pid(line.substr(pid_start, at - pid_start));
    struct stat process {};
    if (::stat(("/proc/" + pid).c_str(), &process) != 0) {
      return fmt::format(" (held by pid {})", pid);
    }
    auto comm = read_file("/proc/" + pid + "/comm");
    std::string command = comm ? std::move(comm).value() : std::string();
    while (!command.empty() && command.back() == '\n') {
      command.pop_back();
    }
    return fmt::format(" (held by pid {}{} of {})", pid,
                       command.empty() ? "" : fmt::format(" ({})", command),
                       user_text(process.st_uid));
  }
  return {};
}

/// Whether `dir` would serve as the host's shared lock directory.
bool usable_lock_directory(const std::filesystem::path& dir) {
  struct stat info {};
  return ::stat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && safe_directory_chain(dir);
}

} // namespace

std::filesystem::path GpuLock::default_dir(const std::filesystem::path& tmp) {
  if (auto dir = env_var("KPROF_LOCK_DIR")) {
    return *dir;
  }
  std::filesystem::path shared = tmp / "kprof-locks";
  if (::geteuid() == 0 && ::mkdir(shared.c_str(), 0755) == 0) {
    ::chmod(shared.c_str(), 01777); // past the umask: root's shared directory, sticky like /tmp
  }
  if (usable_lock_directory(shared)) {
    return shared;
  }
  return tmp / fmt::format("kprof-locks-{}", ::geteuid());
}

std::string visible_device(int index) {
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr) {
    std::string_view rest(visible);
    for (int i = 0; !rest.empty(); ++i) {
      const auto comma = rest.find(',');
      const std::string_view entry = rest.substr(0, comma);
      if (i == index && !entry.empty()) {
        return std::string(entry);
      }
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  return std::to_string(index);
}

std::filesystem::path GpuLock::file_of(const std::filesystem::path& dir, int gpu) {
  std::string device = visible_device(gpu);
  for (char& c : device) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-') {
      c = '_';
    }
  }
  return dir / fmt::format("gpu{}.lock", device);
}

Result<LockSharing> GpuLock::prepare_dir(const std::filesystem::path& dir, std::optional<int> gpu) {
  auto opened = open_lock_directory(dir);
  if (!opened) {
    return std::move(opened).error();
  }
  if (auto call_lock = open_lock_file(*opened, dir, k_profiled_call_lock_file); !call_lock) {
    return std::move(call_lock).error();
  }
  if (gpu) {
    if (auto gpu_lock = open_lock_file(*opened, dir, file_of(dir, *gpu).filename().string());
        !gpu_lock) {
      return std::move(gpu_lock).error();
    }
  }
  return opened->sharing;
}

Result<GpuLock> GpuLock::acquire(const std::filesystem::path& dir, int gpu,
                                 std::chrono::milliseconds max_wait) {
  KPROF_ASSERT(gpu >= 0);
  const Clock::time_point started = Clock::now();
  auto opened = open_lock_directory(dir);
  if (!opened) {
    return std::move(opened).error();
  }
  // The harness's lock file too, so that the harness never creates one (it only opens them).
  if (auto call_lock = open_lock_file(*opened, dir, k_profiled_call_lock_file); !call_lock) {
    return std::move(call_lock).error();
  }
  const std::filesystem::path path = file_of(dir, gpu);
  auto locked_file = open_lock_file(*opened, dir, path.filename().string());
  if (!locked_file) {
    return std::move(locked_file).error();
  }
  UniqueFd fd = std::move(locked_file).value();

  while (true) {
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
      return GpuLock(fd.release(), gpu, Clock::now() - started);
    }
    if (errno == EINTR) {
      continue;
    }
    if (errno != EWOULDBLOCK) {
      return make_error(ErrorCategory::io, fmt::format("cannot lock GPU lock file {}: {}",
                                                       path.string(), errno_text(errno)));
    }
    const Clock::duration waited = Clock::now() - started;
    if (waited >= max_wait) {
      return make_error(ErrorCategory::gpu_busy,
                        fmt::format("GPU {} is busy: another kprof process has held its lock for "
                                    "{} s (lock file {}){}",
                                    gpu, seconds_text(waited), path.string(),
                                    lock_holder(fd.get())));
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(k_poll_interval, max_wait - waited));
  }
}

GpuLock::GpuLock(GpuLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_gpu(other.m_gpu), m_waited(other.m_waited) {}

GpuLock& GpuLock::operator=(GpuLock&& other) noexcept {
  if (this != &other) {
    UniqueFd released(m_fd); // closes (and so unlocks) the lock we held
    m_fd = std::exchange(other.m_fd, -1);
    m_gpu = other.m_gpu;
    m_waited = other.m_waited;
  }
  return *this;
}

GpuLock::~GpuLock() {
  UniqueFd released(m_fd);
}

} // namespace kprof

// kprof: the per-GPU lock.
//
// flock() rather than a pid file: the kernel drops the lock when the holder dies, so a crashed
// kprof never leaves a stale lock behind. The lock files are never deleted (deleting one while it
// is held would let a second process lock a fresh inode under the same name); the directory is
// world-writable and sticky, like /tmp, so several users share it and none can delete another's
// lock file.
#include "kprof/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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
// do its setup (the harness polls every 100 ms: templates/harness.py, take_gpu_lock): the round's
// candidates are waited for, the standby's setup is not. A poll is one flock call.
constexpr std::chrono::milliseconds k_poll_interval{10};

Error lock_io_error(const std::filesystem::path& path, std::string_view what, int error_number) {
  return make_error(ErrorCategory::io, fmt::format("cannot {} GPU lock file {}: {}", what,
                                                   path.string(), errno_text(error_number)));
}

/// Creates the lock directory (shared: 1777) when missing.
Result<void> ensure_lock_directory(const std::filesystem::path& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0) {
    ::chmod(dir.c_str(), 01777); // past the umask; best effort, the owner can use it regardless
    return {};
  }
  if (errno == EEXIST) {
    return {};
  }
  if (errno == ENOENT) { // missing parents: those get ordinary permissions
    if (auto created = kprof::create_directories(dir.parent_path()); !created) {
      return std::move(created).error();
    }
    if (::mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) {
      ::chmod(dir.c_str(), 01777);
      return {};
    }
  }
  return make_error(ErrorCategory::io, fmt::format("cannot create GPU lock directory {}: {}",
                                                   dir.string(), errno_text(errno)));
}

/// Opens (creating if needed) the lock file. Read-only is enough for flock, and lets a user lock a
/// file another user created.
Result<UniqueFd> open_lock_file(const std::filesystem::path& path) {
  // Open an existing file without O_CREAT first: in a sticky world-writable directory,
  // fs.protected_regular refuses O_CREAT on a file owned by someone else.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd && errno == ENOENT) {
    fd.reset(::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666));
    if (fd) {
      ::fchmod(fd.get(), 0666); // past the umask, so other users can open it too; best effort
    }
  }
  if (!fd) {
    return lock_io_error(path, "open", errno);
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

} // namespace

std::filesystem::path GpuLock::default_dir() {
  if (auto dir = env_var("KPROF_LOCK_DIR")) {
    return *dir;
  }
  return "/tmp/kprof-locks";
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

Result<void> GpuLock::prepare_dir(const std::filesystem::path& dir) {
  return ensure_lock_directory(dir);
}

Result<GpuLock> GpuLock::acquire(const std::filesystem::path& dir, int gpu,
                                 std::chrono::milliseconds max_wait) {
  KPROF_ASSERT(gpu >= 0);
  const Clock::time_point started = Clock::now();
  if (auto ready = ensure_lock_directory(dir); !ready) {
    return std::move(ready).error();
  }
  const std::filesystem::path path = file_of(dir, gpu);
  auto opened = open_lock_file(path);
  if (!opened) {
    return std::move(opened).error();
  }
  UniqueFd fd = std::move(opened).value();

  while (true) {
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
      return GpuLock(fd.release(), gpu, Clock::now() - started);
    }
    if (errno == EINTR) {
      continue;
    }
    if (errno != EWOULDBLOCK) {
      return lock_io_error(path, "lock", errno);
    }
    const Clock::duration waited = Clock::now() - started;
    if (waited >= max_wait) {
      return make_error(ErrorCategory::gpu_busy,
                        fmt::format("GPU {} is busy: another kprof process has held its lock for "
                                    "{} s (lock file {})",
                                    gpu, seconds_text(waited), path.string()));
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

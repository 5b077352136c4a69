// kprof: a cross-process lock per GPU, so two kprof processes never profile on one GPU at once.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "kprof/error.hpp"

namespace kprof {

/// The device that GPU index `index` names for this process, as CUDA_VISIBLE_DEVICES spells it:
/// the index-th entry of this process's $CUDA_VISIBLE_DEVICES when it is set and has one (a Slurm
/// task given GPUs 3 and 5 sees "3,5": index 1 is "5"), else the index itself.
std::string visible_device(int index);

/// The file in the lock directory that every harness of the host holds around its profiled call
/// (HarnessPlan::profiled_call_lock): one GPU's replay passes at a time.
inline constexpr std::string_view k_profiled_call_lock_file = "profiled-calls.lock";

/// Where the GPU locks live and who shares them (docs/shared-host.md, "The GPU locks").
///
/// A lock directory is input from a hostile user: kprof uses one only when it is a real directory
/// (not a symbolic link) that belongs to this user or root and that no other user can write unless
/// it is sticky, under ancestors no other user can rename it out of. A directory that others may
/// write into (sticky, like /tmp) is shared: every user's kprof locks its GPUs there. Any other
/// directory is private to this user.
enum class LockSharing { this_user, all_users };

/// An exclusive flock on `<dir>/gpu<N>.lock`, N the device visible_device() names (a UUID's
/// characters other than letters, digits and '-' become '_'). The lock dies with the process, so a
/// crashed holder never blocks others. Move-only; released by the destructor.
///
/// A lock file is opened read-only with O_NOFOLLOW | O_NONBLOCK and used only when fstat finds a
/// regular file with one link (in a private directory, one of this user's): a planted symbolic
/// link, FIFO, hard link or foreign file is refused with a message naming the path, its owner and
/// the fix, and kprof never blocks in open(). A missing one is created (O_EXCL) 0600 in a private
/// directory and 0644 in a shared one, so that other users can open it read-only to flock it.
class GpuLock {
public:
  /// The lock directory when none is configured: $KPROF_LOCK_DIR when set; else
  /// `<tmp>/kprof-locks`, the host's shared directory, when it is usable as a shared one (root's
  /// kprof makes it, 1777, when it is missing; an administrator may make it with
  /// `install -d -m 1777 -o root -g root /tmp/kprof-locks`); else `<tmp>/kprof-locks-<uid>`, this
  /// user's own. `tmp` is a parameter for tests only.
  static std::filesystem::path default_dir(const std::filesystem::path& tmp = "/tmp");

  /// The lock file of `gpu` in `dir`: `<dir>/gpu<N>.lock` (N as the class comment says). A
  /// harness that holds an flock on it excludes kprof processes exactly as a GpuLock does.
  static std::filesystem::path file_of(const std::filesystem::path& dir, int gpu);

  /// Checks `dir` as the comment of LockSharing says (creating it 0700, and missing parents, when
  /// it does not exist) and creates its profiled-call lock file (k_profiled_call_lock_file) and
  /// the lock file of `gpu` (when given) as acquire() does, for a harness that locks them itself
  /// and never creates one. Returns who shares the directory; io error naming the path, its owner
  /// and the fix when the directory or a lock file is refused.
  static Result<LockSharing> prepare_dir(const std::filesystem::path& dir,
                                         std::optional<int> gpu = std::nullopt);

  /// prepare_dir(dir, gpu), then waits up to `max_wait` for the lock of `gpu` (polling); gpu_busy
  /// error when the wait is over, io error as prepare_dir says.
  static Result<GpuLock> acquire(const std::filesystem::path& dir, int gpu,
                                 std::chrono::milliseconds max_wait);

  GpuLock(GpuLock&& other) noexcept;
  GpuLock& operator=(GpuLock&& other) noexcept;
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  ~GpuLock();

  [[nodiscard]] int gpu() const { return m_gpu; }
  /// How long acquire() waited.
  [[nodiscard]] std::chrono::duration<double> waited() const { return m_waited; }

private:
  GpuLock(int fd, int gpu, std::chrono::duration<double> waited)
      : m_fd(fd), m_gpu(gpu), m_waited(waited) {}
  int m_fd = -1;
  int m_gpu = -1;
  std::chrono::duration<double> m_waited{0};
};

} // namespace kprof

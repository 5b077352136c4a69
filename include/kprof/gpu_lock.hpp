// kprof: a cross-process lock per GPU, so two kprof processes never profile on one GPU at once.
#pragma once

#include <chrono>
#include <filesystem>
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

/// An exclusive flock on `<dir>/gpu<N>.lock`, N the device visible_device() names (a UUID's
/// characters other than letters, digits and '-' become '_'). The lock dies with the process, so a
/// crashed holder never blocks others. Move-only; released by the destructor.
class GpuLock {
public:
  /// Default lock directory: $KPROF_LOCK_DIR, else /tmp/kprof-locks.
  static std::filesystem::path default_dir();

  /// The lock file of `gpu` in `dir`: `<dir>/gpu<N>.lock` (N as the class comment says). A
  /// harness that holds an flock on it excludes kprof processes exactly as a GpuLock does.
  static std::filesystem::path file_of(const std::filesystem::path& dir, int gpu);

  /// Makes `dir` as acquire() does (and checks it the same way), for a harness that will lock
  /// one of its files itself.
  static Result<void> prepare_dir(const std::filesystem::path& dir);

  /// Waits up to `max_wait` for the lock of `gpu` (polling); gpu_busy error when the wait is over,
  /// io error when the lock file cannot be created.
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

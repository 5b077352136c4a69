#include "kprof/gpu_lock.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "util/unique_fd.hpp"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

kprof::TempDir make_temp_dir() {
  auto dir = kprof::TempDir::create("kprof-lock-test");
  KPROF_ASSERT(dir.ok());
  return std::move(dir).value();
}

/// Runs `body` in a forked child; returns its exit code and what it wrote to the pipe it is given.
template <class Body>
std::pair<int, std::string> in_child_process(Body body) {
  std::array<int, 2> fds{};
  KPROF_ASSERT(::pipe(fds.data()) == 0);
  kprof::UniqueFd read_end(fds[0]);
  kprof::UniqueFd write_end(fds[1]);
  const pid_t pid = ::fork();
  KPROF_ASSERT(pid >= 0);
  if (pid == 0) {
    read_end.reset();
    const int code = body(write_end.get());
    ::_exit(code);
  }
  write_end.reset();
  std::string text;
  std::array<char, 4096> chunk{};
  ssize_t got = 0;
  while ((got = ::read(read_end.get(), chunk.data(), chunk.size())) > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(got));
  }
  int status = 0;
  KPROF_ASSERT(::waitpid(pid, &status, 0) == pid);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), text};
}

constexpr int k_acquired = 0;
constexpr int k_busy = 1;
constexpr int k_other_error = 2;

/// Tries to take the lock in a child process; the child writes the error message, if any.
std::pair<int, std::string> acquire_in_child(const fs::path& dir, int gpu,
                                             std::chrono::milliseconds max_wait) {
  return in_child_process([&](int out) {
    auto lock = kprof::GpuLock::acquire(dir, gpu, max_wait);
    if (lock.ok()) {
      return k_acquired;
    }
    const std::string& message = lock.error().message;
    KPROF_ASSERT(::write(out, message.data(), message.size()) ==
                 static_cast<ssize_t>(message.size()));
    return lock.error().category == kprof::ErrorCategory::gpu_busy ? k_busy : k_other_error;
  });
}

TEST(GpuLock, AcquiresAFreeLockAndCreatesTheLockFile) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path lock_dir = dir.path() / "locks";
  auto lock = kprof::GpuLock::acquire(lock_dir, 3, 10s);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(lock->gpu(), 3);
  EXPECT_GE(lock->waited().count(), 0.0);
  EXPECT_LT(lock->waited(), 10s);
  EXPECT_TRUE(fs::is_regular_file(lock_dir / "gpu3.lock"));
  EXPECT_EQ(fs::status(lock_dir).permissions() & fs::perms::all, fs::perms::all);
}

/// Sets CUDA_VISIBLE_DEVICES for one test and puts the old value back.
class VisibleDevices {
public:
  explicit VisibleDevices(const char* value) {
    if (const char* old = std::getenv("CUDA_VISIBLE_DEVICES")) {
      m_old = old;
    }
    if (value != nullptr) {
      ::setenv("CUDA_VISIBLE_DEVICES", value, 1);
    } else {
      ::unsetenv("CUDA_VISIBLE_DEVICES");
    }
  }
  VisibleDevices(const VisibleDevices&) = delete;
  VisibleDevices& operator=(const VisibleDevices&) = delete;
  ~VisibleDevices() {
    if (m_old) {
      ::setenv("CUDA_VISIBLE_DEVICES", m_old->c_str(), 1);
    } else {
      ::unsetenv("CUDA_VISIBLE_DEVICES");
    }
  }

private:
  std::optional<std::string> m_old;
};

TEST(VisibleDevice, IndexNOfAProcessThatSeesSomeGpusIsItsNthEntry) {
  {
    const VisibleDevices slurm_task("3,GPU-5f1c:ab");
    EXPECT_EQ(kprof::visible_device(0), "3");
    EXPECT_EQ(kprof::visible_device(1), "GPU-5f1c:ab");
    EXPECT_EQ(kprof::visible_device(2), "2"); // not listed: the index itself
  }
  const VisibleDevices unset(nullptr);
  EXPECT_EQ(kprof::visible_device(1), "1");
}

TEST(GpuLock, TheLockFileNamesTheDeviceTheIndexStandsFor) {
  const kprof::TempDir dir = make_temp_dir();
  const VisibleDevices slurm_task("5,GPU-5f1c:ab");
  {
    auto lock = kprof::GpuLock::acquire(dir.path(), 0, 10s);
    ASSERT_TRUE(lock.ok()) << lock.error().message;
    EXPECT_TRUE(fs::exists(dir.path() / "gpu5.lock"));
  }
  auto second = kprof::GpuLock::acquire(dir.path(), 1, 10s);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_TRUE(fs::exists(dir.path() / "gpuGPU-5f1c_ab.lock"));
  EXPECT_FALSE(fs::exists(dir.path() / "gpu0.lock"));
}

TEST(GpuLock, AnotherProcessTimesOutWithGpuBusyWhileTheLockIsHeld) {
  const kprof::TempDir dir = make_temp_dir();
  auto lock = kprof::GpuLock::acquire(dir.path(), 0, 10s);
  ASSERT_TRUE(lock.ok()) << lock.error().message;

  const auto [code, message] = acquire_in_child(dir.path(), 0, 200ms);
  EXPECT_EQ(code, k_busy) << message;
  EXPECT_TRUE(message.starts_with("GPU 0 is busy: another kprof process has held its lock for "))
      << message;
  EXPECT_NE(message.find("(lock file " + (dir.path() / "gpu0.lock").string() + ")"),
            std::string::npos)
      << message;
}

TEST(GpuLock, AnotherProcessAcquiresTheLockOnceItIsReleased) {
  const kprof::TempDir dir = make_temp_dir();
  {
    auto lock = kprof::GpuLock::acquire(dir.path(), 0, 10s);
    ASSERT_TRUE(lock.ok()) << lock.error().message;
    EXPECT_EQ(acquire_in_child(dir.path(), 0, 0ms).first, k_busy);
  }
  const auto [code, message] = acquire_in_child(dir.path(), 0, 10s);
  EXPECT_EQ(code, k_acquired) << message;
}

TEST(GpuLock, LocksOfDifferentGpusAreIndependent) {
  const kprof::TempDir dir = make_temp_dir();
  auto lock = kprof::GpuLock::acquire(dir.path(), 0, 10s);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  const auto [code, message] = acquire_in_child(dir.path(), 1, 0ms);
  EXPECT_EQ(code, k_acquired) << message;
}

TEST(GpuLock, AMovedLockStaysHeldUntilItsNewOwnerIsDestroyed) {
  const kprof::TempDir dir = make_temp_dir();
  auto acquired = kprof::GpuLock::acquire(dir.path(), 2, 10s);
  ASSERT_TRUE(acquired.ok()) << acquired.error().message;
  std::optional<kprof::GpuLock> holder(std::move(acquired).value());
  EXPECT_EQ(holder->gpu(), 2);
  EXPECT_EQ(acquire_in_child(dir.path(), 2, 0ms).first, k_busy);
  holder.reset();
  EXPECT_EQ(acquire_in_child(dir.path(), 2, 0ms).first, k_acquired);
}

TEST(GpuLock, WaitsForAHolderThatReleasesDuringTheWait) {
  const kprof::TempDir dir = make_temp_dir();
  // A child holds the lock until we close `release`; it reports through `held` once it holds it.
  std::array<int, 2> held{};
  std::array<int, 2> release{};
  ASSERT_EQ(::pipe(held.data()), 0);
  ASSERT_EQ(::pipe(release.data()), 0);
  kprof::UniqueFd held_read(held[0]);
  kprof::UniqueFd held_write(held[1]);
  kprof::UniqueFd release_read(release[0]);
  kprof::UniqueFd release_write(release[1]);
  const pid_t holder = ::fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    held_read.reset();
    release_write.reset();
    auto lock = kprof::GpuLock::acquire(dir.path(), 0, 10s);
    const char status = lock.ok() ? 'L' : 'E';
    if (::write(held_write.get(), &status, 1) != 1) {
      ::_exit(3);
    }
    char ignored = 0;
    while (::read(release_read.get(), &ignored, 1) > 0) {}
    ::_exit(0); // releases the lock
  }
  held_write.reset();
  release_read.reset();
  char status = 0;
  ASSERT_EQ(::read(held_read.get(), &status, 1), 1);
  ASSERT_EQ(status, 'L');

  std::optional<kprof::Result<kprof::GpuLock>> waited_for;
  std::thread waiter([&] { waited_for.emplace(kprof::GpuLock::acquire(dir.path(), 0, 60s)); });
  release_write.reset(); // the holder exits, and the waiter gets the lock
  waiter.join();
  int holder_status = 0;
  ASSERT_EQ(::waitpid(holder, &holder_status, 0), holder);

  ASSERT_TRUE(waited_for.has_value());
  ASSERT_TRUE(waited_for->ok()) << waited_for->error().message;
  EXPECT_GE((*waited_for)->waited().count(), 0.0);
  EXPECT_LT((*waited_for)->waited(), 60s);
}

TEST(GpuLock, ReportsAnIoErrorWhenTheLockDirectoryCannotBeCreated) {
  const kprof::TempDir dir = make_temp_dir();
  ASSERT_TRUE(kprof::write_file_atomic(dir.path() / "file", "x").ok());
  auto lock = kprof::GpuLock::acquire(dir.path() / "file" / "locks", 0, 0ms);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().category, kprof::ErrorCategory::io);
}

TEST(GpuLock, DefaultDirectoryFollowsKprofLockDir) {
  ASSERT_EQ(::setenv("KPROF_LOCK_DIR", "/somewhere/locks", 1), 0);
  EXPECT_EQ(kprof::GpuLock::default_dir(), fs::path("/somewhere/locks"));
  ASSERT_EQ(::unsetenv("KPROF_LOCK_DIR"), 0);
  EXPECT_EQ(kprof::GpuLock::default_dir(), fs::path("/tmp/kprof-locks"));
}

} // namespace

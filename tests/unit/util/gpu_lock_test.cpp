#include "kprof/gpu_lock.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
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
  // A directory kprof makes is the user's own: 0700, its files 0600, the harness's file made too.
  EXPECT_EQ(fs::status(lock_dir).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(fs::status(lock_dir / "gpu3.lock").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_TRUE(fs::is_regular_file(lock_dir / "profiled-calls.lock"));
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
  // Who holds it, from /proc/locks: a lock held for ever is a denial whose author is named.
  EXPECT_NE(message.find("(held by pid " + std::to_string(::getpid()) + " ("), std::string::npos)
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

// ---- a hostile user on the same host (docs/shared-host.md, "The GPU locks") --------------------
//
// The tests that act as another user run a forked child as uid 65534 (or 65533), so they need
// root; they say skipped otherwise.

constexpr uid_t k_nobody = 65534;
constexpr uid_t k_other = 65533;

bool is_root() {
  return ::geteuid() == 0;
}

/// Runs `body` as `uid` in a forked child (its groups cleared); its exit code.
template <class Body>
int as_user(uid_t uid, Body body) {
  return in_child_process([&](int) {
           if (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 ||
               ::setresuid(uid, uid, uid) != 0) {
             return 90;
           }
           return body();
         })
      .first;
}

/// A scratch stand-in for /tmp: root's, 1777, so other users can make names in it.
kprof::TempDir make_scratch_tmp() {
  kprof::TempDir dir = make_temp_dir();
  KPROF_ASSERT(::chmod(dir.path().c_str(), 01777) == 0);
  return dir;
}

std::string error_of(const kprof::Result<kprof::GpuLock>& lock) {
  return lock.ok() ? std::string("acquired") : lock.error().message;
}

TEST(HostileLockDirectory, ADirectoryAnotherUserMadeIsRefusedAndNothingIsCreatedThroughIt) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to act as uid 65534";
  }
  // uid 65534 makes the lock directory first (0755, its own) and plants dangling links where
  // kprof's lock files go, at files that root would create (the issue's /etc/ld.so.preload).
  const kprof::TempDir tmp = make_scratch_tmp();
  const fs::path locks = tmp.path() / "kprof-locks";
  const fs::path preload = tmp.path() / "ld.so.preload";
  ASSERT_EQ(as_user(k_nobody,
                    [&] {
                      return ::mkdir(locks.c_str(), 0755) == 0 &&
                                     ::symlink(preload.c_str(), (locks / "gpu0.lock").c_str()) ==
                                         0 &&
                                     ::symlink(preload.c_str(),
                                               (locks / "profiled-calls.lock").c_str()) == 0
                                 ? 0
                                 : 1;
                    }),
            0);
  auto lock = kprof::GpuLock::acquire(locks, 0, 0ms);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().category, kprof::ErrorCategory::io);
  const std::string& why = lock.error().message;
  EXPECT_NE(why.find("GPU lock directory " + locks.string() + " refused"), std::string::npos)
      << why;
  EXPECT_NE(why.find("belongs to uid 65534"), std::string::npos) << why;
  EXPECT_NE(why.find("KPROF_LOCK_DIR"), std::string::npos) << "the fix is named: " << why;
  EXPECT_FALSE(fs::exists(preload));
  EXPECT_FALSE(kprof::GpuLock::prepare_dir(locks, 0).ok());
  EXPECT_FALSE(fs::exists(preload));
}

TEST(HostileLockDirectory, ALinkPlantedAsALockFileOfASharedDirectoryIsRefusedNotFollowed) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to act as uid 65534";
  }
  // A shared directory as an administrator makes it (root's, 1777): uid 65534 may make names in
  // it, so each name is opened with O_NOFOLLOW and checked.
  const kprof::TempDir tmp = make_scratch_tmp();
  const fs::path locks = tmp.path() / "shared";
  ASSERT_EQ(::mkdir(locks.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(locks.c_str(), 01777), 0);
  const fs::path preload = tmp.path() / "ld.so.preload";
  for (const char* name : {"profiled-calls.lock", "gpu0.lock"}) {
    ASSERT_EQ(
        as_user(k_nobody,
                [&] { return ::symlink(preload.c_str(), (locks / name).c_str()) == 0 ? 0 : 1; }),
        0);
    auto lock = kprof::GpuLock::acquire(locks, 0, 0ms);
    const std::string why = error_of(lock);
    EXPECT_NE(why.find("GPU lock file " + (locks / name).string() +
                       " refused: it is a symbolic "
                       "link of uid 65534"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find(preload.string()), std::string::npos) << "says where it points: " << why;
    EXPECT_FALSE(fs::exists(preload));
    for (const auto& entry : fs::directory_iterator(locks)) {
      fs::remove(entry.path());
    }
  }
}

TEST(HostileLockDirectory, AKprofLockDirThroughAnotherUsersLinkIsRefused) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to act as uid 65534";
  }
  const kprof::TempDir tmp = make_scratch_tmp();
  const fs::path theirs = tmp.path() / "theirs";
  const fs::path link = tmp.path() / "locks";
  ASSERT_EQ(as_user(k_nobody,
                    [&] {
                      return ::mkdir(theirs.c_str(), 0777) == 0 &&
                                     ::chmod(theirs.c_str(), 0777) == 0 &&
                                     ::symlink(theirs.c_str(), link.c_str()) == 0
                                 ? 0
                                 : 1;
                    }),
            0);
  auto lock = kprof::GpuLock::acquire(link, 0, 0ms);
  const std::string why = error_of(lock);
  EXPECT_NE(why.find(link.string() + " is a symbolic link of uid 65534"), std::string::npos) << why;
  EXPECT_TRUE(fs::is_empty(theirs)) << "nothing was made in the directory the link names";
}

TEST(HostileLockDirectory, AFifoPlantedAsTheLockFileIsRefusedAtOnceNotWaitedOn) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to act as uid 65534";
  }
  const kprof::TempDir tmp = make_scratch_tmp();
  const fs::path locks = tmp.path() / "shared";
  ASSERT_EQ(::mkdir(locks.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(locks.c_str(), 01777), 0);
  ASSERT_EQ(
      as_user(k_nobody, [&] { return ::mkfifo((locks / "gpu0.lock").c_str(), 0666) == 0 ? 0 : 1; }),
      0);
  // In a child with an alarm: an open() that blocks on the FIFO would hang the test otherwise.
  const auto [code, message] = in_child_process([&](int out) {
    ::alarm(20);
    auto lock = kprof::GpuLock::acquire(locks, 0, 10s);
    const std::string why = error_of(lock);
    KPROF_ASSERT(::write(out, why.data(), why.size()) == static_cast<ssize_t>(why.size()));
    return lock.ok() ? k_acquired : k_other_error;
  });
  EXPECT_EQ(code, k_other_error) << message;
  EXPECT_NE(message.find("refused: it is a FIFO of uid 65534"), std::string::npos) << message;
}

TEST(HostileLockDirectory, AHardLinkPlantedAsTheLockFileIsRefused) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path other = dir.path() / "passwd";
  ASSERT_TRUE(kprof::write_file_atomic(other, "root:x:0:0\n").ok());
  ASSERT_EQ(::link(other.c_str(), (dir.path() / "gpu0.lock").c_str()), 0);
  auto lock = kprof::GpuLock::acquire(dir.path(), 0, 0ms);
  EXPECT_NE(error_of(lock).find("refused: it has 2 hard links"), std::string::npos)
      << error_of(lock);
}

TEST(HostileLockDirectory, ALockFileOthersCannotOpenIsRefusedNamingItsOwnerAndMode) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to act as uids 65534 and 65533";
  }
  // uid 65534 makes gpu0.lock 0600 in the shared directory: uid 65533 is told who and how.
  const kprof::TempDir tmp = make_scratch_tmp();
  const fs::path locks = tmp.path() / "shared";
  ASSERT_EQ(::mkdir(locks.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(locks.c_str(), 01777), 0);
  ASSERT_EQ(as_user(k_nobody,
                    [&] {
                      const int fd =
                          ::open((locks / "gpu0.lock").c_str(), O_RDONLY | O_CREAT | O_EXCL, 0600);
                      return fd >= 0 && ::close(fd) == 0 ? 0 : 1;
                    }),
            0);
  const auto [code, message] = in_child_process([&](int out) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(k_other, k_other, k_other) != 0 ||
        ::setresuid(k_other, k_other, k_other) != 0) {
      return 90;
    }
    auto lock = kprof::GpuLock::acquire(locks, 0, 0ms);
    const std::string why = error_of(lock);
    KPROF_ASSERT(::write(out, why.data(), why.size()) == static_cast<ssize_t>(why.size()));
    return lock.ok() ? k_acquired : k_other_error;
  });
  EXPECT_EQ(code, k_other_error) << message;
  EXPECT_NE(message.find("GPU lock file " + (locks / "gpu0.lock").string() +
                         " refused: it belongs to uid 65534"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("mode 0600"), std::string::npos) << message;
}

TEST(HostileLockDirectory, ALockFileAnotherUserMadeInASharedDirectoryIsLockedAsItIs) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to act as uid 65534";
  }
  // Sharing is the point of a shared directory: the first user of a GPU makes its file (0644),
  // every other user opens it read-only and flocks it, and a file kprof makes there is 0644.
  const kprof::TempDir tmp = make_scratch_tmp();
  const fs::path locks = tmp.path() / "shared";
  ASSERT_EQ(::mkdir(locks.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(locks.c_str(), 01777), 0);
  ASSERT_EQ(as_user(k_nobody,
                    [&] {
                      auto lock = kprof::GpuLock::acquire(locks, 0, 0ms);
                      return lock.ok() ? 0 : 1;
                    }),
            0);
  struct stat info {};
  ASSERT_EQ(::stat((locks / "gpu0.lock").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, k_nobody);
  EXPECT_EQ(info.st_mode & 07777, 0644U);
  auto lock = kprof::GpuLock::acquire(locks, 0, 0ms);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(as_user(k_nobody, [&] { return kprof::GpuLock::acquire(locks, 0, 0ms).ok() ? 0 : 1; }),
            1)
      << "root's lock excludes uid 65534";
}

TEST(HostileLockDirectory, ADirectoryOthersMayWriteIsRefusedUnlessSticky) {
  const kprof::TempDir tmp = make_temp_dir();
  const fs::path open = tmp.path() / "open";
  ASSERT_EQ(::mkdir(open.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
  auto lock = kprof::GpuLock::acquire(open, 0, 0ms);
  EXPECT_NE(error_of(lock).find("refused: " + open.string() + " is writable by other users"),
            std::string::npos)
      << error_of(lock);
  EXPECT_FALSE(fs::exists(open / "gpu0.lock"));
  ASSERT_EQ(::chmod(open.c_str(), 01777), 0);
  EXPECT_EQ(kprof::GpuLock::prepare_dir(open, 0).value(), kprof::LockSharing::all_users);
}

// ---- the default directory ---------------------------------------------------------------------

/// Unsets $KPROF_LOCK_DIR for one test and puts the old value back.
class NoLockDirVariable {
public:
  NoLockDirVariable() {
    if (const char* old = std::getenv("KPROF_LOCK_DIR")) {
      m_old = old;
    }
    ::unsetenv("KPROF_LOCK_DIR");
  }
  NoLockDirVariable(const NoLockDirVariable&) = delete;
  NoLockDirVariable& operator=(const NoLockDirVariable&) = delete;
  ~NoLockDirVariable() {
    if (m_old) {
      ::setenv("KPROF_LOCK_DIR", m_old->c_str(), 1);
    }
  }

private:
  std::optional<std::string> m_old;
};

TEST(DefaultLockDirectory, FollowsKprofLockDir) {
  const NoLockDirVariable unset;
  ASSERT_EQ(::setenv("KPROF_LOCK_DIR", "/somewhere/locks", 1), 0);
  EXPECT_EQ(kprof::GpuLock::default_dir(), fs::path("/somewhere/locks"));
  ASSERT_EQ(::unsetenv("KPROF_LOCK_DIR"), 0);
}

TEST(DefaultLockDirectory, RootMakesTheSharedDirectoryStickyAndUsesIt) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root";
  }
  const NoLockDirVariable unset;
  const kprof::TempDir tmp = make_scratch_tmp();
  EXPECT_EQ(kprof::GpuLock::default_dir(tmp.path()), tmp.path() / "kprof-locks");
  struct stat info {};
  ASSERT_EQ(::lstat((tmp.path() / "kprof-locks").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, 0U);
  EXPECT_EQ(info.st_mode & 07777, 01777U);
  // Another user then shares it.
  EXPECT_EQ(as_user(k_nobody,
                    [&] {
                      return kprof::GpuLock::default_dir(tmp.path()) == tmp.path() / "kprof-locks"
                                 ? 0
                                 : 1;
                    }),
            0);
}

TEST(DefaultLockDirectory, ASharedDirectoryAnotherUserMadeFirstIsPassedOverForOnesOwn) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to act as uid 65534";
  }
  const NoLockDirVariable unset;
  const kprof::TempDir tmp = make_scratch_tmp();
  const fs::path shared = tmp.path() / "kprof-locks";
  // uid 65534 finds no shared directory: it uses its own, and makes no shared one.
  EXPECT_EQ(as_user(k_nobody,
                    [&] {
                      return kprof::GpuLock::default_dir(tmp.path()) ==
                                     tmp.path() / "kprof-locks-65534"
                                 ? 0
                                 : 1;
                    }),
            0);
  EXPECT_FALSE(fs::exists(shared));
  // It makes one itself, as a hostile user would (before a reboot's first root run, say): root
  // passes it over for its own, whatever it is.
  ASSERT_EQ(as_user(k_nobody,
                    [&] {
                      return ::mkdir(shared.c_str(), 0777) == 0 &&
                                     ::chmod(shared.c_str(), 01777) == 0
                                 ? 0
                                 : 1;
                    }),
            0);
  EXPECT_EQ(kprof::GpuLock::default_dir(tmp.path()), tmp.path() / "kprof-locks-0");
  ASSERT_EQ(::rmdir(shared.c_str()), 0);
  ASSERT_EQ(
      as_user(k_nobody, [&] { return ::symlink(tmp.path().c_str(), shared.c_str()) == 0 ? 0 : 1; }),
      0);
  EXPECT_EQ(kprof::GpuLock::default_dir(tmp.path()), tmp.path() / "kprof-locks-0");
}

TEST(DefaultLockDirectory, ThePerUserDirectoryAnotherUserMadeFirstIsRefusedNamingTheOwner) {
  if (!is_root()) {
    GTEST_SKIP() << "needs root to act as uid 65534";
  }
  const NoLockDirVariable unset;
  const kprof::TempDir tmp = make_scratch_tmp();
  const fs::path mine = tmp.path() / "kprof-locks-65533";
  ASSERT_EQ(as_user(k_nobody, [&] { return ::mkdir(mine.c_str(), 0700) == 0 ? 0 : 1; }), 0);
  const auto [code, message] = in_child_process([&](int out) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(k_other, k_other, k_other) != 0 ||
        ::setresuid(k_other, k_other, k_other) != 0) {
      return 90;
    }
    const fs::path dir = kprof::GpuLock::default_dir(tmp.path());
    auto lock = kprof::GpuLock::acquire(dir, 0, 0ms);
    const std::string why = dir.string() + ": " + error_of(lock);
    KPROF_ASSERT(::write(out, why.data(), why.size()) == static_cast<ssize_t>(why.size()));
    return lock.ok() ? k_acquired : k_other_error;
  });
  EXPECT_EQ(code, k_other_error) << message;
  EXPECT_TRUE(message.starts_with(mine.string() + ": GPU lock directory")) << message;
  EXPECT_NE(message.find("belongs to uid 65534"), std::string::npos) << message;
}

} // namespace

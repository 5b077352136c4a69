// kprof: file helpers.
//
// write_file_atomic is how every kprof output reaches the disk: the data goes to a temp file in the
// target's own directory (so rename() stays within one file system and is atomic), is fsync'ed,
// then renamed over the target. A reader therefore sees the old file or the new one, never a
// prefix. Any failure removes the temp file.
#include "kprof/files.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/unique_fd.hpp"

namespace {
constexpr mode_t k_created_directory_mode = 0755;
constexpr mode_t k_created_file_mode = 0644;
} // namespace

namespace kprof {
namespace {

Error io_error(const std::filesystem::path& path, std::string_view what, int error_number) {
  return make_error(ErrorCategory::io,
                    fmt::format("cannot {} {}: {}", what, path.string(), errno_text(error_number)));
}

/// Writes all of `data`, retrying short writes and EINTR. Returns 0 or an errno value.
int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

/// A random suffix for temp names; not security-relevant (O_EXCL decides), only collision-avoiding.
std::string random_suffix() {
  thread_local std::mt19937_64 generator{std::random_device{}() ^
                                         static_cast<std::uint64_t>(::getpid())};
  return fmt::format("{:012x}", generator() & 0xffffffffffffULL);
}

/// Best effort: makes the rename itself durable. Failure is not an error (some file systems
/// refuse fsync on directories).
void sync_directory(const std::filesystem::path& directory) {
  UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd) {
    ::fsync(fd.get());
  }
}

} // namespace

Result<std::string> read_file(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("cannot open {}: {}", path.string(), errno_text(errno)));
  }
  std::string data;
  struct stat info {};
  if (::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    data.reserve(static_cast<std::size_t>(info.st_size));
  }
  std::vector<char> buffer(std::size_t{1} << 16U);
  while (true) {
    const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("cannot read {}: {}", path.string(), errno_text(errno)));
    }
    if (got == 0) {
      break;
    }
    data.append(buffer.data(), static_cast<std::size_t>(got));
  }
  return data;
}

Result<AtomicFile> AtomicFile::create(const std::filesystem::path& path) {
  if (path.filename().empty()) {
    return make_error(ErrorCategory::io,
                      fmt::format("cannot write {}: not a file name", path.string()));
  }
  std::filesystem::path directory = path.parent_path();
  if (directory.empty()) {
    directory = ".";
  } else if (auto created = kprof::create_directories(directory); !created) {
    return std::move(created).error();
  }

  // O_EXCL makes the name ours; a collision (same pid, same random) just draws again.
  std::filesystem::path temp_path;
  UniqueFd fd;
  for (int attempt = 0; attempt < 16 && !fd; ++attempt) {
    temp_path = directory /
                fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(), random_suffix());
    // 0644 at most, whatever the umask: nobody else may change what kprof wrote (a script it
    // runs, a report an agent acts on).
    fd.reset(
        ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, k_created_file_mode));
    if (!fd && errno != EEXIST) {
      return io_error(path, "write", errno);
    }
  }
  if (!fd) {
    return io_error(path, "write", EEXIST);
  }
  return AtomicFile(path, std::move(temp_path), fd.release());
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_temp_path(std::move(other.m_temp_path)),
      m_fd(std::exchange(other.m_fd, -1)), m_failure(other.m_failure) {}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    m_path = std::move(other.m_path);
    m_temp_path = std::move(other.m_temp_path);
    m_fd = std::exchange(other.m_fd, -1);
    m_failure = other.m_failure;
  }
  return *this;
}

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() noexcept {
  if (m_fd >= 0) {
    ::close(m_fd);
    m_fd = -1;
    ::unlink(m_temp_path.c_str());
  }
}

void AtomicFile::write(std::string_view data) {
  if (m_fd >= 0 && m_failure == 0) {
    m_failure = write_all(m_fd, data);
  }
}

Result<void> AtomicFile::commit() {
  KPROF_ASSERT(m_fd >= 0 && "AtomicFile::commit called twice");
  UniqueFd fd(std::exchange(m_fd, -1));
  int failure = m_failure;
  if (failure == 0 && ::fsync(fd.get()) != 0) {
    failure = errno;
  }
  if (fd.close_checked() != 0 && failure == 0) {
    failure = errno;
  }
  if (failure == 0 && ::rename(m_temp_path.c_str(), m_path.c_str()) != 0) {
    failure = errno;
  }
  if (failure != 0) {
    ::unlink(m_temp_path.c_str());
    return io_error(m_path, "write", failure);
  }
  std::filesystem::path directory = m_path.parent_path();
  sync_directory(directory.empty() ? std::filesystem::path(".") : directory);
  return {};
}

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  Result<AtomicFile> file = AtomicFile::create(path);
  if (!file) {
    return std::move(file).error();
  }
  file->write(data);
  return file->commit();
}

namespace {

/// Writes `data` to the new file `path` (O_EXCL: never one that exists). 0 or an errno. Not
/// fsync'ed: see write_directory_atomic.
int write_new_file(const std::filesystem::path& path, std::string_view data) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     k_created_file_mode));
  if (!fd) {
    return errno;
  }
  if (const int failure = write_all(fd.get(), data); failure != 0) {
    return failure;
  }
  return fd.close_checked() != 0 ? errno : 0;
}

/// Renames the directory `made` to `path`, swapping out whatever `path` is (removed after).
/// 0 or an errno.
int rename_into_place(const std::filesystem::path& made, const std::filesystem::path& path) {
  if (::renameat2(AT_FDCWD, made.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
    return 0;
  }
  if (errno == EEXIST) {
    if (::renameat2(AT_FDCWD, made.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0) {
      return errno;
    }
    std::error_code ignored; // `made` now names the older copy, which nothing uses any more
    std::filesystem::remove_all(made, ignored);
    return 0;
  }
  if (errno != EINVAL && errno != ENOSYS) {
    return errno;
  }
  return ::rename(made.c_str(), path.c_str()) == 0 ? 0 : errno; // a file system that cannot swap
}

} // namespace

Result<void>
write_directory_atomic(const std::filesystem::path& path,
                       std::span<const std::pair<std::string_view, std::string_view>> files) {
  std::filesystem::path parent = path.parent_path();
  if (path.filename().empty()) {
    return make_error(ErrorCategory::io,
                      fmt::format("cannot write {}: not a directory name", path.string()));
  }
  if (parent.empty()) {
    parent = ".";
  } else if (auto created = kprof::create_directories(parent); !created) {
    return std::move(created).error();
  }
  // mkdir fails on a name that exists, so the fresh directory is ours; a collision draws again.
  std::filesystem::path made;
  int failure = EEXIST;
  for (int attempt = 0; attempt < 16 && failure == EEXIST; ++attempt) {
    made = parent /
           fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(), random_suffix());
    failure = ::mkdir(made.c_str(), k_created_directory_mode) == 0 ? 0 : errno;
  }
  if (failure != 0) {
    return io_error(path, "write", failure);
  }
  for (const auto& [name, data] : files) {
    if (failure = write_new_file(made / name, data); failure != 0) {
      const std::filesystem::path file = path / name;
      std::error_code ignored;
      std::filesystem::remove_all(made, ignored);
      return io_error(file, "write", failure);
    }
  }
  if (failure = rename_into_place(made, path); failure != 0) {
    std::error_code ignored;
    std::filesystem::remove_all(made, ignored);
    return io_error(path, "write", failure);
  }
  return {};
}

Result<void> create_directories(const std::filesystem::path& path) {
  // Each missing directory is made 0755 (less under a stricter umask), never writable by other
  // users whatever the umask: kprof writes scripts it then runs into these directories, and
  // under `umask 000` std::filesystem's 0777 would let another user replace them.
  std::error_code error;
  std::filesystem::path made;
  for (const auto& part : path) {
    made /= part;
    if (part.empty() || part == "/" || std::filesystem::is_directory(made, error)) {
      continue;
    }
    if (::mkdir(made.c_str(), k_created_directory_mode) != 0 && errno != EEXIST) {
      return make_error(ErrorCategory::io, fmt::format("cannot create directory {}: {}",
                                                       made.string(), std::strerror(errno)));
    }
  }
  // create_directories succeeds quietly when a non-directory already has the name.
  if (!std::filesystem::is_directory(path, error)) {
    return io_error(path, "create directory", ENOTDIR);
  }
  return {};
}

namespace {

/// `path` absolute and normal, without a trailing separator ("dir/" names dir).
std::filesystem::path directory_path(const std::filesystem::path& path) {
  std::filesystem::path dir = std::filesystem::absolute(path).lexically_normal();
  return dir.has_filename() ? dir : dir.parent_path();
}

/// Why `dir`, an ancestor of a private directory, would let another user replace what is below
/// it; empty when it would not.
std::string unsafe_ancestor(const std::filesystem::path& dir) {
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) {
    return fmt::format("cannot stat {}: {}", dir.string(), std::strerror(errno));
  }
  if (info.st_uid != ::geteuid() && info.st_uid != 0) {
    return fmt::format("{} belongs to {}", dir.string(), user_text(info.st_uid));
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (info.st_mode & S_ISVTX) == 0) {
    return fmt::format("{} is writable by other users", dir.string());
  }
  return {};
}

} // namespace

Result<void> private_directory(const std::filesystem::path& path, bool create) {
  const std::filesystem::path absolute = directory_path(path);
  if (create) {
    if (auto made = kprof::create_directories(absolute); !made) {
      return made;
    }
  }
  auto refuse = [&](const std::string& why) {
    return make_error(ErrorCategory::io,
                      fmt::format("{} is not a private directory: {}", absolute.string(), why));
  };
  struct stat info {};
  if (::lstat(absolute.c_str(), &info) != 0) {
    return refuse(std::strerror(errno));
  }
  if (!S_ISDIR(info.st_mode)) {
    return refuse(S_ISLNK(info.st_mode) ? "a symbolic link" : "not a directory");
  }
  if (info.st_uid != ::geteuid()) {
    return refuse(fmt::format("it belongs to {}", user_text(info.st_uid)));
  }
  if (create && (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    if (::chmod(absolute.c_str(), S_IRWXU) != 0) {
      return refuse(fmt::format("it is open to others and chmod failed: {}", std::strerror(errno)));
    }
  } else if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return refuse("it is writable by other users");
  }
  if (auto chain = safe_directory_chain(absolute.parent_path()); !chain) {
    return refuse(chain.error().message);
  }
  return {};
}

Result<void> safe_directory_chain(const std::filesystem::path& path) {
  std::filesystem::path dir = directory_path(path);
  // A symbolic link on the way that another user owns, they could point elsewhere later.
  std::filesystem::path walked;
  for (const auto& part : dir) {
    walked /= part;
    struct stat info {};
    if (::lstat(walked.c_str(), &info) == 0 && S_ISLNK(info.st_mode) &&
        info.st_uid != ::geteuid() && info.st_uid != 0) {
      return make_error(ErrorCategory::io, fmt::format("{} is a symbolic link of {}",
                                                       walked.string(), user_text(info.st_uid)));
    }
  }
  // The directories themselves, where the links lead.
  std::error_code error;
  dir = std::filesystem::canonical(dir, error);
  if (error) {
    return make_error(ErrorCategory::io,
                      fmt::format("cannot resolve {}: {}", walked.string(), error.message()));
  }
  for (;; dir = dir.parent_path()) {
    if (std::string why = unsafe_ancestor(dir); !why.empty()) {
      return make_error(ErrorCategory::io, std::move(why));
    }
    if (dir == dir.parent_path()) {
      return {};
    }
  }
}

std::optional<std::string> read_own_file(const std::filesystem::path& path, std::size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    return std::nullopt;
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid() ||
      (info.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
      static_cast<std::size_t>(info.st_size) > max_bytes) {
    return std::nullopt;
  }
  std::string data(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    const ssize_t n = ::read(fd.get(), data.data() + got, data.size() - got);
    if (n <= 0) {
      return std::nullopt;
    }
    got += static_cast<std::size_t>(n);
  }
  return data;
}

std::string file_name_hash(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

std::string user_text(unsigned uid) {
  std::array<char, 4096> buffer{};
  struct passwd entry {};
  struct passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
      found->pw_name != nullptr && *found->pw_name != '\0') {
    return fmt::format("uid {} ({})", uid, found->pw_name);
  }
  return fmt::format("uid {}", uid);
}

bool is_own_directory(const std::filesystem::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == ::geteuid();
}

Result<TempDir> TempDir::create(std::string_view prefix) {
  std::error_code error;
  const std::filesystem::path base = std::filesystem::temp_directory_path(error);
  if (error) {
    return make_error(ErrorCategory::io,
                      fmt::format("cannot find the temp directory: {}", error.message()));
  }
  std::string name_template = (base / fmt::format("{}-XXXXXX", prefix)).string();
  if (::mkdtemp(name_template.data()) == nullptr) {
    return io_error(name_template, "create directory", errno);
  }
  return TempDir(std::filesystem::path(name_template));
}

TempDir::TempDir(TempDir&& other) noexcept
    : m_path(std::exchange(other.m_path, {})), m_keep(other.m_keep) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    if (!m_keep && !m_path.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(m_path, ignored);
    }
    m_path = std::exchange(other.m_path, {});
    m_keep = other.m_keep;
  }
  return *this;
}

TempDir::~TempDir() {
  if (!m_keep && !m_path.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  ::gmtime_r(&now, &parts);
  std::array<char, 32> text{};
  const std::size_t length = std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return {text.data(), length};
}

std::string utc_timestamp_micros() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          now - std::chrono::system_clock::from_time_t(seconds))
                          .count();
  std::tm parts{};
  ::gmtime_r(&seconds, &parts);
  std::array<char, 32> text{};
  const std::size_t length = std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%S", &parts);
  return fmt::format("{}.{:06d}Z", std::string_view(text.data(), length), micros);
}

std::optional<std::string> env_var(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    return std::nullopt;
  }
  return std::string(value);
}

Result<std::optional<bool>> parse_env_flag(std::string_view name, std::string_view value) {
  if (value.empty()) {
    return std::optional<bool>();
  }
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  const auto* const found = std::find(k_flag_words.begin(), k_flag_words.end(), lower);
  if (found == k_flag_words.end()) {
    return make_error(ErrorCategory::usage,
                      fmt::format("{}='{}' is not a boolean (valid, in any case: {}; empty or "
                                  "unset for the default)",
                                  name, value, fmt::join(k_flag_words, ", ")));
  }
  // The first half of the words says yes.
  return std::optional<bool>(static_cast<std::size_t>(found - k_flag_words.begin()) <
                             k_flag_words.size() / 2);
}

Result<std::optional<bool>> env_flag(const char* name) {
  const char* value = std::getenv(name);
  return parse_env_flag(name, value == nullptr ? std::string_view() : std::string_view(value));
}

} // namespace kprof

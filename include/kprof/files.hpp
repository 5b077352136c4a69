// kprof: file helpers (nothing about ncu here).
#pragma once

#include <array>
#include <chrono>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "kprof/error.hpp"

namespace kprof {

/// Whole file as bytes. input_not_found when it cannot be opened or read.
Result<std::string> read_file(const std::filesystem::path& path);

/// Writes `data` to `path` so that the file appears whole or not at all: a temp file in the same
/// directory, fsync, rename. Creates missing parent directories. io error on failure (the temp
/// file is removed).
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view data);

/// Writes the directory `path` holding `files` ({name, bytes}; names without a directory) so that
/// it appears whole or not at all to every reader: the files go into a fresh directory beside
/// `path` (made like create_directories' directories), which is then renamed to `path`. Whatever
/// `path` already was (an older copy) is swapped out in that rename (renameat2's
/// RENAME_EXCHANGE) and then removed; where the file system cannot swap, a plain rename replaces
/// only an empty directory. Creates missing parent directories. Nothing is fsync'ed, unlike
/// write_file_atomic: it is for files kprof writes anew for each run and runs at once (the
/// harness's package), where an fsync per file cost 12-96 ms a package on a busy disk
/// (docs/harness.md, "The modules"). io error naming what failed; the fresh directory is
/// removed then, and `path` is untouched.
Result<void>
write_directory_atomic(const std::filesystem::path& path,
                       std::span<const std::pair<std::string_view, std::string_view>> files);

/// A file written piece by piece that appears whole or not at all, like write_file_atomic: the
/// pieces go to a temp file in the target's directory, and commit() fsyncs it and renames it
/// over the target. Destroyed without a successful commit(), the temp file is removed and the
/// target is untouched. Move-only.
class AtomicFile {
public:
  /// Creates the temp file for `path` (and `path`'s missing parent directories). io error when
  /// `path` has no file name or the temp file cannot be created.
  static Result<AtomicFile> create(const std::filesystem::path& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  /// Appends `data`. A failure is remembered (later writes are skipped) and reported by commit().
  void write(std::string_view data);
  /// Makes the file appear at its path. io error ("cannot write PATH: ...") when a write, the
  /// fsync, the close or the rename failed; the temp file is then removed. Call at most once.
  Result<void> commit();

private:
  AtomicFile(std::filesystem::path path, std::filesystem::path temp_path, int fd)
      : m_path(std::move(path)), m_temp_path(std::move(temp_path)), m_fd(fd) {}
  void discard() noexcept;
  std::filesystem::path m_path;
  std::filesystem::path m_temp_path;
  int m_fd = -1;
  int m_failure = 0; ///< errno of the first failed write
};

/// Creates `path` and its parents; io error on failure.
Result<void> create_directories(const std::filesystem::path& path);

/// Whether no other user can replace what is made in directory `path`: it and every directory above
/// it belong to this user or root and are writable by no one else, unless sticky (as /tmp, where
/// only an entry's owner may rename it). io error naming the first directory that fails.
Result<void> safe_directory_chain(const std::filesystem::path& path);

/// Whether `path` may hold what kprof trusts as its own (Triton's cache, which Triton loads as
/// code; the metric check's verdicts): a directory of this user, reached without a symbolic link,
/// that no other user can write, under directories no other user can rename it out of (each
/// ancestor belongs to this user or root and is writable by no one else, unless sticky, as /tmp).
/// With `create`, the missing directories are made first (create_directories) and `path` is made
/// 0700 when it belongs to this user but is open to others; without, nothing is changed and a
/// `path` that others may write is refused. io error saying why otherwise.
Result<void> private_directory(const std::filesystem::path& path, bool create);

/// The bytes of `path` when it is a regular file of this user that no other user may write,
/// reached without a symbolic link and at most `max_bytes` long; nullopt otherwise (missing,
/// another user's, open to others, too long, unreadable): what kprof reads back from its own
/// caches (the metric check's verdicts, the launch memory), where anything else is ignored.
std::optional<std::string> read_own_file(const std::filesystem::path& path, std::size_t max_bytes);

/// FNV-1a of `text`, 64 bits, as 16 hex digits: a file name for a cache key (the key itself is
/// stored inside the file and checked on reading).
std::string file_name_hash(std::string_view text);

/// A user as messages name one: "uid 65534 (nobody)", or "uid 4242" when the user has no name.
std::string user_text(unsigned uid);

/// Whether `path` is a directory of this user itself, not a symbolic link (lstat): what kprof may
/// remove as its own leftovers from a directory other users may write into.
bool is_own_directory(const std::filesystem::path& path);

/// A fresh private directory under the system temp dir, removed by the destructor.
class TempDir {
public:
  static Result<TempDir> create(std::string_view prefix = "kprof");
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  /// Keeps the directory on destruction.
  void keep() { m_keep = true; }

private:
  explicit TempDir(std::filesystem::path path) : m_path(std::move(path)) {}
  std::filesystem::path m_path;
  bool m_keep = false;
};

/// Current UTC time as ISO 8601 ("2026-11-29T21:57:23Z").
std::string utc_timestamp();

/// The same with microseconds, as Python's datetime.utcnow().isoformat() + "Z" writes it:
/// "2026-11-29T21:57:23.123456Z".
std::string utc_timestamp_micros();

/// Value of an environment variable, nullopt when unset or empty.
std::optional<std::string> env_var(const char* name);

/// The words a boolean environment variable accepts, in any case: "1", "true", "yes", "on" and
/// "0", "false", "no", "off".
inline constexpr std::array<std::string_view, 8> k_flag_words = {"1", "true",  "yes", "on",
                                                                 "0", "false", "no",  "off"};

/// `value` of boolean environment variable `name` read as one of k_flag_words (any case); an
/// empty value is unset (nullopt). Any other value is a usage error that names the variable,
/// the value and the valid words.
Result<std::optional<bool>> parse_env_flag(std::string_view name, std::string_view value);

/// parse_env_flag() on the environment's value of `name` (nullopt when unset or empty).
Result<std::optional<bool>> env_flag(const char* name);

} // namespace kprof

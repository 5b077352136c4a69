// kprof: file helpers (nothing about ncu here).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "kprof/error.hpp"

namespace kprof {

/// Whole file as bytes. input_not_found when it cannot be opened or read.
Result<std::string> read_file(const std::filesystem::path& path);

/// Writes `data` to `path` so that the file appears whole or not at all: a temp file in the same
/// directory, fsync, rename. Creates missing parent directories. io error on failure (the temp
/// file is removed).
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view data);

/// Creates `path` and its parents; io error on failure.
Result<void> create_directories(const std::filesystem::path& path);

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

/// Value of an environment variable, nullopt when unset or empty.
std::optional<std::string> env_var(const char* name);

} // namespace kprof

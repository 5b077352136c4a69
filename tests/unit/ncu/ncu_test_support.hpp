// Helpers shared by the ncu module's tests: environment that restores itself, temp dirs,
// executable scripts, recorded fixtures.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/files.hpp"

namespace kprof::test {

inline const std::filesystem::path k_fixtures =
    std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";
inline const std::filesystem::path k_fake_ncu = std::filesystem::path(KPROF_STANDINS_DIR) / "ncu";

/// Sets or unsets environment variables for one test and restores the old values afterwards.
class ScopedEnv {
public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it) {
      if (it->second) {
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        ::unsetenv(it->first.c_str());
      }
    }
  }
  void set(const std::string& name, const std::string& value) {
    save(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    save(name);
    ::unsetenv(name.c_str());
  }

private:
  void save(const std::string& name) {
    const char* old = std::getenv(name.c_str());
    m_saved.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> m_saved;
};

inline TempDir make_temp_dir() {
  auto dir = TempDir::create("kprof-ncu-test");
  if (!dir.ok()) {
    ADD_FAILURE() << dir.error().message;
    std::abort();
  }
  return std::move(dir).value();
}

/// Writes an executable file (0755) with `text`, creating parent directories.
inline std::filesystem::path write_script(const std::filesystem::path& path,
                                          const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                std::filesystem::perms::others_exec);
  return path;
}

/// A shell script that prints an ncu-like version text with `version`.
inline std::filesystem::path write_fake_ncu(const std::filesystem::path& path,
                                            const std::string& version) {
  return write_script(path, "#!/bin/sh\n"
                            "echo 'NVIDIA (R) Nsight Compute Command Line Profiler'\n"
                            "echo 'Copyright (c) 2018-2025 NVIDIA Corporation'\n"
                            "echo 'Version " +
                                version + " (build 1) (public-release)'\n");
}

inline std::string read_text(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text.ok()) {
    ADD_FAILURE() << text.error().message;
    return {};
  }
  return std::move(text).value();
}

inline std::string read_fixture(const std::string& name) {
  return read_text(k_fixtures / name);
}

} // namespace kprof::test

// Helpers for the csv module's tests: fixture paths, whole-file reads, a private temp directory.
#pragma once

#include <stdlib.h> // mkdtemp

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kprof::test {

inline std::filesystem::path ncu_fixture(std::string_view name) {
  return std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / std::string(name);
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot open test input " + path.string());
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// A fresh directory under the system temp dir, removed with everything in it.
class ScratchDir {
public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kprof-csv-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    m_path = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ScratchDir(ScratchDir&&) = delete;
  ScratchDir& operator=(ScratchDir&&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

  /// Writes `data` to a file in this directory and returns its path.
  [[nodiscard]] std::filesystem::path write(std::string_view name, std::string_view data) const {
    const std::filesystem::path file = m_path / std::string(name);
    std::ofstream out(file, std::ios::binary);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      throw std::runtime_error("cannot write " + file.string());
    }
    return file;
  }

private:
  std::filesystem::path m_path;
};

} // namespace kprof::test

// Helpers for the csv module's tests: fixture paths, whole-file reads, a private temp directory,
// reading fixtures and expecting errors.
#pragma once

#include <stdlib.h> // mkdtemp

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "kprof/capture.hpp"
#include "kprof/ncu_output.hpp"

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

/// The fixture `name` read with the real reader; a test failure (and an empty Capture) otherwise.
inline Capture read_fixture(std::string_view name, const ReadOptions& options = {}) {
  auto result = read_ncu_csv_file(ncu_fixture(name), options);
  if (!result.ok()) {
    ADD_FAILURE() << "reading " << name << " failed: " << result.error().message;
    return {};
  }
  return std::move(result).value();
}

/// The error of parsing `text` (named "input.csv"); a test failure when it parses.
inline Error parse_error(std::string_view text) {
  auto result = parse_ncu_csv(text, {}, "input.csv");
  if (result.ok()) {
    ADD_FAILURE() << "expected an error, got " << result->kernels.size() << " kernels";
    return {};
  }
  return result.error();
}

inline const KernelRecord& kernel_named(const Capture& capture, std::string_view name) {
  for (const KernelRecord& kernel : capture.kernels) {
    if (kernel.name == name) {
      return kernel;
    }
  }
  throw std::runtime_error("no kernel " + std::string(name));
}

/// `text` with its n-th line (1-based) cut after `keep` characters, and nothing after it.
inline std::string with_line_cut(const std::string& text, std::size_t line, std::size_t keep) {
  std::size_t start = 0;
  for (std::size_t i = 1; i < line; ++i) {
    start = text.find('\n', start) + 1;
  }
  return text.substr(0, start + keep);
}

/// The n-th line (1-based) of `text`, without its newline.
inline std::string line_of(const std::string& text, std::size_t line) {
  std::size_t start = 0;
  for (std::size_t i = 1; i < line; ++i) {
    start = text.find('\n', start) + 1;
  }
  return text.substr(start, text.find('\n', start) - start);
}

} // namespace kprof::test

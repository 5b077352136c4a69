// Helpers for the end-to-end tests: run the kprof binary and capture what it prints.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "kprof/process.hpp"

namespace kprof::e2e {

inline std::string fixture(const std::string& name) {
  return std::string(KPROF_FIXTURES_DIR) + "/ncu/2025.3.1/" + name;
}

struct KprofRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs the kprof binary with `args`; `env` adds variables; `cwd` is its working directory.
inline KprofRun run_kprof(std::vector<std::string> args,
                          std::vector<std::pair<std::string, std::string>> env = {},
                          std::chrono::seconds timeout = std::chrono::seconds(120),
                          std::optional<std::filesystem::path> cwd = std::nullopt) {
  ProcessSpec spec;
  spec.cwd = std::move(cwd);
  spec.argv = {KPROF_BINARY};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env_set = std::move(env);
  spec.env_set.emplace_back("NO_COLOR", "1");
  spec.timeout = timeout;
  auto result = run_process(spec);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  if (!result.ok()) {
    return {};
  }
  EXPECT_FALSE(result->timed_out) << "kprof timed out: " << result->err;
  return {result->exit_code, result->out, result->err};
}

/// A fresh temp directory per test.
class E2eTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create("kprof-e2e");
    ASSERT_TRUE(dir.ok());
    m_dir.emplace(std::move(dir).value());
  }
  [[nodiscard]] std::filesystem::path dir() const { return m_dir->path(); }

private:
  std::optional<TempDir> m_dir;
};

} // namespace kprof::e2e

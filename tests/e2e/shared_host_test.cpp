// kprof on a shared host: what it prints can be trusted by a terminal or a log.
//
// - stderr: messages and their details (a file name, ncu's log, a traceback) come out with their
//   control characters as `\xNN`, never raw.
#include <filesystem>
#include <string>
#include <string_view>

#include "e2e/e2e_support.hpp"
#include "kprof/strings.hpp"

namespace kprof::e2e {
namespace {

namespace fs = std::filesystem;

constexpr int k_input_not_found = 3;

/// The first raw control byte of `text` (C0 but '\n' and '\t', DEL, a UTF-8 encoded C1, a byte
/// that is not UTF-8), as "offset N: byte B"; "" when there is none.
std::string first_raw_control(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 =
        byte == 0xC2U && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9FU;
    if ((byte < 0x20U && byte != '\n' && byte != '\t') || byte == 0x7FU || c1) {
      return "offset " + std::to_string(i) + ": byte " + std::to_string(byte);
    }
  }
  return is_printable(text, Multiline::yes) ? "" : "a byte that is not UTF-8";
}

std::string standin(const std::string& name) {
  return std::string(KPROF_STANDINS_DIR) + "/" + name;
}

// ---- stderr ---------------------------------------------------------------------------------

class PrintableStderr : public E2eTest {};

TEST_F(PrintableStderr, AMissingFileWhoseNameHoldsControlCharactersIsNamedEscaped) {
  const std::string name = "capture\x1b[2J\x1b]0;owned\x07\xc2\x9b\xff.csv";
  KprofRun run = run_kprof({"report", (dir() / name).string()});
  EXPECT_EQ(run.exit_code, k_input_not_found) << run.err;
  EXPECT_EQ(first_raw_control(run.err), "") << run.err;
  EXPECT_NE(run.err.find("capture\\x1b[2J\\x1b]0;owned\\x07\\x9b\\xff.csv"), std::string::npos)
      << run.err;
}

TEST_F(PrintableStderr, AnUnknownOptionWithControlCharactersIsQuotedEscaped) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_vadd.csv"), "--\x1b[2Jbogus"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(first_raw_control(run.err), "") << run.err;
  EXPECT_NE(run.err.find("--\\x1b[2Jbogus"), std::string::npos) << run.err;
}

/// `kprof profile` with the stand-in ncu and the fake torch (tests/standins).
KprofRun profile_with_standins(const fs::path& dir, const fs::path& kernel,
                               std::vector<std::pair<std::string, std::string>> env = {}) {
  env.emplace_back("PYTHONPATH", standin("fake_torch"));
  env.emplace_back("KPROF_LOCK_DIR", (dir / "locks").string());
  env.emplace_back("XDG_CACHE_HOME", (dir / "cache").string());
  return run_kprof({"profile", kernel.string(),
                    std::string(KPROF_EXAMPLES_DIR) + "/twostage/problem.py", "--ncu",
                    standin("ncu"), "--python", "/usr/bin/python3", "--out", (dir / "out").string(),
                    "--format", "json", "--retries", "0"},
                   env);
}

TEST_F(PrintableStderr, AKernelsTracebackReachesStderrEscaped) {
  const fs::path kernel = dir() / "kernel.py";
  ASSERT_TRUE(write_file_atomic(kernel, "def kernel_function(*args, **kwargs):\n"
                                        "    raise RuntimeError('boom \\x1b[2J\\x1b]0;owned\\x07"
                                        "\\x9b31m')\n")
                  .ok());
  KprofRun run = profile_with_standins(dir(), kernel);
  EXPECT_EQ(run.exit_code, 10) << run.err; // kernel_raised
  EXPECT_NE(run.err.find("Traceback"), std::string::npos) << run.err;
  EXPECT_EQ(first_raw_control(run.err), "") << run.err;
  EXPECT_NE(run.err.find("boom \\x1b[2J\\x1b]0;owned\\x07\\x9b31m"), std::string::npos) << run.err;
}

TEST_F(PrintableStderr, ABinaryNcuLogReachesStderrEscapedNotByteForByte) {
  KprofRun run =
      profile_with_standins(dir(), std::string(KPROF_EXAMPLES_DIR) + "/twostage/kernel.py",
                            {{"KPROF_FAKE_NCU_SCENARIO", "binary_log"}});
  EXPECT_NE(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("==ERROR== "), std::string::npos) << "the log tail is shown: " << run.err;
  EXPECT_EQ(first_raw_control(run.err), "") << run.err;
  EXPECT_NE(run.err.find("\\x1b[2J\\x1b]0;owned\\x07\\x00\\x9b\\xff\\xfe"), std::string::npos)
      << run.err;
}

} // namespace
} // namespace kprof::e2e

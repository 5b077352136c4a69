// Tests of reading ncu output from files (ncu_file.cpp): opening, streaming, report detection.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "csv/ncu_reader_internal.hpp"
#include "kprof/capture.hpp"
#include "kprof/ncu_output.hpp"
#include "unit/csv/csv_test_support.hpp"

namespace kprof {
namespace {

using namespace test;

TEST(NcuFileReader, ReportsAMissingFileAsInputNotFound) {
  const ScratchDir dir;
  auto result = read_ncu_csv_file(dir.path() / "absent.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(result.error().message.find("absent.csv"), std::string::npos);
}

TEST(NcuReportDetection, RecognisesReportsByExtensionOrTheirMagicBytes) {
  const ScratchDir dir;
  EXPECT_TRUE(looks_like_ncu_report(dir.write("run.ncu-rep", "anything")));
  EXPECT_TRUE(looks_like_ncu_report(dir.write("report.bin", std::string("NVR\0\x02\0\0\0", 8))));
  // Any other binary file is malformed input, not a report that would need ncu.
  EXPECT_FALSE(looks_like_ncu_report(dir.write("noise.csv", std::string("NVPF\0\x01\x02", 7))));
  EXPECT_FALSE(looks_like_ncu_report(ncu_fixture("curated_nvtx_twostage.csv")));
  EXPECT_FALSE(looks_like_ncu_report(dir.path() / "absent"));
}

// --- what a path may be: kprof report is given whatever was typed -------------------------

TEST(NcuFileReader, RefusesAFifoWithoutAWriterInsteadOfWaitingForOne) {
  const ScratchDir dir;
  const std::filesystem::path fifo = dir.path() / "ncu.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO without O_NONBLOCK would wait for a writer forever: this returning at all is
  // half of the test.
  auto result = read_ncu_csv_file(fifo);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(result.error().message.find("ncu.csv is a FIFO, not a file"), std::string::npos)
      << result.error().message;
  EXPECT_NE(result.error().message.find("kprof report -"), std::string::npos);
  EXPECT_FALSE(looks_like_ncu_report(fifo));
}

TEST(NcuFileReader, SaysADirectoryIsADirectory) {
  const ScratchDir dir;
  std::filesystem::create_directory(dir.path() / "round001.ncu-rep");
  for (const char* name : {"round001.ncu-rep", "."}) {
    auto result = read_ncu_csv_file(dir.path() / name);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().category, ErrorCategory::input_not_found);
    EXPECT_NE(result.error().message.find("is a directory, not a file"), std::string::npos)
        << result.error().message;
  }
  // A directory named like a report is no report: reading it says what it is.
  EXPECT_FALSE(looks_like_ncu_report(dir.path() / "round001.ncu-rep"));
}

TEST(NcuFileReader, SaysDevNullIsACharacterDevice) {
  auto result = read_ncu_csv_file("/dev/null");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::input_not_found);
  EXPECT_EQ(result.error().message, "/dev/null is a character device, not a file");
  EXPECT_FALSE(looks_like_ncu_report("/dev/null"));
}

TEST(NcuFileReader, NamesASymlinkLoop) {
  const ScratchDir dir;
  std::filesystem::create_symlink("b.csv", dir.path() / "a.csv");
  std::filesystem::create_symlink("a.csv", dir.path() / "b.csv");
  auto result = read_ncu_csv_file(dir.path() / "a.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(result.error().message.find("a.csv is a symlink loop"), std::string::npos)
      << result.error().message;
  EXPECT_FALSE(looks_like_ncu_report(dir.path() / "a.csv"));
}

TEST(NcuFileReader, FollowsASymlinkToARecordedCsv) {
  const ScratchDir dir;
  std::filesystem::create_symlink(ncu_fixture("curated_nvtx_twostage.csv"), dir.path() / "l.csv");
  auto result = read_ncu_csv_file(dir.path() / "l.csv");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->kernels.size(), 2U);
}

TEST(NcuFileReader, CallsAnUnreadableFileInputNotFound) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "root reads files whatever their mode";
  }
  const ScratchDir dir;
  const auto file = dir.write("secret.csv", slurp(ncu_fixture("curated_nvtx_twostage.csv")));
  std::filesystem::permissions(file, std::filesystem::perms::none);
  auto result = read_ncu_csv_file(file);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(result.error().message.find("Permission denied"), std::string::npos);
}

// --- standard input (kprof report -) -------------------------------------------------------

/// Reads `data` through a pipe, as `kprof report - < FILE` or `ncu ... | kprof report -` would.
Result<Capture> read_through_pipe(const std::string& data, std::size_t chunk_size) {
  std::array<int, 2> ends{};
  if (::pipe(ends.data()) != 0) {
    throw std::runtime_error("pipe failed");
  }
  std::thread writer([&data, write_end = ends[1]] {
    std::string_view rest = data;
    while (!rest.empty()) {
      const ssize_t put = ::write(write_end, rest.data(), rest.size());
      if (put <= 0) {
        break; // the reader stopped (EPIPE): fine
      }
      rest.remove_prefix(static_cast<std::size_t>(put));
    }
    ::close(write_end);
  });
  auto result = csv::read_ncu_csv_fd(ends[0], {}, k_stdin_source, chunk_size);
  ::close(ends[0]);
  writer.join();
  return result;
}

TEST(NcuFileReader, ReadsAPipeLikeTheFileItCarries) {
  ::signal(SIGPIPE, SIG_IGN);
  for (const char* name : {"curated_nvtx_twostage.csv", "details_page_softmax.csv"}) {
    const std::string text = slurp(ncu_fixture(name));
    auto from_file = read_ncu_csv_file(ncu_fixture(name));
    ASSERT_TRUE(from_file.ok());
    for (const std::size_t chunk : {std::size_t{3}, csv::k_default_chunk_size}) {
      auto from_pipe = read_through_pipe(text, chunk);
      ASSERT_TRUE(from_pipe.ok()) << from_pipe.error().message;
      EXPECT_EQ(csv::capture_difference(*from_file, *from_pipe), "") << name;
      EXPECT_EQ(from_pipe->source, "<stdin>");
    }
  }
}

TEST(NcuFileReader, RefusesAReportOnAPipeNamingNcuImport) {
  ::signal(SIGPIPE, SIG_IGN);
  auto result = read_through_pipe(std::string("NVR\0\x02\0\0\0 and more", 17), 4096);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(result.error().message.find("<stdin> holds an Nsight Compute report"),
            std::string::npos)
      << result.error().message;
}

TEST(NcuFileReader, SaysUtf16OnStandardInputIsUtf16AndWhatToPipeItThrough) {
  ::signal(SIGPIPE, SIG_IGN);
  std::string utf16 = "\xFF\xFE";
  for (const char c : slurp(ncu_fixture("curated_nvtx_twostage.csv"))) {
    utf16 += c;
    utf16 += '\0';
  }
  for (const std::size_t chunk : {std::size_t{3}, csv::k_default_chunk_size}) {
    auto result = read_through_pipe(utf16, chunk);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().category, ErrorCategory::malformed_input);
    EXPECT_NE(result.error().message.find("<stdin> is UTF-16 text"), std::string::npos)
        << result.error().message;
    EXPECT_NE(result.error().message.find("pipe it through `iconv -f UTF-16 -t UTF-8` first"),
              std::string::npos)
        << result.error().message;
  }
}

TEST(NcuFileReader, SaysEmptyStandardInputIsEmpty) {
  auto result = read_through_pipe("", 4096);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(result.error().message.find("<stdin>: not ncu CSV output: the input is empty"),
            std::string::npos)
      << result.error().message;
}

} // namespace
} // namespace kprof

// Tests of reading ncu output from files (ncu_file.cpp): opening, streaming, report detection.
#include <gtest/gtest.h>

#include <string>

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

} // namespace
} // namespace kprof

// Loading saved ncu output (CSV directly, .ncu-rep through `ncu --import`) and the cached
// `ncu --query-metrics` listing.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "kprof/ncu.hpp"
#include "unit/ncu/ncu_test_support.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

NcuInstall fake_install() {
  NcuInstall install;
  install.executable = test::k_fake_ncu;
  install.version = "2025.3.1.0";
  return install;
}

/// Makes `dir`/run.ncu-rep the way kprof does: ncu -o while profiling (here the stand-in ncu).
fs::path record_report(const fs::path& dir) {
  ProcessSpec spec;
  spec.argv = {test::k_fake_ncu.string(),
               "--csv",
               "--page",
               "raw",
               "--log-file",
               (dir / "ncu.log").string(),
               "-o",
               (dir / "run").string(),
               "-f",
               "/bin/true"};
  spec.timeout = std::chrono::seconds(60);
  const auto result = run_process(spec);
  EXPECT_TRUE(result.ok() && result->succeeded());
  return dir / "run.ncu-rep";
}

TEST(LoadCapture, ReadsARecordedCsvDirectly) {
  const auto capture = load_capture(test::k_fixtures / "curated_nvtx_twostage.csv", nullptr);
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  ASSERT_EQ(capture->kernels.size(), 2U);
  EXPECT_EQ(capture->kernels[0].name, "partial_sum_kernel");
  EXPECT_EQ(capture->kernels[1].name, "scale_kernel");
}

TEST(LoadCapture, ImportsAReportThroughNcu) {
  const TempDir dir = test::make_temp_dir();
  const fs::path report = record_report(dir.path());
  ASSERT_TRUE(fs::exists(report));

  const NcuInstall ncu = fake_install();
  const auto capture = load_capture(report, &ncu);
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  ASSERT_EQ(capture->kernels.size(), 2U);
  EXPECT_EQ(capture->kernels[0].name, "partial_sum_kernel");
  EXPECT_EQ(capture->kernels[1].name, "scale_kernel");
}

TEST(LoadCapture, NeedsNcuForAReport) {
  const TempDir dir = test::make_temp_dir();
  const fs::path report = record_report(dir.path());

  const auto capture = load_capture(report, nullptr);
  ASSERT_FALSE(capture.ok());
  EXPECT_EQ(capture.error().category, ErrorCategory::ncu_not_found);
  EXPECT_NE(capture.error().message.find("KPROF_NCU"), std::string::npos);
}

TEST(LoadCapture, ReportsAFailedImportWithTheReportsName) {
  const TempDir dir = test::make_temp_dir();
  const fs::path report = record_report(dir.path());
  NcuInstall broken;
  broken.executable = test::write_script(
      dir.path() / "bin" / "ncu",
      "#!/bin/sh\necho \"==ERROR== Failed to load report file '$2'.\"\nexit 1\n");

  const auto capture = load_capture(report, &broken);
  ASSERT_FALSE(capture.ok());
  EXPECT_EQ(capture.error().category, ErrorCategory::ncu_failed);
  EXPECT_NE(capture.error().message.find(report.string()), std::string::npos);
  EXPECT_NE(capture.error().message.find("Failed to load report file"), std::string::npos);
}

TEST(LoadCapture, CallsAMissingFileInputNotFound) {
  const TempDir dir = test::make_temp_dir();
  const auto capture = load_capture(dir.path() / "absent.csv", nullptr);
  ASSERT_FALSE(capture.ok());
  EXPECT_EQ(capture.error().category, ErrorCategory::input_not_found);
}

TEST(QueryMetrics, CachesTheListingByVersionAndChipAndReusesIt) {
  const TempDir dir = test::make_temp_dir();
  const auto listing = query_metrics(fake_install(), "gh100", dir.path());
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  EXPECT_EQ(listing->rfind("Chip gh100", 0), 0U);
  const fs::path cached = dir.path() / "query-metrics-2025.3.1.0-gh100.txt";
  EXPECT_EQ(test::read_text(cached), *listing);

  // Same version, an ncu that cannot run: the answer must come from the cache.
  NcuInstall gone = fake_install();
  gone.executable = dir.path() / "no-such-ncu";
  const auto again = query_metrics(gone, "gh100", dir.path());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, *listing);
}

TEST(QueryMetrics, NamesTheCacheAfterTheDeviceWhenNoChipIsGiven) {
  const TempDir dir = test::make_temp_dir();
  const auto listing = query_metrics(fake_install(), "", dir.path());
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  EXPECT_TRUE(fs::exists(dir.path() / "query-metrics-2025.3.1.0-device.txt"));
}

TEST(QueryMetrics, DoesNotCacheWhenTheVersionIsUnknown) {
  const TempDir dir = test::make_temp_dir();
  NcuInstall install = fake_install();
  install.version.clear();
  const auto listing = query_metrics(install, "gh100", dir.path());
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(QueryMetrics, CallsAFailingNcuAnNcuFailure) {
  const TempDir dir = test::make_temp_dir();
  NcuInstall broken;
  broken.version = "2025.3.1.0";
  broken.executable = test::write_script(dir.path() / "bin" / "ncu",
                                         "#!/bin/sh\necho '==ERROR== Unknown chip' >&2\nexit 1\n");
  const auto listing = query_metrics(broken, "zz999", dir.path() / "cache");
  ASSERT_FALSE(listing.ok());
  EXPECT_EQ(listing.error().category, ErrorCategory::ncu_failed);
  EXPECT_NE(listing.error().message.find("Unknown chip"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.path() / "cache" / "query-metrics-2025.3.1.0-zz999.txt"));
}

TEST(LoadCapture, ProjectsACsvAndAnImportedReportAlike) {
  const ReadOptions options = keep_columns_named({"gpu__time_duration.sum"});
  const auto from_csv =
      load_capture(test::k_fixtures / "curated_nvtx_twostage.csv", nullptr, options);
  ASSERT_TRUE(from_csv.ok()) << from_csv.error().message;
  ASSERT_EQ(from_csv->columns.size(), 1U);
  EXPECT_EQ(from_csv->number(from_csv->kernels[1], "gpu__time_duration.sum"), 9856.0);

  const TempDir dir = test::make_temp_dir();
  const NcuInstall ncu = fake_install();
  const auto from_report = load_capture(record_report(dir.path()), &ncu, options);
  ASSERT_TRUE(from_report.ok()) << from_report.error().message;
  ASSERT_EQ(from_report->columns.size(), 1U);
  EXPECT_EQ(from_report->columns[0].name, "gpu__time_duration.sum");
  EXPECT_EQ(from_report->kernels.size(), 2U);
}

TEST(LoadCapture, SaysWhatAPathIsWhenItIsNoFileEvenWhenNamedLikeAReport) {
  const TempDir dir = test::make_temp_dir();
  fs::create_directory(dir.path() / "run.ncu-rep");
  const auto capture = load_capture(dir.path() / "run.ncu-rep", nullptr);
  ASSERT_FALSE(capture.ok());
  EXPECT_EQ(capture.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(capture.error().message.find("run.ncu-rep is a directory, not a file"),
            std::string::npos)
      << capture.error().message;
}

} // namespace
} // namespace kprof

// read_report_file: the one reading of `kprof report FILE` (and Python's build_report).
#include <filesystem>

#include <gtest/gtest.h>

#include "kprof/options.hpp"
#include "kprof/report_file.hpp"

namespace kprof {
namespace {

std::filesystem::path fixture(const char* name) {
  return std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / name;
}

TEST(ReportFileRequest, HasTheDefaultsOfTheOptionTablesReportOptions) {
  // kprof report registers --select, --kernel, --metrics and --ncu from the table; a request
  // without them (Python's build_report) must mean what the CLI's help says.
  const ReportFileRequest request;
  for (const OptionSpec& spec : option_specs()) {
    if ((spec.scopes & k_scope_report) == 0U) {
      continue;
    }
    SCOPED_TRACE(std::string(spec.name));
    switch (spec.id) {
    case OptionId::select:
      EXPECT_EQ(request.select, spec.default_text);
      break;
    case OptionId::metrics:
      EXPECT_EQ(request.metrics, spec.default_text);
      break;
    case OptionId::kernels:
      EXPECT_TRUE(request.kernels.empty());
      EXPECT_TRUE(spec.default_text.empty());
      break;
    case OptionId::ncu:
      EXPECT_FALSE(request.ncu.has_value());
      EXPECT_TRUE(spec.default_text.empty());
      break;
    default:
      ADD_FAILURE() << "an option of kprof report that ReportFileRequest does not take";
    }
  }
}

TEST(ReadReportFile, SelectsAndAnalysesTheFileWithItsMetricSet) {
  ReportFileRequest request;
  request.file = fixture("curated_nvtx_twostage.csv");
  request.select = "first";
  request.kernels = {"scale"};
  auto parts = read_report_file(request);
  ASSERT_TRUE(parts.ok()) << parts.error().message;
  ASSERT_EQ(parts->analysis.selected.size(), 1U);
  EXPECT_EQ(parts->capture.kernels[parts->analysis.selected[0]].name, "scale_kernel");
  EXPECT_EQ(parts->run["select"], "first");
  EXPECT_EQ(parts->metrics.name, "default");
  EXPECT_FALSE(parts->ncu.has_value()); // a CSV needs no ncu
}

TEST(ReadReportFile, NamesWhatIsWrongWithTheRequest) {
  ReportFileRequest request;
  request.file = fixture("curated_nvtx_twostage.csv");
  request.select = "biggest";
  EXPECT_EQ(read_report_file(request).error().category, ErrorCategory::usage);
  request.select = "all";
  request.kernels = {"no_such_kernel"};
  auto none = read_report_file(request);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().category, ErrorCategory::no_kernels);
  EXPECT_NE(none.error().message.find("curated_nvtx_twostage.csv"), std::string::npos)
      << none.error().message;
  request.kernels.clear();
  request.file = fixture("no_such_file.csv");
  EXPECT_EQ(read_report_file(request).error().category, ErrorCategory::input_not_found);
}

} // namespace
} // namespace kprof

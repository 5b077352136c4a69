// read_report_file: the one reading of `kprof report FILE` (and Python's build_report), and of
// a report.json analysed again from what it was built from.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "kprof/json_file.hpp"
#include "kprof/options.hpp"
#include "kprof/report.hpp"
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
      EXPECT_FALSE(request.select.has_value()); // a report.json's own, else:
      EXPECT_EQ(ReportFileRequest::k_default_select, spec.default_text);
      break;
    case OptionId::metrics:
      EXPECT_FALSE(request.metrics.has_value());
      EXPECT_EQ(ReportFileRequest::k_default_metrics, spec.default_text);
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

namespace fs = std::filesystem;

const fs::path k_recordings = fs::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";

TempDir temp_dir() {
  Result<TempDir> dir = TempDir::create("kprof-report-file-");
  if (!dir.ok()) {
    ADD_FAILURE() << dir.error().message;
    std::abort();
  }
  return std::move(dir).value();
}

Result<void> copy_file_atomic(const fs::path& from, const fs::path& to) {
  auto text = read_file(from);
  if (!text.ok()) {
    return text.error();
  }
  return write_file_atomic(to, *text);
}

/// The document `request` reads, or a failure of the test.
Json document_of(const ReportFileRequest& request) {
  auto parts = read_report_file(request);
  if (!parts.ok()) {
    ADD_FAILURE() << request.file << ": " << parts.error().message;
    return Json::object();
  }
  auto doc = report_file_document(*parts);
  if (!doc.ok()) {
    ADD_FAILURE() << request.file << ": " << doc.error().message;
    return Json::object();
  }
  return std::move(doc).value();
}

/// The document without what differs between two analyses of the same input: when and from
/// which file it was made.
Json analysis_of(Json doc) {
  Json& metadata = doc["metadata"];
  for (const char* key : {"generated_at", "source", "built_from", "reanalysis"}) {
    metadata.erase(key);
  }
  if (metadata.contains("hot_lines")) {
    metadata["hot_lines"].erase("source_page");
  }
  return doc;
}

/// `doc` written as dir/name/report.json, analysed again.
Json analysed_again(const Json& doc, const fs::path& dir, const std::string& name) {
  const fs::path report = dir / name / "report.json";
  EXPECT_TRUE(write_file_atomic(report, json_text(doc, 2)).ok());
  ReportFileRequest again;
  again.file = report;
  again.triton_cache = dir / "no-triton-cache";
  return document_of(again);
}

/// Every recorded ncu page kprof reads: the fixtures' CSV files and the planted suite's pages.
std::vector<fs::path> recorded_pages() {
  std::vector<fs::path> pages;
  for (const auto& entry : fs::recursive_directory_iterator(k_recordings)) {
    const fs::path& path = entry.path();
    if (path.extension() == ".csv" &&
        path.filename().string().find("source") == std::string::npos &&
        path.parent_path().filename() != "source") {
      pages.push_back(path);
    }
  }
  std::sort(pages.begin(), pages.end());
  return pages;
}

TEST(ReadReportFile, AnalysesEveryRecordedFixtureAgainFromItsReportToTheSameDocument) {
  const TempDir dir = temp_dir();
  int analysed = 0;
  for (const fs::path& page : recorded_pages()) {
    SCOPED_TRACE(page.string());
    ReportFileRequest request;
    request.file = page;
    request.triton_cache = dir.path() / "no-triton-cache";
    if (!read_report_file(request).ok()) {
      continue; // a fixture of a failure (no kernels, bad bytes): nothing to analyse again
    }
    const Json original = document_of(request);
    const Json again = analysed_again(original, dir.path(), std::to_string(analysed));
    EXPECT_EQ(analysis_of(again), analysis_of(original));
    EXPECT_EQ(again["metadata"]["reanalysis"]["kprof_version"],
              original["metadata"]["kprof_version"]);
    ++analysed;
  }
  EXPECT_GE(analysed, 20);
}

TEST(ReadReportFile, AnalysesAPlantedRecordingWithItsSourcePageAgainToTheSameDiagnosis) {
  // A deep capture: the details page (ncu's rules) and the source page (the lines).
  const TempDir dir = temp_dir();
  int kernels = 0;
  for (const auto& problem : fs::directory_iterator(k_recordings / "planted")) {
    if (!fs::is_regular_file(problem.path() / "details.csv")) {
      continue;
    }
    SCOPED_TRACE(problem.path().string());
    ReportFileRequest request;
    request.file = problem.path() / "details.csv";
    request.metrics = "deep";
    request.source_page = problem.path() / "source.csv";
    request.triton_cache = dir.path() / "no-triton-cache";
    const Json original = document_of(request);
    const Json& launches = original["kernels"];
    EXPECT_TRUE(std::any_of(launches.begin(), launches.end(),
                            [](const Json& launch) { return launch.contains("hot_lines"); }));
    const Json again = analysed_again(original, dir.path(), problem.path().filename().string());
    EXPECT_EQ(analysis_of(again), analysis_of(original));
    kernels += static_cast<int>(again["kernels"].size());
  }
  EXPECT_GE(kernels, 38);
}

TEST(ReadReportFile, AnalysesAgainARoundMovedWholeFromItsRelativeInputs) {
  const TempDir dir = temp_dir();
  const fs::path round = dir.path() / "round003";
  ASSERT_TRUE(copy_file_atomic(k_recordings / "planted" / "vec_f32" / "details.csv",
                               round / "gpu0-part0" / "rows.csv")
                  .ok());
  ReportFileRequest request;
  request.file = round / "gpu0-part0" / "rows.csv";
  request.metrics = "deep";
  Json original = document_of(request);
  original["metadata"]["candidate"] = 2;
  ReportInputs inputs;
  inputs.rows = "../gpu0-part0/rows.csv";
  original["metadata"]["built_from"] = to_json(inputs);
  ASSERT_TRUE(write_file_atomic(round / "cand2" / "report.json", json_text(original, 2)).ok());
  fs::rename(round, dir.path() / "round003.attempt-1");
  request = ReportFileRequest{};
  request.file = dir.path() / "round003.attempt-1" / "cand2";
  const Json again = document_of(request);
  EXPECT_EQ(again["metadata"]["candidate"], 2);
  EXPECT_EQ(analysis_of(again), analysis_of(original));
}

TEST(ReadReportFile, AReportOfAnOlderSchemaVersionIsAnalysedAgainFromWhatItNames) {
  // Schema 1 (before hot lines) and no built_from (before reports kept it): a report of a
  // capture names its file in metadata.source.
  const TempDir dir = temp_dir();
  ReportFileRequest request;
  request.file = k_recordings / "curated_nvtx_twostage.csv";
  Json original = document_of(request);
  Json old = original;
  old["schema_version"] = 1;
  old["metadata"].erase("built_from");
  old["metadata"]["source"] = fs::absolute(request.file).string();
  const Json again = analysed_again(old, dir.path(), "v1");
  EXPECT_EQ(again["schema_version"], original["schema_version"]);
  EXPECT_EQ(analysis_of(again), analysis_of(original));

  // A profiled round of an earlier kprof kept its rows in the session's ncu.log.
  const fs::path round = dir.path() / "round000";
  ASSERT_TRUE(copy_file_atomic(request.file, round / "ncu.log").ok());
  old["metadata"]["session_dir"] = ".";
  old["metadata"]["candidate"] = nullptr;
  old["metadata"]["source"] = "out/round000/ncu.log";
  ASSERT_TRUE(write_file_atomic(round / "report.json", json_text(old, 2)).ok());
  request.file = round;
  auto parts = read_report_file(request);
  // The capture has no range kprof:cand0: an earlier round's report names what it analysed.
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.error().category, ErrorCategory::no_kernels) << parts.error().message;

  // A report that does not say where its capture is is refused, saying what to do.
  old["metadata"].erase("session_dir");
  old["metadata"]["source"] = "<stdin>";
  ASSERT_TRUE(write_file_atomic(dir.path() / "stdin.json", json_text(old, 2)).ok());
  request.file = dir.path() / "stdin.json";
  parts = read_report_file(request);
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(parts.error().message.find("does not say what it was built from"), std::string::npos)
      << parts.error().message;
  EXPECT_NE(parts.error().message.find("kprof report CAPTURE"), std::string::npos)
      << parts.error().message;
}

TEST(ReadReportFile, AReportOfANewerSchemaVersionIsRefused) {
  const TempDir dir = temp_dir();
  ReportFileRequest request;
  request.file = k_recordings / "curated_nvtx_twostage.csv";
  Json newer = document_of(request);
  newer["schema_version"] = k_report_schema_version + 1;
  ASSERT_TRUE(write_file_atomic(dir.path() / "report.json", json_text(newer, 2)).ok());
  request.file = dir.path() / "report.json";
  auto parts = read_report_file(request);
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(parts.error().message.find("newer kprof"), std::string::npos) << parts.error().message;
}

TEST(ReportInputs, ReadBackAsWritten) {
  ReportInputs inputs;
  inputs.rows = "../gpu0-part1/rows.csv";
  inputs.source_page = "../gpu0-part1/source.csv";
  inputs.nvtx_range = "kprof:cand3";
  inputs.kernels = {"softmax"};
  inputs.all_columns = true;
  auto back = report_inputs_from_json(to_json(inputs));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(to_json(*back), to_json(inputs));
  EXPECT_EQ(report_inputs_from_json(Json{{"rows", 3}}).error().category,
            ErrorCategory::malformed_input);
}

} // namespace
} // namespace kprof

// `kprof report REPORT`: a round made with the stand-in ncu (tests/standins/ncu) analysed again
// from what it keeps, in every format, without ncu: the same analysis, diagnosis and hot lines
// as the round's own report; a round directory picks its report.json; what cannot be analysed
// again says why.
#include <nlohmann/json.hpp>

#include "e2e/e2e_support.hpp"

namespace kprof::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int k_usage = 2;
constexpr int k_input_not_found = 3;
constexpr int k_malformed_input = 4;

std::string standin(const std::string& name) {
  return std::string(KPROF_STANDINS_DIR) + "/" + name;
}
std::string example(const std::string& name) {
  return std::string(KPROF_EXAMPLES_DIR) + "/" + name;
}

json read_json(const fs::path& path) {
  auto text = read_file(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? json::parse(*text) : json();
}

/// The document without what differs between two analyses of the same input: when and from
/// which file it was made.
json analysis_of(json doc) {
  json& metadata = doc["metadata"];
  for (const char* key : {"generated_at", "source", "built_from", "reanalysis"}) {
    metadata.erase(key);
  }
  if (metadata.contains("hot_lines")) {
    metadata["hot_lines"].erase("source_page");
  }
  // The harness's measurements are not among the rows: a report made again has no "truth"
  // (docs/json-schema.md).
  doc.erase("truth");
  return doc;
}

class ReportAgain : public E2eTest {
protected:
  /// `kprof ARGS` with the stand-in ncu and the fake torch; `source` names the recorded source
  /// page and `rows` the recorded rows (tests/fixtures/ncu/2025.3.1/source/).
  KprofRun run_standin(std::vector<std::string> args, const std::string& rows,
                       const std::string& source) {
    args.insert(args.end(), {"--ncu", standin("ncu"), "--python", "/usr/bin/python3", "--out",
                             out().string(), "--format", "json", "--source"});
    return run_kprof(args, {{"PYTHONPATH", standin("fake_torch")},
                            {"KPROF_LOCK_DIR", (dir() / "locks").string()},
                            {"XDG_CACHE_HOME", (dir() / "cache").string()},
                            {"KPROF_FAKE_NCU_CSV", fixture("source/" + rows)},
                            {"KPROF_FAKE_NCU_SOURCE", fixture("source/" + source)}});
  }

  /// `kprof report ARGS` with no ncu to be found.
  KprofRun report(std::vector<std::string> args) {
    args.insert(args.begin(), "report");
    return run_kprof(args, {{"KPROF_NCU", (dir() / "no-ncu").string()}, {"PATH", "/usr/bin:/bin"}});
  }

  [[nodiscard]] fs::path out() const { return dir() / "out"; }
};

TEST_F(ReportAgain, ARoundWithSourceCountersIsAnalysedAgainWithoutNcuInEveryFormat) {
  KprofRun profiled = run_standin(
      {"profile", example("vadd/kernel.py"), example("vadd/problem.py"), "--round", "1"},
      "vadd.raw.csv", "vadd.source.csv");
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  const fs::path round = out() / "round001";
  // The log holds the source page; the rows imported from the report are kept beside it.
  EXPECT_TRUE(fs::is_regular_file(round / "rows.csv"));
  EXPECT_TRUE(fs::is_regular_file(round / "source.csv"));
  const json original = read_json(round / "report.json");
  EXPECT_EQ(original["metadata"]["built_from"], (json{{"rows", "rows.csv"},
                                                      {"source_page", "source.csv"},
                                                      {"nvtx_range", "kprof:cand0"},
                                                      {"kernels", json::array()},
                                                      {"all_columns", true}}));
  EXPECT_EQ(fs::path(original["metadata"]["source"].get<std::string>()).filename(), "rows.csv");
  ASSERT_TRUE(original["kernels"][0].contains("hot_lines"));

  // The round's directory and its report.json are the same thing, moved anywhere.
  fs::rename(round, dir() / "moved");
  for (const fs::path& given : {dir() / "moved", dir() / "moved" / "report.json"}) {
    KprofRun again = report({given.string(), "--format", "json"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    const json doc = json::parse(again.out);
    EXPECT_EQ(analysis_of(doc), analysis_of(original)) << given;
    EXPECT_EQ(doc["metadata"]["reanalysis"]["kprof_version"],
              original["metadata"]["kprof_version"]);
    EXPECT_EQ(doc["metadata"]["built_from"]["rows"], (dir() / "moved" / "rows.csv").string());
  }
  for (const char* format : {"table", "prompt", "csv", "html"}) {
    KprofRun again = report({(dir() / "moved").string(), "--format", format});
    EXPECT_EQ(again.exit_code, 0) << format << ": " << again.err;
    EXPECT_NE(again.out.find("add_kernel"), std::string::npos) << format;
  }
  KprofRun prompt = report({(dir() / "moved").string(), "--format", "prompt"});
  EXPECT_NE(prompt.out.find("What to fix first"), std::string::npos) << prompt.out;
  EXPECT_NE(prompt.out.find("Hot lines"), std::string::npos) << prompt.out;
}

TEST_F(ReportAgain, ABatchCandidateIsAnalysedAgainAndTheBatchRoundSaysWhichToGive) {
  KprofRun batch =
      run_standin({"batch", example("softmax/problem.py"), example("softmax_variants/cand0.py"),
                   example("softmax_variants/cand1.py"), "--round", "2"},
                  "batch2.raw.csv", "batch2.source.csv");
  ASSERT_EQ(batch.exit_code, 0) << batch.err;
  const fs::path round = out() / "round002";
  for (int k = 0; k < 2; ++k) {
    const fs::path cand = round / ("cand" + std::to_string(k));
    const json original = read_json(cand / "report.json");
    EXPECT_EQ(original["metadata"]["built_from"]["rows"], "../gpu0-part0/rows.csv");
    EXPECT_EQ(original["metadata"]["built_from"]["nvtx_range"], "kprof:cand" + std::to_string(k));
    KprofRun again = report({cand.string(), "--format", "json"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    const json doc = json::parse(again.out);
    EXPECT_EQ(analysis_of(doc), analysis_of(original)) << cand;
    ASSERT_EQ(doc["kernels"].size(), 1U);
    EXPECT_EQ(doc["kernels"][0]["nvtx_range"], "kprof:cand" + std::to_string(k));
  }
  KprofRun whole = report({round.string()});
  EXPECT_EQ(whole.exit_code, k_usage) << whole.err;
  EXPECT_NE(whole.err.find("is a batch round: give one of its candidates' reports"),
            std::string::npos)
      << whole.err;
  EXPECT_NE(whole.err.find((round / "cand1" / "report.json").string()), std::string::npos)
      << whole.err;
}

TEST_F(ReportAgain, GivenOptionsReplaceTheReportsOwnAndRecordingItAsARoundWorks) {
  KprofRun first = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--format", "json",
                              "--select", "first", "--out", (dir() / "r.json").string()});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  KprofRun again = report({(dir() / "r.json").string(), "--format", "json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["metadata"]["select"], "first");
  KprofRun lean = report(
      {(dir() / "r.json").string(), "--format", "json", "--metrics", "lean", "--kernel", "scale"});
  ASSERT_EQ(lean.exit_code, 0) << lean.err;
  const json doc = json::parse(lean.out);
  EXPECT_EQ(doc["metadata"]["metric_set"]["name"], "lean");
  ASSERT_EQ(doc["kernels"].size(), 1U);
  EXPECT_EQ(doc["kernels"][0]["name"], "scale_kernel");
  KprofRun recorded =
      report({(dir() / "r.json").string(), "--round", "4", "--out", (dir() / "run").string()});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_TRUE(fs::is_regular_file(dir() / "run" / "round004" / "report.json"));
}

TEST_F(ReportAgain, WhatCannotBeAnalysedAgainSaysWhy) {
  KprofRun first = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--format", "json",
                              "--out", (dir() / "r.json").string()});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // Its capture is gone.
  json doc = read_json(dir() / "r.json");
  doc["metadata"]["built_from"]["rows"] = (dir() / "gone.csv").string();
  ASSERT_TRUE(write_file_atomic(dir() / "gone.json", doc.dump()).ok());
  KprofRun gone = report({(dir() / "gone.json").string()});
  EXPECT_EQ(gone.exit_code, k_input_not_found) << gone.err;
  EXPECT_NE(gone.err.find("was built from " + (dir() / "gone.csv").string() + ", which is missing"),
            std::string::npos)
      << gone.err;
  // A newer kprof's report.
  doc = read_json(dir() / "r.json");
  doc["schema_version"] = 99;
  ASSERT_TRUE(write_file_atomic(dir() / "newer.json", doc.dump()).ok());
  KprofRun newer = report({(dir() / "newer.json").string()});
  EXPECT_EQ(newer.exit_code, k_malformed_input) << newer.err;
  EXPECT_NE(newer.err.find("newer kprof"), std::string::npos) << newer.err;
  // --source applies to a capture.
  KprofRun source = report({(dir() / "r.json").string(), "--source"});
  EXPECT_EQ(source.exit_code, k_usage) << source.err;
}

} // namespace
} // namespace kprof::e2e

// The kprof binary on recorded H200 captures: output shapes and documented exit codes.
#include <nlohmann/json.hpp>

#include "e2e/e2e_support.hpp"

namespace kprof::e2e {
namespace {

using nlohmann::json;

class KprofCli : public E2eTest {};

TEST_F(KprofCli, PrintsItsVersion) {
  KprofRun run = run_kprof({"--version"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out.rfind("kprof 0.", 0), 0U) << run.out;
}

TEST_F(KprofCli, HelpListsEveryCommand) {
  KprofRun run = run_kprof({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  for (const char* command :
       {"profile", "batch", "report", "harness", "metrics", "history", "diff", "doctor"}) {
    EXPECT_NE(run.out.find(command), std::string::npos) << command;
  }
  EXPECT_NE(run.out.find("Exit codes"), std::string::npos);
}

TEST_F(KprofCli, CommandHelpWorks) {
  KprofRun run = run_kprof({"profile", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("--clock-control"), std::string::npos);
}

TEST_F(KprofCli, UnknownOptionIsAUsageError) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--bogus"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("kprof: error:"), std::string::npos);
}

TEST_F(KprofCli, ReportJsonHasBothTwostageKernelsWithTheirNumbers) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json doc = json::parse(run.out);
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["kernels"].size(), 2U);
  EXPECT_EQ(doc["kernels"][0]["name"], "partial_sum_kernel");
  EXPECT_EQ(doc["kernels"][0]["metrics"]["dram__bytes_read.sum"]["value"], 16781824);
  EXPECT_EQ(doc["kernels"][0]["metrics"]["dram__bytes_read.sum"]["unit"], "byte");
  EXPECT_EQ(doc["kernels"][1]["metrics"]["gpu__time_duration.sum"]["value"], 9856);
  EXPECT_EQ(doc["metadata"]["gpu"], "NVIDIA H200");
  EXPECT_EQ(doc["summary"]["dominant_kernel"], "scale_kernel");
  EXPECT_TRUE(doc["metrics"].contains("partial_sum_kernel"));
}

TEST_F(KprofCli, ReportWritesTheOutFileAtomicallyAndPrintsNothing) {
  const auto out = dir() / "report.json";
  KprofRun run = run_kprof(
      {"report", fixture("curated_nvtx_vadd.csv"), "--format", "json", "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.empty());
  auto text = read_file(out);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(json::parse(*text)["kernels"][0]["name"], "add_kernel");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir())) {
    ++files;
  }
  EXPECT_EQ(files, 1U) << "no temp file may be left behind";
}

TEST_F(KprofCli, ReportCsvHasUnitsInTheHeader) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--format", "csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string header = run.out.substr(0, run.out.find('\n'));
  EXPECT_NE(header.find("gpu__time_duration.sum (ns)"), std::string::npos) << header;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 3);
}

TEST_F(KprofCli, PromptNamesTheGpuTheRooflineAndEachKernel) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_matmul.csv"), "--format", "prompt"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(run.out.find("matmul_kernel"), std::string::npos);
  EXPECT_NE(run.out.find("compute-bound"), std::string::npos) << run.out;
}

TEST_F(KprofCli, DetailsPageReportCarriesNcuRules) {
  KprofRun run =
      run_kprof({"report", fixture("batch4_details_sections_rules.csv"), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json doc = json::parse(run.out);
  ASSERT_FALSE(doc["kernels"].empty());
  EXPECT_TRUE(doc["kernels"][0].contains("rules"));
}

TEST_F(KprofCli, SelectLastKeepsOneLaunchPerName) {
  KprofRun run = run_kprof(
      {"report", fixture("batch4_flat_regex_ranges.csv"), "--format", "json", "--select", "last"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(json::parse(run.out)["kernels"].size(), 5U); // five distinct names, one launch each
}

TEST_F(KprofCli, KernelFilterThatMatchesNothingIsNoKernels) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--kernel", "nope"});
  EXPECT_EQ(run.exit_code, 5) << run.err;
}

TEST_F(KprofCli, UnknownSelectWordListsTheValidOnes) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--select", "newest"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("max-cycles"), std::string::npos) << run.err;
}

TEST_F(KprofCli, MissingFileIsInputNotFound) {
  KprofRun run = run_kprof({"report", (dir() / "absent.csv").string()});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_TRUE(run.out.empty());
}

TEST_F(KprofCli, ForeignCsvIsMalformedInput) {
  const auto path = dir() / "other.csv";
  ASSERT_TRUE(write_file_atomic(path, "a,b,c\n1,2,3\n").ok());
  KprofRun run = run_kprof({"report", path.string()});
  EXPECT_EQ(run.exit_code, 4) << run.err;
  EXPECT_TRUE(run.out.empty());
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "one line: " << run.err;
}

TEST_F(KprofCli, BinaryGarbageIsMalformedInputNotAReport) {
  const auto path = dir() / "noise.csv";
  std::string bytes(4096, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>((i * 7919U) % 251U);
  }
  ASSERT_TRUE(write_file_atomic(path, bytes).ok());
  KprofRun run = run_kprof({"report", path.string()});
  EXPECT_EQ(run.exit_code, 4) << run.err;
  EXPECT_TRUE(run.out.empty());
}

TEST_F(KprofCli, NoKernelsProfiledIsItsOwnExitCode) {
  KprofRun run = run_kprof({"report", fixture("no_kernels_profiled.txt")});
  EXPECT_EQ(run.exit_code, 5) << run.err;
}

TEST_F(KprofCli, MetricsCheckAcceptsEveryBuiltinSetOnHopper) {
  for (const char* set : {"default", "lean", "deep"}) {
    KprofRun run =
        run_kprof({"metrics", "--set", set, "--check", fixture("ncu_query_metrics_gh100.txt")});
    EXPECT_EQ(run.exit_code, 0) << set << ": " << run.out << run.err;
  }
}

TEST_F(KprofCli, MetricsCheckReportsKernelAgentsMissingHopperMetrics) {
  KprofRun run = run_kprof({"metrics", "--set",
                            "sm__inst_executed_pipe_fp32.avg.pct_of_peak_sustained_active,"
                            "smsp__warp_issue_stalled_memory_dependency_per_warp_active.pct,"
                            "dram__bytes_read.sum",
                            "--check", fixture("ncu_query_metrics_gh100.txt")});
  EXPECT_EQ(run.exit_code, 11);
  EXPECT_NE(run.out.find("sm__inst_executed_pipe_fp32"), std::string::npos);
  EXPECT_EQ(run.out.find("dram__bytes_read"), std::string::npos);
}

TEST_F(KprofCli, RecordedRoundsFeedHistoryAndDiff) {
  const auto out = dir() / "rounds";
  ASSERT_EQ(run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--round", "1", "--out",
                       out.string(), "--format", "json"})
                .exit_code,
            0);
  ASSERT_EQ(run_kprof({"report", fixture("curated_instances_twostage.csv"), "--round", "2", "--out",
                       out.string(), "--format", "json"})
                .exit_code,
            0);
  EXPECT_TRUE(std::filesystem::exists(out / "round001" / "report.json"));
  EXPECT_TRUE(std::filesystem::exists(out / "round002_ncu_metrics.json"));
  KprofRun history = run_kprof({"history", out.string(), "--format", "json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_NE(history.out.find("scale_kernel"), std::string::npos) << history.out;
  KprofRun diff = run_kprof({"diff", out.string(), "1", "2", "--format", "prompt"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_NE(diff.out.find("scale_kernel"), std::string::npos) << diff.out;
  KprofRun diff_files =
      run_kprof({"diff", (out / "round001" / "report.json").string(),
                 (out / "round002" / "report.json").string(), "--format", "json"});
  ASSERT_EQ(diff_files.exit_code, 0) << diff_files.err;
  EXPECT_TRUE(json::accept(diff_files.out)) << diff_files.out;
}

} // namespace
} // namespace kprof::e2e

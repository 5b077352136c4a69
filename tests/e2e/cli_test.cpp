// The kprof binary on recorded H200 captures: output shapes and documented exit codes.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "e2e/e2e_support.hpp"
#include "kprof/error.hpp"
#include "kprof/options.hpp"

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

TEST_F(KprofCli, ProfileHelpListsCastAutoAndKeepsNoneTheDefault) {
  KprofRun run = run_kprof({"profile", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  const auto line_start = run.out.find("--cast");
  ASSERT_NE(line_start, std::string::npos) << run.out;
  const std::string line = run.out.substr(line_start, run.out.find('\n', line_start) - line_start);
  EXPECT_NE(line.find("none|auto|bf16|fp16|fp32"), std::string::npos) << line;
  EXPECT_NE(line.find("=none"), std::string::npos) << line;
}

TEST_F(KprofCli, ProfileHelpShowsEveryDefaultOfTheOptionTable) {
  // The table's defaults are ProfileOptions{}'s (tests/unit/profile/options_test.cpp); help
  // prints each beside its option word ("--timeout N=300").
  KprofRun run = run_kprof({"profile", "--help"});
  ASSERT_EQ(run.exit_code, 0);
  int shown = 0;
  for (const kprof::OptionSpec& spec : kprof::option_specs()) {
    if (spec.cli.empty() || spec.default_text.empty() || spec.kind == kprof::OptionKind::flag ||
        (spec.scopes & kprof::k_scope_profile) == 0) {
      continue;
    }
    const auto line_start = run.out.find(fmt::format("  {} ", spec.cli));
    ASSERT_NE(line_start, std::string::npos) << spec.cli << " is not in:\n" << run.out;
    const std::string line =
        run.out.substr(line_start, run.out.find('\n', line_start) - line_start);
    EXPECT_NE(line.find(fmt::format("={}", spec.default_text)), std::string::npos) << line;
    ++shown;
  }
  EXPECT_GE(shown, 8);
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
  EXPECT_EQ(doc["schema_version"], 4);
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

TEST_F(KprofCli, TableIsAsWideAsColumnsSaysAndAHundredColumnsWhenNotATerminal) {
  const auto widest = [](const std::string& text) {
    std::size_t most = 0;
    std::size_t start = 0;
    for (std::size_t end = text.find('\n'); end != std::string::npos;
         start = end + 1, end = text.find('\n', start)) {
      most = std::max(most, end - start);
    }
    return most;
  };
  const std::string capture = fixture("curated_nvtx_twostage.csv");
  KprofRun piped = run_kprof({"report", capture, "--format", "table"});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_LE(widest(piped.out), 100U) << piped.out;
  EXPECT_GT(widest(piped.out), 90U) << piped.out;

  KprofRun wide = run_kprof({"report", capture, "--format", "table"}, {{"COLUMNS", "200"}});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_GT(widest(wide.out), 100U) << wide.out;
  EXPECT_LE(widest(wide.out), 200U) << wide.out;
  EXPECT_NE(wide.out.find("of the warps' cycles, DRAM at 36.8% of peak [no estimate; "
                          "kprof:metrics]\n"),
            std::string::npos)
      << wide.out;

  KprofRun nonsense = run_kprof({"report", capture, "--format", "table"}, {{"COLUMNS", "wide"}});
  EXPECT_EQ(nonsense.out, piped.out) << "a COLUMNS that is not a width is ignored";
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

TEST_F(KprofCli, KernelFilterThatMatchesNothingIsNoKernelsNamingTheKernels) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--kernel", "nope"});
  EXPECT_EQ(run.exit_code, 5) << run.err;
  // kprof mcp's diagnosis and hot_lines say the same of a round (McpServer tests).
  EXPECT_NE(run.err.find("no kernel name contains 'nope' (kernels in the capture: "),
            std::string::npos)
      << run.err;
}

TEST_F(KprofCli, AnEmptyOutIsAUsageErrorSayingItMayNotBeEmpty) {
  const std::string capture = fixture("curated_nvtx_twostage.csv");
  KprofRun file = run_kprof({"report", capture, "--out", ""}, {}, std::chrono::seconds(120), dir());
  EXPECT_EQ(file.exit_code, 2) << file.err;
  EXPECT_NE(file.err.find("--out may not be empty: give the output file"), std::string::npos)
      << file.err;
  EXPECT_TRUE(file.out.empty()) << "nothing on standard output instead";
  KprofRun round = run_kprof({"report", capture, "--round", "1", "--out", ""}, {},
                             std::chrono::seconds(120), dir());
  EXPECT_EQ(round.exit_code, 2) << round.err;
  EXPECT_NE(round.err.find("--out may not be empty: give the run directory of --round"),
            std::string::npos)
      << round.err;
  EXPECT_FALSE(std::filesystem::exists(dir() / "kprof-out")) << "no round in the default";
  for (const char* command : {"profile", "batch"}) {
    KprofRun run =
        run_kprof({command, "k.py", "p.py", "--out", ""}, {}, std::chrono::seconds(120), dir());
    EXPECT_EQ(run.exit_code, 2) << command << ": " << run.err;
    EXPECT_NE(run.err.find("--out may not be empty: give the output directory (by default "
                           "kprof-out)"),
              std::string::npos)
        << command << ": " << run.err;
  }
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

TEST_F(KprofCli, ARecordedRoundPrintsTheReportItWroteInEachFormat) {
  // report.json and metrics.csv are read launch by launch: what is printed is what was written.
  for (const char* format : {"json", "csv"}) {
    SCOPED_TRACE(format);
    const auto out = dir() / (std::string("round-") + format);
    KprofRun run = run_kprof({"report", fixture("planted/vec_f32/details.csv"), "--round", "1",
                              "--out", out.string(), "--format", format});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const char* file = std::string_view(format) == "json" ? "report.json" : "metrics.csv";
    auto written = read_file(out / "round001" / file);
    ASSERT_TRUE(written.ok()) << written.error().message;
    EXPECT_EQ(run.out, *written);
    EXPECT_TRUE(std::filesystem::exists(out / "round001_ncu_metrics.json"));
    EXPECT_TRUE(std::filesystem::exists(out / "kprof.db"));
  }
  KprofRun table = run_kprof({"report", fixture("planted/vec_f32/details.csv"), "--round", "2",
                              "--out", (dir() / "round-table").string(), "--format", "table"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  KprofRun plain =
      run_kprof({"report", fixture("planted/vec_f32/details.csv"), "--format", "table"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(table.out, plain.out);
}

TEST_F(KprofCli, DiffOfAReportAndACsvNamesTheFileThatIsNotAReportAndWhatItIs) {
  const auto report = dir() / "report.json";
  ASSERT_EQ(run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--format", "json", "--out",
                       report.string()})
                .exit_code,
            0);
  const std::string csv = fixture("curated_nvtx_vadd.csv");
  KprofRun diff = run_kprof({"diff", report.string(), csv});
  EXPECT_EQ(diff.exit_code, 4) << diff.err;
  EXPECT_NE(diff.err.find("kprof: error: " + csv +
                          " is not a kprof report: it is ncu's CSV output: make a kprof report of "
                          "it with `kprof report " +
                          csv + " --format json --out report.json`"),
            std::string::npos)
      << diff.err;
  EXPECT_EQ(diff.err.find("json.exception"), std::string::npos) << diff.err;
  EXPECT_TRUE(diff.out.empty()) << diff.out;

  // A batch summary is named as one, and a report cut short says where nlohmann stopped.
  const auto batch = dir() / "batch.json";
  ASSERT_TRUE(write_file_atomic(batch, R"({"schema_version": 2, "candidates": []})").ok());
  KprofRun of_batch = run_kprof({"diff", batch.string(), report.string()});
  EXPECT_EQ(of_batch.exit_code, 4) << of_batch.err;
  EXPECT_NE(of_batch.err.find(batch.string() + " is not a kprof report: it is a batch summary"),
            std::string::npos)
      << of_batch.err;
  auto text = read_file(report);
  ASSERT_TRUE(text.ok());
  const auto cut = dir() / "cut.json";
  ASSERT_TRUE(write_file_atomic(cut, text->substr(0, text->size() / 2)).ok());
  KprofRun of_cut = run_kprof({"diff", report.string(), cut.string()});
  EXPECT_EQ(of_cut.exit_code, 4) << of_cut.err;
  EXPECT_NE(of_cut.err.find(cut.string() + " is not a kprof report: it is not valid JSON (cut "
                                           "short or edited?)"),
            std::string::npos)
      << of_cut.err;
}

TEST_F(KprofCli, DiffRefusesANegativeDurationNamingTheFileAndTheKey) {
  const auto report = dir() / "report.json";
  ASSERT_EQ(run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--format", "json", "--out",
                       report.string()})
                .exit_code,
            0);
  auto text = read_file(report);
  ASSERT_TRUE(text.ok());
  json negative = json::parse(*text);
  negative["summary"]["total_duration_ns"] = -1000;
  const auto edited = dir() / "negative.json";
  ASSERT_TRUE(write_file_atomic(edited, negative.dump()).ok());
  KprofRun diff = run_kprof({"diff", report.string(), edited.string(), "--format", "prompt"});
  EXPECT_EQ(diff.exit_code, 4) << diff.err;
  EXPECT_NE(diff.err.find("report B (" + edited.string() +
                          "): 'summary.total_duration_ns' is -1000: a duration cannot be negative"),
            std::string::npos)
      << diff.err;
  EXPECT_TRUE(diff.out.empty()) << "no speedup or percentage made of it: " << diff.out;
}

TEST_F(KprofCli, DoubleDashLetsReportAndHarnessTakeAFileNamedLikeAnOption) {
  std::filesystem::copy_file(fixture("curated_nvtx_vadd.csv"), dir() / "-x.csv");
  KprofRun report = run_kprof({"report", "--format", "json", "--", "-x.csv"}, {},
                              std::chrono::seconds(60), dir());
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(json::parse(report.out)["kernels"][0]["name"], "add_kernel");

  std::filesystem::copy_file(std::string(KPROF_EXAMPLES_DIR) + "/twostage/kernel.py",
                             dir() / "-k.py");
  KprofRun harness = run_kprof({"harness", "-o", "h.py", "--", "-k.py", "-p.py"}, {},
                               std::chrono::seconds(60), dir());
  ASSERT_EQ(harness.exit_code, 0) << harness.err;
  auto plan = read_file(dir() / "h.plan.json");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(json::parse(*plan)["candidates"][0]["kernel"], (dir() / "-k.py").string());
}

TEST_F(KprofCli, AFileNamedLikeAnOptionIsNamedAsAnUnknownOptionWithTheWayToPassIt) {
  // Not "PROBLEM is required": the word CLI11 could not take is what went wrong.
  std::ofstream(dir() / "-kernel.py") << "def kernel_function(x):\n    return x\n";
  std::ofstream(dir() / "problem.py") << "def get_inputs():\n    return []\n";
  KprofRun run =
      run_kprof({"profile", "-kernel.py", "problem.py"}, {}, std::chrono::seconds(60), dir());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err.find("is required"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("unknown option '-kernel.py' for kprof profile"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("to name the file -kernel.py, write ./-kernel.py or put it after '--'"),
            std::string::npos)
      << run.err;
  // A word that names no file gets no such advice.
  KprofRun typo =
      run_kprof({"profile", "-kernal.py", "problem.py"}, {}, std::chrono::seconds(60), dir());
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown option '-kernal.py' for kprof profile (valid: "),
            std::string::npos)
      << typo.err;
  EXPECT_EQ(typo.err.find("to name the file"), std::string::npos) << typo.err;
}

TEST_F(KprofCli, AnOptionAfterTheDoubleDashIsSaidToComeAfterItNotToBeUnknown) {
  std::ofstream(dir() / "-kernel.py") << "def kernel_function(x):\n    return x\n";
  std::ofstream(dir() / "problem.py") << "def get_inputs():\n    return []\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"profile", "--", "-kernel.py", "problem.py", "--format", "json"},
        std::vector<std::string>{"report", "--", fixture("curated_nvtx_vadd.csv"), "--format",
                                 "json"},
        // Every argument taken before '--': CLI11 hands the rest to the top level.
        std::vector<std::string>{"report", fixture("curated_nvtx_vadd.csv"), "--format", "json",
                                 "--", "--format", "json"}}) {
    KprofRun run = run_kprof(args, {}, std::chrono::seconds(60), dir());
    EXPECT_EQ(run.exit_code, 2) << args[0];
    EXPECT_EQ(run.err.find("unknown option"), std::string::npos)
        << "--format is a known option: " << run.err;
    EXPECT_NE(run.err.find(fmt::format("'--format' comes after '--', which ends the options of "
                                       "kprof {}: put --format before '--'",
                                       args[0])),
              std::string::npos)
        << run.err;
  }
}

TEST_F(KprofCli, HistoryConvergedPrintsTheConvergenceDocumentThroughTheSinks) {
  const auto out = dir() / "rounds";
  ASSERT_EQ(run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--round", "1", "--out",
                       out.string(), "--format", "json"})
                .exit_code,
            0);
  KprofRun as_json = run_kprof(
      {"history", out.string(), "--converged", "--format", "json", "--sol-threshold", "30"});
  EXPECT_EQ(as_json.exit_code, 0) << as_json.err;
  ASSERT_TRUE(json::accept(as_json.out)) << as_json.out;
  const json doc = json::parse(as_json.out);
  EXPECT_EQ(doc["kind"], "convergence");
  EXPECT_EQ(doc["converged"], true);
  EXPECT_EQ(doc["reason"], "at_roofline");
  KprofRun as_table = run_kprof({"history", out.string(), "--converged", "--format", "table"});
  EXPECT_EQ(as_table.exit_code, 1) << as_table.err;
  EXPECT_EQ(as_table.out.rfind("not converged: ", 0), 0U) << as_table.out;
  KprofRun as_csv = run_kprof({"history", out.string(), "--converged", "--format", "csv"});
  EXPECT_EQ(as_csv.out.rfind("converged,reason,best_round,", 0), 0U) << as_csv.out;
}

// ---- exit codes from one table ------------------------------------------------------------------

TEST_F(KprofCli, HelpFooterListsEveryDocumentedExitCode) {
  KprofRun run = run_kprof({"--help"});
  ASSERT_EQ(run.exit_code, 0);
  for (const ExitCodeRow& row : exit_code_table()) {
    EXPECT_NE(run.out.find(fmt::format("\n  {:>3}  ", row.code)), std::string::npos)
        << row.code << " missing from:\n"
        << run.out;
  }
  EXPECT_NE(run.out.find("130  interrupted"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("70  internal error"), std::string::npos) << run.out;
}

TEST_F(KprofCli, ReadmeExitCodeTableIsTheTableTheLibraryGives) {
  // README.md is in the source tree, two levels above the fixtures.
  std::ifstream file(std::string(KPROF_FIXTURES_DIR) + "/../../README.md");
  ASSERT_TRUE(file.good()) << "README.md not found next to the sources";
  std::string line;
  bool in_section = false;
  std::string table;
  while (std::getline(file, line)) {
    if (line.rfind("## ", 0) == 0) {
      in_section = line == "## Exit codes";
      continue;
    }
    if (in_section && line.rfind('|', 0) == 0) {
      table += line + "\n";
    }
  }
  EXPECT_EQ(table, exit_code_markdown())
      << "README.md's \"Exit codes\" table must be exit_code_markdown() (src/util/error.cpp)";
}

TEST_F(KprofCli, EveryErrorCategoryHasItsRowInTheExitCodeTable) {
  for (int i = 0; i <= static_cast<int>(ErrorCategory::internal); ++i) {
    const auto category = static_cast<ErrorCategory>(i);
    const auto rows = exit_code_table();
    const bool found = std::any_of(rows.begin(), rows.end(), [&](const ExitCodeRow& row) {
      return row.name == to_string(category) && row.code == exit_code(category);
    });
    EXPECT_TRUE(found) << to_string(category);
  }
}

// ---- words the CLI does not know ----------------------------------------------------------------

TEST_F(KprofCli, UnknownCommandIsNamedWithTheValidCommands) {
  KprofRun run = run_kprof({"profiel", "k.py", "p.py"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown command 'profiel'"), std::string::npos) << run.err;
  for (const char* command :
       {"profile", "batch", "report", "harness", "metrics", "history", "diff", "doctor"}) {
    EXPECT_NE(run.err.find(command), std::string::npos) << command << ": " << run.err;
  }
}

TEST_F(KprofCli, NoCommandListsTheValidCommands) {
  KprofRun run = run_kprof({});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("kprof: error:"), std::string::npos) << run.err;
  EXPECT_NE(
      run.err.find("report, metrics, profile, batch, model, serve, harness, history, diff, doctor"),
      std::string::npos)
      << run.err;
}

TEST_F(KprofCli, UnknownOptionIsNamedWithTheValidOptions) {
  KprofRun run = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--selct", "last"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown option '--selct' for kprof report"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("--select"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--format"), std::string::npos) << run.err;
}

TEST_F(KprofCli, UnknownTopLevelOptionIsNamed) {
  KprofRun run = run_kprof({"--verbose", "report", fixture("curated_nvtx_twostage.csv")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("'--verbose'"), std::string::npos) << run.err;
}

TEST_F(KprofCli, RangeErrorsStateTheRangeInPlainNumbers) {
  KprofRun timeout = run_kprof({"profile", "k.py", "p.py", "--timeout", "0"});
  EXPECT_EQ(timeout.exit_code, 2);
  EXPECT_NE(timeout.err.find("--timeout must be a whole number from 1 to 604800, got '0'"),
            std::string::npos)
      << timeout.err;
  KprofRun round = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--round", "-3"});
  EXPECT_EQ(round.exit_code, 2);
  EXPECT_NE(round.err.find("--round must be a whole number from 0 to 999999, got '-3'"),
            std::string::npos)
      << round.err;
  KprofRun warmup = run_kprof({"harness", "k.py", "p.py", "--warmup", "-1"});
  EXPECT_EQ(warmup.exit_code, 2);
  EXPECT_NE(warmup.err.find("from 0 to 10000"), std::string::npos) << warmup.err;
  for (const KprofRun* run : {&timeout, &round, &warmup}) {
    EXPECT_LT(run->err.size(), 200U) << "no 309-digit bound: " << run->err;
  }
}

TEST_F(KprofCli, NegativeSeedIsRefusedNotWrapped) {
  for (const char* command : {"profile", "harness"}) {
    const auto script = dir() / "h.py";
    KprofRun run = run_kprof({command, "k.py", "p.py", "--seed", "-1",
                              command == std::string("harness") ? "-o" : "--out", script.string()});
    EXPECT_EQ(run.exit_code, 2) << command;
    EXPECT_NE(
        run.err.find("--seed must be a whole number from 0 to 18446744073709551615, got '-1'"),
        std::string::npos)
        << command << ": " << run.err;
    EXPECT_FALSE(std::filesystem::exists(script)) << command;
  }
}

TEST_F(KprofCli, UnknownWordOfAnOptionListsTheValidWords) {
  KprofRun run = run_kprof({"profile", "k.py", "p.py", "--cast", "fp8"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown --cast 'fp8' (valid: none, auto, bf16, fp16, fp32)"),
            std::string::npos)
      << run.err;
}

TEST_F(KprofCli, GpuBeyondTheVisibleGpusIsRefused) {
  KprofRun profile =
      run_kprof({"profile", "k.py", "p.py", "--gpu", "2"}, {{"CUDA_VISIBLE_DEVICES", "0,1"}});
  EXPECT_EQ(profile.exit_code, 2);
  EXPECT_NE(profile.err.find("--gpu 2: only 2 GPUs are visible (valid: 0 to 1)"), std::string::npos)
      << profile.err;
  KprofRun batch =
      run_kprof({"batch", "p.py", "k.py", "--gpus", "0,3"}, {{"CUDA_VISIBLE_DEVICES", "GPU-5f1c"}});
  EXPECT_EQ(batch.exit_code, 2);
  EXPECT_NE(batch.err.find("--gpus 3: only 1 GPU is visible"), std::string::npos) << batch.err;
}

TEST(VisibleGpus, CountsCudaVisibleDevicesFirstThenTheDriversGpuDirectory) {
  auto root = TempDir::create("kprof-gpus");
  ASSERT_TRUE(root.ok());
  const auto gpus = root->path() / "gpus";
  std::filesystem::create_directories(gpus / "0000:19:00.0");
  std::filesystem::create_directories(gpus / "0000:3b:00.0");
  std::filesystem::create_directories(gpus / "0000:4c:00.0");
  EXPECT_EQ(count_visible_gpus(std::nullopt, gpus), 3);
  EXPECT_EQ(count_visible_gpus(std::string("0,1"), gpus), 2);
  EXPECT_EQ(count_visible_gpus(std::string(""), gpus), 0);
  EXPECT_EQ(count_visible_gpus(std::string("1,-1,2"), gpus), 1); // CUDA stops at -1
  EXPECT_EQ(count_visible_gpus(std::nullopt, root->path() / "no-driver"), std::nullopt);
}

TEST(ProfileOptionsTable, TheCliAndPythonGetTheSameCheckUnderTheirOwnNames) {
  OptionContext cli;
  cli.cli_names = true;
  OptionContext python;
  python.spelled = {{"timeout", "ncu_timeout_seconds"}};
  const nlohmann::ordered_json values = {{"timeout", 0}};
  auto from_cli = parse_run_options(nlohmann::ordered_json{{"timeout", "0"}}, cli);
  auto from_python = parse_run_options(values, python);
  ASSERT_FALSE(from_cli.ok());
  ASSERT_FALSE(from_python.ok());
  EXPECT_EQ(from_cli.error().message, "--timeout must be a whole number from 1 to 604800, got '0'");
  EXPECT_EQ(from_python.error().message,
            "ncu_timeout_seconds must be a whole number from 1 to 604800, got '0'");
}

TEST(ProfileOptionsTable, ParsesEveryKindIntoProfileOptions) {
  OptionContext context;
  context.cli_names = true; // integers as digits, as the command line gives them
  context.visible_gpus = 4;
  auto parsed = parse_run_options(nlohmann::ordered_json{{"round", "7"},
                                                         {"timeout", 12},
                                                         {"seed", "42"},
                                                         {"select", "last"},
                                                         {"cast", "bf16"},
                                                         {"kernels", "scale"},
                                                         {"gpus", "1,3"},
                                                         {"record_history", false},
                                                         {"ncu", nullptr},
                                                         {"metrics", "lean"}},
                                  context);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->round, 7);
  EXPECT_EQ(parsed->options.timeout, std::chrono::seconds(12));
  EXPECT_EQ(parsed->options.seed, 42U);
  EXPECT_EQ(parsed->options.select.select, Select::last);
  EXPECT_EQ(parsed->options.cast, CastDtype::bf16);
  EXPECT_EQ(parsed->options.select.kernel_filters, std::vector<std::string>{"scale"});
  EXPECT_EQ(parsed->options.gpus, (std::vector<int>{1, 3}));
  EXPECT_FALSE(parsed->options.record_history);
  EXPECT_FALSE(parsed->options.ncu.has_value());
  EXPECT_EQ(parsed->options.metrics.words, "lean");
}

TEST(ProfileOptionsTable, CastAutoIsAWordOfTheCliAndPythonAndOthersAreRefusedListingIt) {
  OptionContext cli;
  cli.cli_names = true;
  OptionContext python;
  for (const OptionContext* context : {&cli, &python}) {
    auto parsed = parse_run_options(nlohmann::ordered_json{{"cast", "auto"}}, *context);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->options.cast, CastDtype::auto_detect);
  }
  EXPECT_EQ(parse_run_options(nlohmann::ordered_json::object(), cli)->options.cast,
            CastDtype::none);
  auto bad = parse_run_options(nlohmann::ordered_json{{"cast", "automatic"}}, cli);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "unknown --cast 'automatic' (valid: none, auto, bf16, fp16, fp32)");
}

TEST(ProfileOptionsTable, AWrongTypeOrAnUnknownNameIsRefusedByName) {
  const OptionContext context;
  auto typed = check_option_types(nlohmann::ordered_json{{"warmup", true}}, context);
  ASSERT_FALSE(typed.ok());
  EXPECT_EQ(typed.error().message, "warmup must be an integer, not a boolean");
  auto digits = check_option_types(nlohmann::ordered_json{{"timeout", "300"}}, context);
  ASSERT_FALSE(digits.ok()) << "only the command line gives integers as text";
  EXPECT_EQ(digits.error().message, "timeout must be an integer, not a string");
  auto unknown = check_option_types(nlohmann::ordered_json{{"warmpu", 3}}, context);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown option 'warmpu' (valid: round, out_dir"),
            std::string::npos)
      << unknown.error().message;
}

} // namespace
} // namespace kprof::e2e

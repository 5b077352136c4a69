// `kprof report FILE` on what a hostile user or a confused agent may pass as FILE: never a hang,
// always a message that says what the path is and the documented exit code; `-` reads standard
// input; bytes that are not UTF-8 in ncu's output never crash it. Also the projection of
// `--metrics` (issue 8, section 3) as the binary applies it.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "e2e/e2e_support.hpp"

namespace kprof::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int k_input_not_found = 3;
constexpr int k_malformed_input = 4;
constexpr int k_usage = 2;

class ReportInput : public E2eTest {};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `kprof report ARGS...` with `stdin_data` on its standard input.
KprofRun run_with_stdin(std::vector<std::string> args, std::string stdin_data) {
  ProcessSpec spec;
  spec.argv = {KPROF_BINARY};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env_set.emplace_back("NO_COLOR", "1");
  spec.stdin_data = std::move(stdin_data);
  spec.timeout = std::chrono::seconds(120);
  auto result = run_process(spec);
  EXPECT_TRUE(result.ok());
  if (!result.ok()) {
    return {};
  }
  EXPECT_FALSE(result->timed_out) << "kprof timed out: " << result->err;
  return {result->exit_code, result->out, result->err};
}

TEST_F(ReportInput, AFifoWithoutWriterIsRefusedAtOnceNotWaitedOn) {
  const fs::path fifo = dir() / "ncu.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  KprofRun run = run_kprof({"report", fifo.string()}, {}, std::chrono::seconds(30));
  EXPECT_EQ(run.exit_code, k_input_not_found) << run.err;
  EXPECT_NE(run.err.find("is a FIFO, not a file"), std::string::npos) << run.err;
}

TEST_F(ReportInput, ADirectoryIsCalledADirectory) {
  KprofRun run = run_kprof({"report", dir().string()});
  EXPECT_EQ(run.exit_code, k_input_not_found) << run.err;
  EXPECT_NE(run.err.find("is a directory, not a file"), std::string::npos) << run.err;
}

TEST_F(ReportInput, DevNullIsCalledACharacterDevice) {
  KprofRun run = run_kprof({"report", "/dev/null"});
  EXPECT_EQ(run.exit_code, k_input_not_found) << run.err;
  EXPECT_NE(run.err.find("/dev/null is a character device, not a file"), std::string::npos)
      << run.err;
}

TEST_F(ReportInput, ASymlinkLoopIsCalledASymlinkLoop) {
  fs::create_symlink("b.csv", dir() / "a.csv");
  fs::create_symlink("a.csv", dir() / "b.csv");
  KprofRun run = run_kprof({"report", (dir() / "a.csv").string()});
  EXPECT_EQ(run.exit_code, k_input_not_found) << run.err;
  EXPECT_NE(run.err.find("is a symlink loop"), std::string::npos) << run.err;
}

TEST_F(ReportInput, DashReadsTheCaptureFromStandardInput) {
  const std::string csv = slurp(fixture("curated_nvtx_twostage.csv"));
  KprofRun piped = run_with_stdin({"report", "-", "--format", "json"}, csv);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  KprofRun named = run_kprof({"report", fixture("curated_nvtx_twostage.csv"), "--format", "json"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  json from_stdin = json::parse(piped.out);
  json from_file = json::parse(named.out);
  EXPECT_EQ(from_stdin["metadata"]["source"], "<stdin>");
  EXPECT_EQ(from_stdin["kernels"], from_file["kernels"]);
  EXPECT_EQ(from_stdin["roofline"], from_file["roofline"]);
}

TEST_F(ReportInput, AReportOnStandardInputIsRefusedWithWhatToDoInstead) {
  KprofRun run = run_with_stdin({"report", "-"}, std::string("NVR\0\x02\0\0\0 rest", 13));
  EXPECT_EQ(run.exit_code, k_malformed_input) << run.err;
  EXPECT_NE(run.err.find("give its path instead"), std::string::npos) << run.err;
}

TEST_F(ReportInput, KernelAndRangeNamesThatAreNotUtf8DoNotCrashTheReport) {
  KprofRun run =
      run_kprof({"report", fixture("curated_nvtx_twostage_invalid_utf8.csv"), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json doc = json::parse(run.out); // valid JSON, so valid UTF-8
  ASSERT_EQ(doc["kernels"].size(), 2U);
  EXPECT_EQ(doc["kernels"][0]["name"], "partial_sum_kernel");
  EXPECT_EQ(doc["kernels"][1]["metrics"]["gpu__time_duration.sum"]["value"], 9856);
  for (const char* format : {"table", "prompt", "csv"}) {
    KprofRun text = run_kprof(
        {"report", fixture("curated_nvtx_twostage_invalid_utf8.csv"), "--format", format});
    EXPECT_EQ(text.exit_code, 0) << format << ": " << text.err;
  }
}

TEST_F(ReportInput, ReportKeepsTheSetsAndTheAnalysisColumnsAndAllKeepsEveryColumn) {
  KprofRun lean =
      run_kprof({"report", fixture("set_full_vadd.csv"), "--format", "json", "--metrics", "lean"});
  ASSERT_EQ(lean.exit_code, 0) << lean.err;
  json projected = json::parse(lean.out);
  const json& metrics = projected["kernels"][0]["metrics"];
  EXPECT_TRUE(metrics.contains("dram__bytes_read.sum"));          // in the lean set
  EXPECT_TRUE(metrics.contains("sm__cycles_active.avg"));         // read by --select max-cycles
  EXPECT_TRUE(metrics.contains("gpc__cycles_elapsed.max"));       // read by the analysis
  EXPECT_FALSE(metrics.contains("l1tex__t_sector_hit_rate.pct")); // in neither
  EXPECT_LT(metrics.size(), 40U);
  EXPECT_EQ(projected["metadata"]["gpu"], "NVIDIA H200"); // device__attribute_display_name

  KprofRun all =
      run_kprof({"report", fixture("set_full_vadd.csv"), "--format", "json", "--metrics", "all"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  json everything = json::parse(all.out);
  EXPECT_EQ(everything["kernels"][0]["metrics"].size(), 2240U - 13U);
  EXPECT_EQ(everything["metadata"]["metric_set"]["name"], "all");
  EXPECT_EQ(everything["roofline"], projected["roofline"]);
}

/// `name` (an example capture) with the first `from` replaced by `to`, written into `dir`.
fs::path edited_capture(const fs::path& dir, const std::string& name, const std::string& from,
                        const std::string& to) {
  std::string text = slurp(fs::path(KPROF_EXAMPLES_DIR) / "captures" / name);
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) {
    text.replace(at, from.size(), to);
  }
  const fs::path path = dir / ("edited-" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST_F(ReportInput, ANegativeDurationOrPercentageIsRefusedNamingTheLaunchAndColumnNotDiagnosed) {
  // vadd's launch took "180,864" ns at a compute SOL of "5.81" %.
  const fs::path duration = edited_capture(dir(), "h200_vadd.csv", "\"180,864\"", "\"-1\"");
  for (const char* format : {"prompt", "json", "table"}) {
    KprofRun run = run_kprof({"report", duration.string(), "--format", format});
    EXPECT_EQ(run.exit_code, k_malformed_input) << format << ": " << run.err;
    EXPECT_NE(run.err.find("launch ID 0 (add_kernel): 'gpu__time_duration.sum' is -1 ns: a "
                           "duration cannot be negative, so ncu did not measure it"),
              std::string::npos)
        << run.err;
    EXPECT_TRUE(run.out.empty()) << "no \"Launch-bound: -0.00 us\": " << run.out;
  }
  const fs::path percent = edited_capture(dir(), "h200_vadd.csv", "\"5.81\"", "\"-1\"");
  KprofRun run = run_kprof({"report", percent.string(), "--format", "prompt"});
  EXPECT_EQ(run.exit_code, k_malformed_input) << run.err;
  EXPECT_NE(run.err.find("'sm__throughput.avg.pct_of_peak_sustained_elapsed' is -1 %: a "
                         "percentage cannot be negative"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.out.find("compute -1.00%"), std::string::npos) << run.out;
}

TEST_F(ReportInput, ProfileWithMetricsAllIsAUsageErrorSayingWhy) {
  std::ofstream(dir() / "kernel.py") << "def kernel_function(x):\n    return x\n";
  std::ofstream(dir() / "problem.py") << "def get_inputs():\n    return []\n";
  KprofRun run = run_kprof({"profile", (dir() / "kernel.py").string(),
                            (dir() / "problem.py").string(), "--metrics", "all"});
  EXPECT_EQ(run.exit_code, k_usage) << run.err;
  EXPECT_NE(run.err.find("--metrics all keeps every column when reading a capture"),
            std::string::npos)
      << run.err;
}

} // namespace
} // namespace kprof::e2e

#include "kprof/harness.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kprof/files.hpp"
#include "kprof/gpu_lock.hpp"
#include "kprof/process.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

TempDir make_temp_dir() {
  auto dir = TempDir::create("kprof-harness-test");
  KPROF_ASSERT(dir.ok());
  return std::move(dir).value();
}

std::string read_text(const fs::path& path) {
  auto text = read_file(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? *text : std::string{};
}

HarnessPlan sample_plan() {
  HarnessPlan plan;
  plan.problem = "/work/it's a \"problem\"\ndir/problem.py";
  plan.candidates = {{"/k/ünïcödé ✓/kernel.py", candidate_range(0)},
                     {"/k/'); import os; os.system('touch PWNED'); #.py", candidate_range(1)}};
  plan.status_file = "/run/status.json";
  plan.warmup = 5;
  plan.inputs = InputsOn::cpu;
  plan.cast = CastDtype::bf16;
  plan.seed = 18446744073709551615ULL;
  plan.first_candidate = 1;
  return plan;
}

/// A status as templates/harness.py writes it: one candidate ok, one raised.
Json healthy_status() {
  return Json::parse(R"({
    "version": 1, "phase": "done", "problem_ok": true, "problem_error": null,
    "inputs_on": "gpu", "inputs_fallback": null,
    "candidates": [
      {"index": 0, "range": "kprof:cand0", "kernel": "/k/a/kernel.py", "phase": "done", "ok": true,
       "error": null, "cuda_context_poisoned": false, "import_seconds": 0.0625,
       "warmup_seconds": 1.5, "call_seconds": 0.25,
       "call_style": "positional", "layer": null, "cast": "bf16",
       "cast_reason": "kernel_function's source mentions 'bfloat16'", "call_lock": "held",
       "call_lock_wait_seconds": 0.125, "compiled_ahead": null},
      {"index": 1, "range": "kprof:cand1", "kernel": "/k/b/kernel.py", "phase": "warmup", "ok": false,
       "error": {"category": "kernel_raised", "type": "ValueError", "message": "bad shape",
                 "traceback": "Traceback (most recent call last):\n  ...\nValueError: bad shape"},
       "cuda_context_poisoned": false, "warmup_seconds": 0.0, "call_seconds": 0.0,
       "call_style": "layer_weights", "layer": "conv1",
       "compiled_ahead": "not compiled ahead: it takes a Model layer's weights",
       "compile_wait_seconds": 0.375, "compile_seconds": 0.03125}
    ],
    "setup_seconds": 4.5, "inputs_seconds": 0.75, "primer": "ran at start", "primer_seconds": 1.25,
    "triton_primer": "ran", "triton_primer_seconds": 0.5, "compile_target_seconds": 0.625,
    "triton_key_seconds": 0.375,
    "python_version": "3.12.3",
    "torch_version": "2.11.0+cu130", "triton_version": "3.6.0", "gpu_name": "NVIDIA H200"
  })");
}

Result<HarnessStatus> parse(const Json& json) {
  return parse_harness_status(json.dump());
}

TEST(InputsOn, ParsesEveryWordItPrints) {
  for (InputsOn where : {InputsOn::gpu, InputsOn::cpu}) {
    auto parsed = parse_inputs_on(to_string(where));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, where);
  }
}

TEST(InputsOn, RejectsUnknownWordsListingTheValidOnes) {
  auto parsed = parse_inputs_on("tpu");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().category, ErrorCategory::usage);
  EXPECT_NE(parsed.error().message.find("'tpu'"), std::string::npos);
  EXPECT_NE(parsed.error().message.find("gpu, cpu"), std::string::npos);
}

TEST(CastDtype, ParsesEveryWordItPrints) {
  for (CastDtype dtype : {CastDtype::none, CastDtype::auto_detect, CastDtype::bf16, CastDtype::fp16,
                          CastDtype::fp32}) {
    auto parsed = parse_cast_dtype(to_string(dtype));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, dtype);
  }
  EXPECT_EQ(to_string(CastDtype::bf16), "bf16");
  EXPECT_EQ(to_string(CastDtype::auto_detect), "auto");
}

TEST(CastDtype, RejectsUnknownWordsListingTheValidOnes) {
  auto parsed = parse_cast_dtype("BF16");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().category, ErrorCategory::usage);
  EXPECT_NE(parsed.error().message.find("none, auto, bf16, fp16, fp32"), std::string::npos);
}

TEST(HarnessPhase, ParsesEveryWordItPrints) {
  for (HarnessPhase phase :
       {HarnessPhase::not_started, HarnessPhase::import_kernel, HarnessPhase::warmup,
        HarnessPhase::profiled_call, HarnessPhase::done}) {
    auto parsed = parse_harness_phase(to_string(phase));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, phase);
  }
  EXPECT_EQ(parse_harness_phase("running").error().category, ErrorCategory::malformed_input);
}

TEST(CandidateRange, NamesEachCandidateKprofCandIndex) {
  EXPECT_EQ(candidate_range(0), "kprof:cand0");
  EXPECT_EQ(candidate_range(12), "kprof:cand12");
}

TEST(NvtxInclude, MatchesEveryCandidateRangeAndThePrimersAndNothingElse) {
  const std::string include = nvtx_include_for_ranges();
  ASSERT_EQ(include, "regex:kprof:(cand[0-9]+|primer)/");
  const std::regex pattern(include.substr(6, include.size() - 7));
  EXPECT_TRUE(std::regex_match(candidate_range(0), pattern));
  EXPECT_TRUE(std::regex_match(candidate_range(137), pattern));
  EXPECT_TRUE(std::regex_match(std::string(k_primer_range), pattern));
  EXPECT_FALSE(std::regex_match(std::string("kprof:primer2"), pattern));
  EXPECT_FALSE(std::regex_match(std::string("kprof"), pattern));
  EXPECT_FALSE(std::regex_match(std::string("kprof:cand"), pattern));
}

TEST(HarnessScript, EmbedsTheEntryFirstThenEveryModuleOfThePackageAsTheTemplatesHoldThem) {
  const fs::path templates(KPROF_TEMPLATES_DIR);
  std::set<std::string> on_disk;
  for (const auto& entry : fs::directory_iterator(templates / k_harness_package)) {
    if (entry.path().extension() == ".py") {
      on_disk.insert(fmt::format("{}/{}", k_harness_package, entry.path().filename().string()));
    }
  }
  const auto files = harness_files();
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files.front().path, "harness.py");
  std::set<std::string> embedded;
  for (const HarnessFile& file : files.subspan(1)) {
    embedded.insert(std::string(file.path));
  }
  EXPECT_EQ(embedded, on_disk) << "src/harness/CMakeLists.txt lists the modules it embeds";
  for (const HarnessFile& file : files) {
    EXPECT_EQ(file.text, read_text(templates / file.path)) << file.path;
  }
}

TEST(HarnessPlanJson, WritesEveryFieldInAStableOrder) {
  const auto json = nlohmann::ordered_json::parse(plan_to_json(sample_plan()));
  std::vector<std::string> keys;
  for (const auto& item : json.items()) {
    keys.push_back(item.key());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"version", "problem", "candidates", "status_file",
                                            "warmup", "inputs", "cast", "seed", "first_candidate",
                                            "early_primer"}));
  EXPECT_EQ(json["version"], 1);
  EXPECT_EQ(json["warmup"], 5);
  EXPECT_EQ(json["inputs"], "cpu");
  EXPECT_EQ(json["cast"], "bf16");
  EXPECT_EQ(json["seed"].get<std::uint64_t>(), 18446744073709551615ULL);
  EXPECT_EQ(json["first_candidate"], 1);
  EXPECT_EQ(json["early_primer"], false);
  EXPECT_EQ(json["candidates"][1]["range"], "kprof:cand1");
}

TEST(HarnessPlanJson, WritesTheProfiledCallLockOnlyWhenThePlanNamesOne) {
  HarnessPlan plan = sample_plan();
  EXPECT_FALSE(nlohmann::json::parse(plan_to_json(plan)).contains("profiled_call_lock"));
  plan.profiled_call_lock = "/tmp/kprof-locks/profiled-calls.lock";
  plan.profiled_call_lock_max_wait_seconds = 12.5;
  const auto json = nlohmann::ordered_json::parse(plan_to_json(plan));
  EXPECT_EQ(json.back(), (nlohmann::ordered_json{{"path", "/tmp/kprof-locks/profiled-calls.lock"},
                                                 {"max_wait_seconds", 12.5}}));
}

TEST(HarnessPlanJson, WritesCompileAheadOnlyWhenThePlanNamesItsDirectory) {
  HarnessPlan plan = sample_plan();
  EXPECT_FALSE(nlohmann::json::parse(plan_to_json(plan)).contains("compile_ahead"));
  plan.compile_ahead_dir = "/work/out/.kprof/round001/gpu0-0/compile-ahead";
  plan.compile_ahead_max_wait_seconds = 2.5;
  const auto json = nlohmann::ordered_json::parse(plan_to_json(plan));
  EXPECT_EQ(json.back(),
            (nlohmann::ordered_json{{"dir", "/work/out/.kprof/round001/gpu0-0/compile-ahead"},
                                    {"max_wait_seconds", 2.5}}));
  // A standby's message carries the same object.
  const auto message = nlohmann::ordered_json::parse(standby_message(plan));
  EXPECT_EQ(message["compile_ahead"], json.back());
}

TEST(HarnessPlanJson, WritesTheTruthOnlyWhenAskedWithTolerancesForEveryDtype) {
  HarnessPlan plan = sample_plan();
  EXPECT_FALSE(nlohmann::json::parse(plan_to_json(plan)).contains("truth"));
  plan.truth = TruthPlan{};
  plan.truth->budget_seconds = 0.25;
  plan.truth->max_repetitions = 7;
  const auto json = nlohmann::ordered_json::parse(plan_to_json(plan));
  EXPECT_EQ(json.back(), nlohmann::ordered_json::parse(R"({"check": true, "timing": true,
      "reference": true, "timing_settings": {"budget_seconds": 0.25, "max_repetitions": 7},
      "tolerances": {}, "flop_cache": null})"));
  plan.truth->check = false;
  plan.truth->atol = 1e-3;
  plan.truth->rtol = 0.5;
  plan.truth->flop_cache = "/out/.cache/flops";
  const auto changed = nlohmann::ordered_json::parse(plan_to_json(plan));
  EXPECT_EQ(changed["truth"]["check"], false);
  EXPECT_EQ(changed["truth"]["tolerances"],
            nlohmann::ordered_json::parse(R"({"all": {"atol": 0.001, "rtol": 0.5}})"));
  EXPECT_EQ(changed["truth"]["flop_cache"], "/out/.cache/flops");
}

TEST(CompileAheadMaxWait, IsAQuarterOfACandidatesTimeoutAndAtMostThirtySeconds) {
  EXPECT_EQ(compile_ahead_max_wait_seconds(std::chrono::seconds(10)), 2.5);
  EXPECT_EQ(compile_ahead_max_wait_seconds(std::chrono::seconds(60)), 15);
  EXPECT_EQ(compile_ahead_max_wait_seconds(std::chrono::seconds(300)), 30);
  EXPECT_EQ(compile_ahead_max_wait_seconds(std::chrono::seconds(1)), 0.25);
}

TEST(StandbyMessage, IsOneLineOfTheCandidatesAndTheCompileAheadDirectoryWhenNamed) {
  HarnessPlan plan = sample_plan();
  std::string line = standby_message(plan);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  auto json = nlohmann::ordered_json::parse(line);
  EXPECT_EQ(json["candidates"].size(), plan.candidates.size());
  EXPECT_EQ(json["candidates"][1]["range"], "kprof:cand1");
  EXPECT_EQ(json["first_candidate"], plan.first_candidate);
  EXPECT_FALSE(json.contains("compile_ahead"));

  plan.compile_ahead_dir = "/work/out/.kprof/round001/gpu0-part1/compile-ahead";
  json = nlohmann::ordered_json::parse(standby_message(plan));
  EXPECT_EQ(json["compile_ahead"]["dir"], "/work/out/.kprof/round001/gpu0-part1/compile-ahead");
}

TEST(HarnessPlanJson, CarriesPathsWithQuotesNewlinesAndNonAsciiAsEscapedData) {
  const HarnessPlan plan = sample_plan();
  const std::string text = plan_to_json(plan);
  const auto json = Json::parse(text);

  EXPECT_EQ(json["problem"].get<std::string>(), plan.problem.string());
  EXPECT_EQ(json["candidates"][0]["kernel"].get<std::string>(), plan.candidates[0].kernel.string());
  EXPECT_EQ(json["candidates"][1]["kernel"].get<std::string>(), plan.candidates[1].kernel.string());
  EXPECT_NE(text.find(R"(it's a \"problem\"\ndir)"), std::string::npos);
}

TEST(HarnessPlanJson, ReplacesBytesThatAreNotUtf8) {
  HarnessPlan plan = sample_plan();
  plan.problem = "/bad\xff/problem.py";
  const auto json = Json::parse(plan_to_json(plan));
  EXPECT_EQ(json["problem"].get<std::string>(), "/bad\xEF\xBF\xBD/problem.py");
}

TEST(WriteHarness, WritesTheScriptAndThePlan) {
  TempDir dir = make_temp_dir();
  const fs::path script = dir.path() / "round001" / "harness.py";
  const fs::path plan_path = dir.path() / "round001" / "plan.json";

  ASSERT_TRUE(write_harness(script, plan_path, sample_plan()).ok());

  for (const HarnessFile& file : harness_files()) {
    EXPECT_EQ(read_text(script.parent_path() / file.path), file.text) << file.path;
  }
  EXPECT_EQ(read_text(script), harness_files().front().text);
  EXPECT_EQ(read_text(plan_path), plan_to_json(sample_plan()));
}

TEST(WriteHarness, WritesAgainIntoTheSameDirectoryReplacingThePackage) {
  // `kprof harness -o FILE` run twice, or over an older kprof's harness.
  TempDir dir = make_temp_dir();
  ASSERT_TRUE(write_file_atomic(dir.path() / "kprof_harness" / "stale.py", "x").ok());
  ASSERT_TRUE(write_harness_script(dir.path() / "h.py").ok());
  ASSERT_TRUE(write_harness_script(dir.path() / "h.py").ok());

  EXPECT_FALSE(fs::exists(dir.path() / "kprof_harness" / "stale.py"));
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    names.insert(entry.path().filename().string());
  }
  EXPECT_EQ(names, (std::set<std::string>{"h.py", "kprof_harness"}));
}

TEST(WriteHarness, RefusesPathsThatAreNotUtf8AndWritesNothing) {
  TempDir dir = make_temp_dir();
  HarnessPlan plan = sample_plan();
  plan.candidates[0].kernel = "/bad\xff/kernel.py";

  auto written = write_harness(dir.path() / "harness.py", dir.path() / "plan.json", plan);

  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().category, ErrorCategory::usage);
  EXPECT_FALSE(fs::exists(dir.path() / "harness.py"));
  EXPECT_FALSE(fs::exists(dir.path() / "plan.json"));
  EXPECT_FALSE(fs::exists(dir.path() / "kprof_harness"));
}

TEST(WriteHarness, ReportsAnIoErrorWhenTheDirectoryCannotBeMade) {
  TempDir dir = make_temp_dir();
  ASSERT_TRUE(write_file_atomic(dir.path() / "file", "x").ok());

  auto written = write_harness(dir.path() / "file" / "harness.py",
                               dir.path() / "file" / "plan.json", sample_plan());

  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().category, ErrorCategory::io);
  EXPECT_NE(written.error().message.find("harness script"), std::string::npos);
}

TEST(ParseHarnessStatus, ReadsTheTruthOfACandidateAndKeepsItsObjects) {
  Json json = healthy_status();
  json["candidates"][0]["check"] = {{"verdict", "fail"},
                                    {"reason", "1 NaN where the reference has none"}};
  json["candidates"][0]["timing"] = {{"median_us", 41.25}, {"count", 100}};
  json["candidates"][0]["reference"] = {{"error", "problem.py has no Model"}};
  auto status = parse(json);
  ASSERT_TRUE(status.ok()) << status.error().message;
  const HarnessCandidateStatus& candidate = status->candidates[0];
  ASSERT_TRUE(candidate.check_verdict.has_value());
  EXPECT_EQ(*candidate.check_verdict, CheckVerdict::fail);
  EXPECT_EQ(candidate.check_reason, "1 NaN where the reference has none");
  EXPECT_EQ(candidate.timing["median_us"], 41.25);
  EXPECT_EQ(candidate.reference["error"], "problem.py has no Model");
  EXPECT_FALSE(status->candidates[1].check_verdict.has_value());
  EXPECT_TRUE(status->candidates[1].timing.is_null());
}

TEST(ParseHarnessStatus, RefusesACheckVerdictItDoesNotKnow) {
  Json json = healthy_status();
  json["candidates"][0]["check"] = {{"verdict", "maybe"}};
  auto status = parse(json);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(
      status.error().message.find("check.verdict is 'maybe' (expected pass, fail, unchecked)"),
      std::string::npos);
}

TEST(ParseHarnessStatus, ReadsEveryFieldOfAFinishedRun) {
  auto status = parse(healthy_status());
  ASSERT_TRUE(status.ok()) << status.error().message;

  EXPECT_EQ(status->phase, "done");
  EXPECT_TRUE(status->problem_ok);
  EXPECT_FALSE(status->problem_error.has_value());
  EXPECT_EQ(status->inputs_on, "gpu");
  EXPECT_EQ(status->inputs_fallback, "");
  EXPECT_DOUBLE_EQ(status->setup_seconds, 4.5);
  EXPECT_DOUBLE_EQ(status->inputs_seconds, 0.75);
  EXPECT_EQ(status->primer, "ran at start");
  EXPECT_DOUBLE_EQ(status->primer_seconds, 1.25);
  EXPECT_EQ(status->triton_primer, "ran");
  EXPECT_DOUBLE_EQ(status->triton_primer_seconds, 0.5);
  EXPECT_DOUBLE_EQ(status->compile_target_seconds, 0.625);
  EXPECT_DOUBLE_EQ(status->triton_key_seconds, 0.375);
  EXPECT_EQ(status->python_version, "3.12.3");
  EXPECT_EQ(status->torch_version, "2.11.0+cu130");
  EXPECT_EQ(status->triton_version, "3.6.0");
  EXPECT_EQ(status->gpu_name, "NVIDIA H200");
  ASSERT_EQ(status->candidates.size(), 2U);
  const HarnessCandidateStatus& first = status->candidates[0];
  EXPECT_EQ(first.index, 0);
  EXPECT_EQ(first.range, "kprof:cand0");
  EXPECT_EQ(first.kernel, fs::path("/k/a/kernel.py"));
  EXPECT_EQ(first.phase, HarnessPhase::done);
  EXPECT_TRUE(first.ok);
  EXPECT_FALSE(first.error.has_value());
  EXPECT_DOUBLE_EQ(first.import_seconds, 0.0625);
  EXPECT_DOUBLE_EQ(status->candidates[1].import_seconds, 0); // a status without the field
  EXPECT_DOUBLE_EQ(first.warmup_seconds, 1.5);
  EXPECT_DOUBLE_EQ(first.call_seconds, 0.25);
  EXPECT_EQ(first.call_style, "positional");
  EXPECT_EQ(first.layer, "");
  EXPECT_EQ(first.cast_applied, CastDtype::bf16);
  EXPECT_EQ(first.cast_reason, "kernel_function's source mentions 'bfloat16'");
  EXPECT_EQ(first.call_lock, "held");
  EXPECT_DOUBLE_EQ(first.call_lock_wait_seconds, 0.125);
  EXPECT_EQ(status->candidates[1].call_lock, ""); // a status without the lock fields
  EXPECT_DOUBLE_EQ(status->candidates[1].call_lock_wait_seconds, 0);
  EXPECT_EQ(status->candidates[1].call_style, "layer_weights");
  EXPECT_EQ(status->candidates[1].layer, "conv1");
  EXPECT_FALSE(status->candidates[1].cast_applied.has_value());
  EXPECT_EQ(status->candidates[1].cast_reason, "");
  EXPECT_EQ(first.compiled_ahead, ""); // null: the first candidate is never compiled ahead
  EXPECT_EQ(status->candidates[1].compiled_ahead,
            "not compiled ahead: it takes a Model layer's weights");
  EXPECT_DOUBLE_EQ(status->candidates[1].compile_wait_seconds, 0.375);
  EXPECT_DOUBLE_EQ(status->candidates[1].compile_seconds, 0.03125);
  EXPECT_DOUBLE_EQ(first.compile_wait_seconds, 0); // a status without the fields
  EXPECT_DOUBLE_EQ(first.compile_seconds, 0);
}

TEST(ParseHarnessStatus, ReadsAnUncastCandidateAsCastNone) {
  Json json = healthy_status();
  json["candidates"][0]["cast"] = "none";
  json["candidates"][0]["cast_reason"] =
      "could not read kernel_function's source (OSError): inputs as the problem made them";

  auto status = parse(json);

  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->candidates[0].cast_applied, CastDtype::none);
  EXPECT_EQ(status->candidates[0].cast_reason,
            "could not read kernel_function's source (OSError): inputs as the problem made them");
}

TEST(ParseHarnessStatus, RejectsACastThatIsNotAnAppliedDtype) {
  for (const char* word : {"auto", "int8", "BF16"}) {
    Json json = healthy_status();
    json["candidates"][0]["cast"] = word;

    auto status = parse(json);

    ASSERT_FALSE(status.ok()) << word;
    EXPECT_EQ(status.error().category, ErrorCategory::malformed_input);
    EXPECT_NE(status.error().message.find("status.candidates[0].cast"), std::string::npos)
        << status.error().message;
    EXPECT_NE(status.error().message.find("'" + std::string(word) + "'"), std::string::npos);
  }
}

TEST(ParseHarnessStatus, MapsKernelRaisedToItsCategoryWithTheTracebackAsDetail) {
  auto status = parse(healthy_status());
  ASSERT_TRUE(status.ok());

  const HarnessCandidateStatus& failed = status->candidates[1];
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.phase, HarnessPhase::warmup);
  ASSERT_TRUE(failed.error.has_value());
  EXPECT_EQ(failed.error->category, ErrorCategory::kernel_raised);
  EXPECT_EQ(failed.error->message, "ValueError: bad shape");
  EXPECT_EQ(failed.error->detail,
            "Traceback (most recent call last):\n  ...\nValueError: bad shape");
}

TEST(ParseHarnessStatus, MapsKernelImportToItsCategory) {
  Json json = healthy_status();
  json["candidates"][1]["phase"] = "import_kernel";
  json["candidates"][1]["error"] = {{"category", "kernel_import"},
                                    {"type", "SyntaxError"},
                                    {"message", "invalid syntax (kernel.py, line 1)"},
                                    {"traceback", ""}};

  auto status = parse(json);

  ASSERT_TRUE(status.ok());
  ASSERT_TRUE(status->candidates[1].error.has_value());
  EXPECT_EQ(status->candidates[1].error->category, ErrorCategory::kernel_import);
  EXPECT_EQ(status->candidates[1].error->message,
            "SyntaxError: invalid syntax (kernel.py, line 1)");
}

TEST(ParseHarnessStatus, MapsAProblemErrorToProblemInvalid) {
  Json json = healthy_status();
  json["phase"] = "import_problem";
  json["problem_ok"] = false;
  json["problem_error"] = {{"type", "AttributeError"},
                           {"message", "problem.py defines no get_inputs()"},
                           {"traceback", "Traceback ..."}};

  auto status = parse(json);

  ASSERT_TRUE(status.ok());
  EXPECT_FALSE(status->problem_ok);
  ASSERT_TRUE(status->problem_error.has_value());
  EXPECT_EQ(status->problem_error->category, ErrorCategory::problem_invalid);
  EXPECT_EQ(status->problem_error->message, "AttributeError: problem.py defines no get_inputs()");
  EXPECT_EQ(status->problem_error->detail, "Traceback ...");
}

TEST(ParseHarnessStatus, ReadsTheGpusCudaShowedAndTheMachinesCount) {
  Json json = healthy_status();
  EXPECT_EQ(parse(json)->cuda_devices, std::nullopt) << "a status before torch's import";
  json["cuda_devices"] = 0;
  json["machine_gpus"] = 2;
  auto none = parse(json);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(none->cuda_devices, 0);
  EXPECT_EQ(none->machine_gpus, 2);
  json["machine_gpus"] = nullptr; // neither NVML nor /proc could tell
  EXPECT_EQ(parse(json)->machine_gpus, std::nullopt);
  json["cuda_devices"] = -1;
  auto bad = parse(json);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("status.cuda_devices must be a non-negative integer or null"),
            std::string::npos)
      << bad.error().message;
}

TEST(ParseHarnessStatus, ReportsAPoisonedCudaContext) {
  Json json = healthy_status();
  json["candidates"][1]["cuda_context_poisoned"] = true;

  auto status = parse(json);

  ASSERT_TRUE(status.ok());
  EXPECT_TRUE(status->candidates[1].cuda_context_poisoned);
  EXPECT_FALSE(status->candidates[0].cuda_context_poisoned);
}

TEST(ParseHarnessStatus, UsesTheTypeAloneWhenPythonGaveNoMessage) {
  Json json = healthy_status();
  json["candidates"][1]["error"]["message"] = "";

  auto status = parse(json);

  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->candidates[1].error->message, "ValueError");
}

TEST(ParseHarnessStatus, ReadsTheFallbackAndAnAbsentTriton) {
  Json json = healthy_status();
  json["inputs_on"] = "cpu";
  json["inputs_fallback"] = "RuntimeError: no device context";
  json["triton_version"] = nullptr;

  auto status = parse(json);

  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->inputs_on, "cpu");
  EXPECT_EQ(status->inputs_fallback, "RuntimeError: no device context");
  EXPECT_EQ(status->triton_version, "");
}

TEST(ParseHarnessStatus, IgnoresFieldsItDoesNotKnow) {
  Json json = healthy_status();
  json["something_new"] = {1, 2, 3};
  json["candidates"][0]["also_new"] = "x";

  EXPECT_TRUE(parse(json).ok());
}

TEST(ParseHarnessStatus, RejectsTextThatIsNotJson) {
  for (const char* text : {"", "{\"version\": 1,", "not json", "[1, 2]"}) {
    auto status = parse_harness_status(text);
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_EQ(status.error().category, ErrorCategory::malformed_input) << text;
  }
}

TEST(ParseHarnessStatus, RejectsAnotherVersion) {
  Json json = healthy_status();
  json["version"] = 2;

  auto status = parse(json);

  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(status.error().message.find("version 2"), std::string::npos);
}

TEST(ParseHarnessStatus, NamesTheFieldThatHasTheWrongType) {
  struct Case {
    Json::json_pointer pointer;
    Json value;
    std::string field;
  };
  const std::vector<Case> cases = {
      {Json::json_pointer("/problem_ok"), "yes", "status.problem_ok"},
      {Json::json_pointer("/candidates"), Json::object(), "status.candidates"},
      {Json::json_pointer("/setup_seconds"), "4.5", "status.setup_seconds"},
      {Json::json_pointer("/candidates/0/ok"), 1, "status.candidates[0].ok"},
      {Json::json_pointer("/candidates/1/index"), -1, "status.candidates[1].index"},
      {Json::json_pointer("/candidates/1/range"), nullptr, "status.candidates[1].range"},
      {Json::json_pointer("/candidates/1/error/type"), 7, "status.candidates[1].error.type"},
      {Json::json_pointer("/problem_error"), "oops", "status.problem_error"},
      {Json::json_pointer("/candidates/0/cast"), 16, "status.candidates[0].cast"},
      {Json::json_pointer("/candidates/0/cast_reason"), Json::array(),
       "status.candidates[0].cast_reason"},
  };
  for (const Case& c : cases) {
    Json json = healthy_status();
    json[c.pointer] = c.value;

    auto status = parse(json);

    ASSERT_FALSE(status.ok()) << c.field;
    EXPECT_EQ(status.error().category, ErrorCategory::malformed_input) << c.field;
    EXPECT_NE(status.error().message.find(c.field), std::string::npos) << status.error().message;
  }
}

TEST(ParseHarnessStatus, RejectsMissingRequiredFields) {
  for (const char* key : {"version", "phase", "problem_ok", "candidates"}) {
    Json json = healthy_status();
    json.erase(key);
    auto status = parse(json);
    ASSERT_FALSE(status.ok()) << key;
    EXPECT_EQ(status.error().category, ErrorCategory::malformed_input) << key;
  }
}

TEST(ParseHarnessStatus, RejectsUnknownPhasesAndErrorCategories) {
  Json bad_phase = healthy_status();
  bad_phase["phase"] = "finished";
  Json bad_candidate_phase = healthy_status();
  bad_candidate_phase["candidates"][0]["phase"] = "running";
  Json bad_category = healthy_status();
  bad_category["candidates"][1]["error"]["category"] = "timeout";

  for (const Json& json : {bad_phase, bad_candidate_phase, bad_category}) {
    auto status = parse(json);
    ASSERT_FALSE(status.ok()) << json.dump();
    EXPECT_EQ(status.error().category, ErrorCategory::malformed_input);
  }
  EXPECT_NE(parse(bad_category).error().message.find("'timeout'"), std::string::npos);
}

TEST(ReadHarnessStatus, ReportsInputNotFoundWhenTheHarnessWroteNothing) {
  TempDir dir = make_temp_dir();

  auto status = read_harness_status(dir.path() / "status.json");

  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(status.error().message.find("status.json"), std::string::npos);
}

TEST(ReadHarnessStatus, NamesTheFileWhenItIsMalformed) {
  TempDir dir = make_temp_dir();
  const fs::path path = dir.path() / "status.json";
  ASSERT_TRUE(write_file_atomic(path, "{\"version\": 1").ok());

  auto status = read_harness_status(path);

  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(status.error().message.find(path.string()), std::string::npos);
}

// The C++ and Python halves agree: the written harness runs under the fake torch and the status
// it writes parses into what happened.
TEST(WrittenHarness, RunsUnderTheFakeTorchAndItsStatusParses) {
  const auto python = find_executable("python3");
  if (!python) {
    GTEST_SKIP() << "python3 is not on PATH";
  }
  TempDir dir = make_temp_dir();
  const fs::path cases = KPROF_PYTHON_CASES_DIR;
  HarnessPlan plan;
  plan.problem = cases / "vector" / "problem.py";
  plan.candidates = {{cases / "positional" / "kernel.py", candidate_range(0)},
                     {cases / "syntax_error" / "kernel.py", candidate_range(1)},
                     {cases / "raises" / "kernel.py", candidate_range(2)},
                     {cases / "poisoned" / "kernel.py", candidate_range(3)},
                     {cases / "positional" / "kernel.py", candidate_range(4)}};
  plan.status_file = dir.path() / "status.json";
  plan.inputs = InputsOn::cpu;
  plan.profiled_call_lock = dir.path() / std::string(k_profiled_call_lock_file);
  // kprof makes the lock file before a harness starts; the harness only opens it.
  ASSERT_TRUE(GpuLock::prepare_dir(dir.path()).ok());
  ASSERT_TRUE(write_harness(dir.path() / "harness.py", dir.path() / "plan.json", plan).ok());

  ProcessSpec spec;
  spec.argv = {python->string(), (dir.path() / "harness.py").string(),
               (dir.path() / "plan.json").string()};
  spec.env_set = {{"PYTHONPATH", std::string(KPROF_STANDINS_DIR) + "/fake_torch"}};
  spec.env_unset = {"KPROF_FAKE_TORCH_LOG"};
  spec.timeout = std::chrono::seconds(60);
  auto run = run_process(spec);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->exit_code, k_harness_exit_cuda_poisoned) << run->err;

  auto status = read_harness_status(plan.status_file);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->phase, "candidates");
  EXPECT_TRUE(status->problem_ok);
  EXPECT_EQ(status->gpu_name, "Fake GPU");
  ASSERT_EQ(status->candidates.size(), 5U);
  EXPECT_TRUE(status->candidates[0].ok);
  EXPECT_EQ(status->candidates[0].call_lock, "held");
  EXPECT_EQ(status->candidates[0].cast_applied, CastDtype::none);
  EXPECT_EQ(status->candidates[0].cast_reason,
            "asked for cast none: inputs as the problem made them");
  EXPECT_EQ(status->candidates[1].error->category, ErrorCategory::kernel_import);
  EXPECT_EQ(status->candidates[2].error->category, ErrorCategory::kernel_raised);
  EXPECT_EQ(status->candidates[2].error->message, "ValueError: the kernel rejects these inputs");
  EXPECT_TRUE(status->candidates[3].cuda_context_poisoned);
  EXPECT_EQ(status->candidates[4].phase, HarnessPhase::not_started);
}

/// Environment variables set (or unset) for one test, restored after it.
class ScopedEnv {
public:
  ScopedEnv(std::initializer_list<std::pair<const char*, std::optional<std::string>>> values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name);
      m_saved.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      if (value) {
        ::setenv(name, value->c_str(), 1);
      } else {
        ::unsetenv(name);
      }
    }
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : m_saved) {
      if (value) {
        ::setenv(name, value->c_str(), 1);
      } else {
        ::unsetenv(name);
      }
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  std::vector<std::pair<const char*, std::optional<std::string>>> m_saved;
};

mode_t mode_of(const fs::path& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

TEST(KprofTritonCacheDir, IsMadeUnderTheUsersCacheHome0700) {
  auto home = TempDir::create("kprof-triton-home");
  ASSERT_TRUE(home.ok());
  const ScopedEnv env{{"XDG_CACHE_HOME", std::nullopt},
                      {"HOME", home->path().string()},
                      {"TRITON_CACHE_DIR", std::nullopt}};
  const fs::path expected = home->path() / ".cache" / "kprof" / "triton";
  EXPECT_EQ(kprof_triton_cache_dir(false), std::nullopt); // reading makes nothing
  EXPECT_FALSE(fs::exists(expected));
  EXPECT_EQ(kprof_triton_cache_dir(true), expected);
  EXPECT_EQ(mode_of(expected), 0700U);
  EXPECT_EQ(triton_cache_dir(), expected);
  const ScopedEnv xdg{{"XDG_CACHE_HOME", (home->path() / "xdg").string()}};
  EXPECT_EQ(kprof_triton_cache_dir(true), home->path() / "xdg" / "kprof" / "triton");
}

TEST(KprofTritonCacheDir, WithoutAHomeIsAPrivateDirectoryOfThisUserInTheTempDirectory) {
  auto tmp = TempDir::create("kprof-triton-tmp");
  ASSERT_TRUE(tmp.ok());
  const ScopedEnv env{
      {"XDG_CACHE_HOME", std::nullopt}, {"HOME", std::nullopt}, {"TMPDIR", tmp->path().string()}};
  const fs::path expected = tmp->path() / ("kprof-triton-" + std::to_string(::geteuid()));
  EXPECT_EQ(kprof_triton_cache_dir(true), expected);
  EXPECT_EQ(mode_of(expected), 0700U);
}

TEST(KprofTritonCacheDir, IsNotGivenWhenAnotherUserCouldWriteWhatTritonLoadsFromIt) {
  // Triton loads kernels and its launcher's shared library from its cache: a cache another user
  // made (or could replace) would run their code as this user. kprof then sets no
  // TRITON_CACHE_DIR and Triton keeps its own default.
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give the directory to uid 65534";
  }
  auto home = TempDir::create("kprof-triton-home");
  ASSERT_TRUE(home.ok());
  const ScopedEnv env{{"XDG_CACHE_HOME", std::nullopt},
                      {"HOME", home->path().string()},
                      {"TRITON_HOME", std::nullopt},
                      {"TRITON_CACHE_DIR", std::nullopt}};
  const fs::path planted = home->path() / ".cache" / "kprof";
  ASSERT_TRUE(kprof::create_directories(planted / "triton").ok());
  ASSERT_EQ(::chown(planted.c_str(), 65534, 65534), 0);
  EXPECT_EQ(kprof_triton_cache_dir(true), std::nullopt);
  EXPECT_EQ(triton_cache_dir(), home->path() / ".triton" / "cache");
  const ScopedEnv own{{"TRITON_CACHE_DIR", "/somewhere/of/mine"}};
  EXPECT_EQ(triton_cache_dir(), fs::path("/somewhere/of/mine")); // the user's own wins
}

} // namespace
} // namespace kprof

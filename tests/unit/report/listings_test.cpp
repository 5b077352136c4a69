// The CLI's small artefacts as documents rendered by the sinks: metric sets, the round (a batch's
// ranking), the doctor checks, and the document kinds. The table goldens were printed by the CLI
// before the artefacts went through the sinks (kprof metrics, kprof batch on the stand-in ncu,
// kprof doctor), so the text the CLI prints is unchanged.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/report.hpp"
#include "kprof/round.hpp"
#include "report_test_support.hpp"

namespace kprof {
namespace {

Json tiny_report(double total_ns, const std::string& dominant) {
  return Json{{"schema_version", 1},
              {"metadata", Json::object()},
              {"kernels", Json::array()},
              {"summary", Json{{"total_duration_ns", total_ns},
                               {"launches", 1},
                               {"dominant_kernel", dominant},
                               {"kernels", Json::array()}}},
              {"roofline", Json::object()},
              {"metrics", Json::object()}};
}

/// The batch of tests/e2e's BatchKeepsGoodCandidatesWhenOthersFailOrPoisonTheContext, as
/// `kprof batch --round 4` printed it on the stand-in ncu.
RoundResult sample_round() {
  RoundResult round;
  round.round = 4;
  round.dir = "/out/round004";
  round.batch = true;
  round.wall_seconds = 9.5;
  round.metadata = Json{{"round", 4}, {"ncu_version", "2025.3.1.0"}};
  round.candidates.resize(4);
  std::vector<CandidateResult>& candidates = round.candidates;
  const std::string cases = "/work/tests/python/cases/";
  candidates[0].index = 0;
  candidates[0].kernel = cases + "positional/kernel.py";
  candidates[0].status = CandidateStatus::ok;
  candidates[0].report = tiny_report(181088, "add_kernel");
  candidates[1].index = 1;
  candidates[1].kernel = cases + "raises/kernel.py";
  candidates[1].error =
      make_error(ErrorCategory::kernel_raised, "ValueError: the kernel rejects these inputs",
                 "Traceback (most recent call last):\n  ...");
  candidates[2].index = 2;
  candidates[2].kernel = cases + "poisoned/kernel.py";
  candidates[2].error = make_error(
      ErrorCategory::kernel_raised,
      "RuntimeError: CUDA error: an illegal memory access was encountered (the CUDA context was "
      "poisoned; the remaining candidates continue in a fresh process)");
  candidates[3].index = 3;
  candidates[3].kernel = cases + "positional/kernel.py";
  candidates[3].status = CandidateStatus::ok;
  candidates[3].report = tiny_report(206272, "matmul_kernel");
  for (auto& candidate : candidates) {
    candidate.dir = "/out/round004/cand" + std::to_string(candidate.index);
    candidate.attempts = 1;
  }
  return round;
}

Json sample_round_document() {
  return round_document(sample_round(), ReportDetail::full);
}

std::vector<DoctorLine> failed_doctor() {
  return {{"ncu", false,
           "ncu (Nsight Compute) was not found; looked in: --ncu (not given), $KPROF_NCU (unset)",
           make_error(ErrorCategory::ncu_not_found, "ncu (Nsight Compute) was not found")},
          {"gpu", false, "nvidia-smi not found: no NVIDIA driver on this machine", std::nullopt},
          {"python", true, "/usr/bin/python3 3.11.2", std::nullopt},
          {"torch", false, "`import torch` failed",
           make_error(ErrorCategory::kernel_import, "`import torch` failed",
                      "Traceback (most recent call last):\n  File \"<string>\", line 1, in "
                      "<module>\nModuleNotFoundError: No module named 'torch'\n")},
          {"triton", false, "`import triton` failed", std::nullopt}};
}

TEST(DocumentKind, IsReportWithoutAKindMember) {
  auto kind = document_kind(Json{{"schema_version", 1}});
  ASSERT_TRUE(kind.ok());
  EXPECT_EQ(*kind, DocumentKind::report);
}

TEST(DocumentKind, RoundTripsEveryKindThroughItsWord) {
  for (const DocumentKind kind :
       {DocumentKind::report, DocumentKind::history, DocumentKind::diff, DocumentKind::convergence,
        DocumentKind::metric_set, DocumentKind::round, DocumentKind::doctor}) {
    auto parsed = document_kind(Json{{"kind", std::string(to_string(kind))}});
    ASSERT_TRUE(parsed.ok()) << to_string(kind);
    EXPECT_EQ(*parsed, kind);
  }
}

TEST(DocumentKind, NamesAnUnknownKindAndTheKnownOnes) {
  auto kind = document_kind(Json{{"kind", "flamegraph"}});
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(kind.error().message.find("'flamegraph'"), std::string::npos);
  EXPECT_NE(kind.error().message.find("metric_set"), std::string::npos);
}

TEST(Sinks, RenderADocumentOfAnUnknownKindAsJsonText) {
  const Json doc{{"schema_version", 9}, {"kind", "flamegraph"}, {"x", 1}};
  for (const Format format : {Format::csv, Format::prompt, Format::table}) {
    EXPECT_EQ(Json::parse(render(format, doc)), doc) << to_string(format);
  }
}

TEST(MetricSetDocument, TableIsWhatKprofMetricsPrinted) {
  auto set = find_metric_set("default");
  ASSERT_TRUE(set.ok());
  test::expect_golden(render(Format::table, metric_set_document(*set, true)),
                      "metric_set_default.table.txt");
  auto deep = find_metric_set("deep");
  ASSERT_TRUE(deep.ok());
  test::expect_golden(render(Format::table, metric_set_document(*deep)),
                      "metric_set_deep.table.txt");
  EXPECT_EQ(render(Format::prompt, metric_set_document(*deep)),
            render(Format::table, metric_set_document(*deep)));
}

TEST(MetricSetDocument, JsonParsesBackWithEveryMetric) {
  auto set = find_metric_set("lean");
  ASSERT_TRUE(set.ok());
  const Json doc = Json::parse(render(Format::json, metric_set_document(*set)));
  EXPECT_EQ(doc["schema_version"], k_document_schema_version);
  EXPECT_EQ(doc["kind"], "metric_set");
  EXPECT_EQ(doc["name"], "lean");
  ASSERT_EQ(doc["metrics"].size(), set->metrics.size());
  EXPECT_EQ(doc["metrics"][0]["name"], set->metrics[0].name);
  EXPECT_EQ(doc["metrics"][0]["label"], set->metrics[0].label);
  EXPECT_EQ(doc["metrics"][0]["group"], set->metrics[0].group);
  EXPECT_FALSE(doc.contains("other_sets"));
}

TEST(MetricSetDocument, CsvHasOneQuotedWhereNeededLinePerMetric) {
  MetricSet set{"custom", "ad hoc", {{"a__x.sum", "A, with comma", "Custom"}}, {}};
  EXPECT_EQ(render(Format::csv, metric_set_document(set)),
            "name,label,group\na__x.sum,\"A, with comma\",Custom\n");
}

TEST(RoundDocument, TableIsWhatKprofBatchPrinted) {
  test::expect_golden(render(Format::table, sample_round_document()), "batch.table.txt");
}

TEST(RoundDocument, KeepsTheCandidatesOrderAndRanksThemByTotalDurationWithFailuresUnranked) {
  const Json doc = Json::parse(render(Format::json, sample_round_document()));
  EXPECT_EQ(doc["kind"], "round");
  EXPECT_EQ(doc["schema_version"], k_document_schema_version);
  EXPECT_EQ(doc["round"], 4);
  EXPECT_EQ(doc["batch"], true);
  EXPECT_EQ(doc["metadata"]["ncu_version"], "2025.3.1.0");
  ASSERT_EQ(doc["candidates"].size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(doc["candidates"][i]["candidate"], i);
  }
  EXPECT_EQ(doc["candidates"][0]["rank"], 1);
  EXPECT_EQ(doc["candidates"][3]["rank"], 2);
  EXPECT_TRUE(doc["candidates"][1]["rank"].is_null());
  EXPECT_EQ(doc["candidates"][2]["status"], "failed");
  EXPECT_EQ(doc["candidates"][2]["error"]["category"], "kernel_raised");
  EXPECT_EQ(doc["candidates"][2]["error"]["exit_code"], 10);
  EXPECT_EQ(doc["candidates"][2]["document"], "/out/round004/cand2/error.json");
  EXPECT_EQ(doc["candidates"][0]["document"], "/out/round004/cand0/report.json");
  EXPECT_EQ(doc["candidates"][0]["report"]["summary"]["dominant_kernel"], "add_kernel");
  EXPECT_EQ(doc["candidates"][0]["summary"]["dominant_kernel"], "add_kernel");
  EXPECT_EQ(doc["candidates"][0]["summary"]["total_duration_ns"], 181088);
}

TEST(RoundDocument, WithSummariesOnlyLeavesEveryReportOutAndKeepsTheirSummaries) {
  const Json doc = round_document(sample_round(), ReportDetail::summary);
  for (const Json& candidate : doc["candidates"]) {
    EXPECT_TRUE(candidate["report"].is_null());
  }
  EXPECT_EQ(doc["candidates"][3]["summary"]["dominant_kernel"], "matmul_kernel");
  EXPECT_EQ(render(Format::table, doc), render(Format::table, sample_round_document()));
}

TEST(RoundDocument, ReadsBackAsTheRoundItWasWrittenFrom) {
  const RoundResult round = sample_round();
  auto read =
      round_result_from_json(Json::parse(json_text(round_document(round, ReportDetail::full))));
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->round, 4);
  EXPECT_TRUE(read->batch);
  ASSERT_EQ(read->candidates.size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(read->candidates[i].index, round.candidates[i].index);
    EXPECT_EQ(read->candidates[i].kernel, round.candidates[i].kernel);
    EXPECT_EQ(read->candidates[i].status, round.candidates[i].status);
    EXPECT_EQ(read->candidates[i].dir, round.candidates[i].dir);
    EXPECT_EQ(read->candidates[i].report.has_value(), round.candidates[i].report.has_value());
    EXPECT_EQ(read->candidates[i].error.has_value(), round.candidates[i].error.has_value());
  }
  EXPECT_EQ(read->candidates[1].error->message, "ValueError: the kernel rejects these inputs");
  EXPECT_EQ(round_document(*read, ReportDetail::full), round_document(round, ReportDetail::full));
}

TEST(RoundDocument, SaysWhatAnExtractionWroteOrWhyItFailedAndReadsItBack) {
  RoundResult round = sample_round();
  EXPECT_FALSE(round_document(round, ReportDetail::full).contains("extracted"));
  const Json written = {{"kernels", Json::array({{{"name", "gemv_kernel"}, {"extracted", true}}})}};
  round.extracted = Result<Json>(written);
  Json doc = round_document(round, ReportDetail::full);
  EXPECT_EQ(doc["extracted"], written);
  EXPECT_FALSE(doc.contains("extract_error"));
  auto read = round_result_from_json(doc);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_TRUE(read->extracted.has_value() && read->extracted->ok());
  EXPECT_EQ(**read->extracted, written);

  round.extracted = Result<Json>(make_error(ErrorCategory::io, "--extract's directory: open"));
  doc = round_document(round, ReportDetail::full);
  EXPECT_FALSE(doc.contains("extracted"));
  EXPECT_EQ(doc["extract_error"]["category"], "io");
  read = round_result_from_json(doc);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_TRUE(read->extracted.has_value() && !read->extracted->ok());
  EXPECT_EQ(read->extracted->error().message, "--extract's directory: open");
}

TEST(RoundDocument, AnEntryWithoutItsCandidateIndexIsNotARound) {
  Json doc = round_document(sample_round(), ReportDetail::full);
  doc["candidates"][1].erase("candidate");
  auto read = round_result_from_json(doc);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(read.error().message.find("candidates[].candidate"), std::string::npos);
}

TEST(RoundDocument, CsvHasOneLinePerCandidateInRankOrder) {
  const std::string csv = render(Format::csv, sample_round_document());
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "rank,candidate,status,total_duration_ns,dominant_kernel,kernel_file,error_category,"
            "error_message,measured_median_us,check");
  EXPECT_NE(
      csv.find("\n1,0,ok,181088,add_kernel,/work/tests/python/cases/positional/kernel.py,,,,\n"),
      std::string::npos)
      << csv;
  EXPECT_LT(csv.find("\n1,0,ok"), csv.find("\n2,3,ok")) << csv;
  EXPECT_NE(csv.find("\n,1,failed,,,/work/tests/python/cases/raises/kernel.py,kernel_raised,"
                     "ValueError: the kernel rejects these inputs,,\n"),
            std::string::npos)
      << csv;
}

/// tiny_report with the harness's measured median and check verdict in its "truth".
Json timed_report(double total_ns, double median_us, const std::string& verdict) {
  Json report = tiny_report(total_ns, "k");
  report["truth"] = Json{{"timing", Json{{"median_us", median_us}}},
                         {"check", Json{{"verdict", verdict}}},
                         {"reference", nullptr},
                         {"speed_of_light", nullptr}};
  return report;
}

TEST(CandidateRanks, RankByTheMeasuredMedianAndPutWrongOutputsAfterTheRightOnes) {
  std::vector<CandidateResult> candidates(5);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    candidates[i].index = static_cast<int>(i);
    candidates[i].status = CandidateStatus::ok;
  }
  // ncu says 0 is fastest; measured, 1 is; 2 is fastest of all but wrong; 3 was not timed.
  candidates[0].report = timed_report(1000, 50, "pass");
  candidates[1].report = timed_report(3000, 20, "pass");
  candidates[2].report = timed_report(500, 5, "fail");
  candidates[2].status = CandidateStatus::partial;
  candidates[2].error = make_error(ErrorCategory::wrong_output, "wrong");
  candidates[3].report = tiny_report(100, "k");
  const auto ranks = candidate_ranks(candidates);
  EXPECT_EQ(ranks[1], 1);
  EXPECT_EQ(ranks[0], 2);
  EXPECT_EQ(ranks[3], 3); // no measurement: after the measured ones, by ncu's duration
  EXPECT_EQ(ranks[2], 4); // a wrong output after every right one, however fast
  EXPECT_FALSE(ranks[4].has_value());
}

TEST(CandidateRanks, CandidatesTimedInDifferentModesAreRankedOnTheirEagerMedians) {
  // Candidate 0's call went into a CUDA graph (its 8 ms median leaves out the host's launches;
  // eagerly 36 ms), candidate 1's was timed eagerly at 20 ms: like against like, 1 is faster.
  std::vector<CandidateResult> candidates(3);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    candidates[i].index = static_cast<int>(i);
    candidates[i].status = CandidateStatus::ok;
  }
  candidates[0].report = timed_report(1000, 8'000, "pass");
  candidates[0].report->at("truth")["timing"]["mode"] = "graph";
  candidates[0].report->at("truth")["timing"]["eager_median_us"] = 36'000.0;
  candidates[1].report = timed_report(1000, 20'000, "pass");
  candidates[1].report->at("truth")["timing"]["mode"] = "eager";
  candidates[2].report = timed_report(1000, 30'000, "pass"); // no mode named: eager
  auto ranks = candidate_ranks(candidates);
  EXPECT_EQ(ranks[1], 1);
  EXPECT_EQ(ranks[2], 2);
  EXPECT_EQ(ranks[0], 3);
  // All in one mode: their medians, as they are.
  candidates[1].report->at("truth")["timing"]["mode"] = "graph";
  candidates[1].report->at("truth")["timing"]["eager_median_us"] = 40'000.0;
  candidates[2].report.reset();
  ranks = candidate_ranks(candidates);
  EXPECT_EQ(ranks[0], 1);
  EXPECT_EQ(ranks[1], 2);
}

TEST(RoundDocument, ShowsTheMeasuredMedianAndTheCheckOfEachCandidate) {
  RoundResult round = sample_round();
  round.candidates[0].report = timed_report(181088, 41.25, "pass");
  const Json doc = round_document(round, ReportDetail::summary);
  EXPECT_EQ(doc["candidates"][0]["summary"]["truth"]["median_us"], 41.25);
  EXPECT_EQ(doc["candidates"][0]["summary"]["truth"]["check"], "pass");
  EXPECT_TRUE(doc["candidates"][3]["summary"]["truth"].is_null());
  const std::string text = render(Format::table, doc);
  EXPECT_NE(text.find("measured"), std::string::npos) << text;
  EXPECT_NE(text.find("41.25 us"), std::string::npos) << text;
  const std::string csv = render(Format::csv, doc);
  EXPECT_NE(csv.find(",41.25,pass\n"), std::string::npos) << csv;
}

TEST(RoundDocument, ShowsOnlyTheFirstLineOfAMultiLineError) {
  RoundResult round;
  round.batch = true;
  round.candidates.resize(1);
  round.candidates[0].error = make_error(ErrorCategory::kernel_raised, "first line\nsecond line");
  const std::string text = render(Format::table, round_document(round, ReportDetail::full));
  EXPECT_NE(text.find("kernel_raised: first line\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("second line"), std::string::npos) << text;
}

TEST(RoundVerdict, ASingleProfileFailsWithItsCandidatePartialOrFailedABatchOnlyWhenAllFailed) {
  RoundResult single = sample_round();
  single.batch = false;
  single.candidates.resize(1);
  EXPECT_FALSE(round_error(single).has_value());
  single.candidates[0].status = CandidateStatus::partial;
  single.candidates[0].error = make_error(ErrorCategory::ncu_failed, "after the rows");
  EXPECT_EQ(round_error(single)->category, ErrorCategory::ncu_failed);

  RoundResult batch = sample_round();
  EXPECT_FALSE(round_error(batch).has_value()) << "two of four ran";
  for (CandidateResult& candidate : batch.candidates) {
    candidate.status = CandidateStatus::failed;
    candidate.report.reset();
    candidate.error = make_error(ErrorCategory::kernel_raised, "no");
  }
  ASSERT_TRUE(round_error(batch).has_value());
  EXPECT_EQ(round_error(batch)->category, ErrorCategory::kernel_raised);
}

TEST(DoctorDocument, TableIsWhatKprofDoctorPrinted) {
  test::expect_golden(render(Format::table, doctor_document(failed_doctor())),
                      "doctor_failed.table.txt");
  test::expect_golden(
      render(Format::table,
             doctor_document({{"ncu", true, "/usr/local/cuda/bin/ncu 2025.3.1.0", std::nullopt},
                              {"gpu", true, "NVIDIA H200 (1 visible)", std::nullopt},
                              {"python", true, "/usr/bin/python3 3.11.2", std::nullopt}})),
      "doctor_ok.table.txt");
}

TEST(DoctorDocument, NamesTheOneCheckToFixOrEveryFailedCheckNeverTheFirstFailure) {
  const std::string many = render(Format::table, doctor_document(failed_doctor()));
  EXPECT_NE(many.find("until the 2 failed checks above pass (ncu, torch)\n"), std::string::npos)
      << many;
  // The why of a failed import, under its line.
  EXPECT_NE(many.find("\n               ModuleNotFoundError: No module named 'torch'\n"),
            std::string::npos)
      << many;
  const std::string one =
      render(Format::table,
             doctor_document({{"python", true, "/usr/bin/python3 3.11.2", std::nullopt},
                              {"ncu", false, "ncu was not found",
                               make_error(ErrorCategory::ncu_not_found, "ncu was not found")}}));
  EXPECT_NE(one.find("profiling will not work here until the ncu check above passes\n"),
            std::string::npos)
      << one;
  EXPECT_EQ(one.find("first failure"), std::string::npos) << one;
}

TEST(DoctorDocument, JsonSaysWhetherEveryCheckPassed) {
  const Json doc = Json::parse(render(Format::json, doctor_document(failed_doctor())));
  EXPECT_EQ(doc["kind"], "doctor");
  EXPECT_EQ(doc["ok"], false);
  ASSERT_EQ(doc["checks"].size(), 5U);
  EXPECT_EQ(doc["checks"][0]["error"]["category"], "ncu_not_found");
  EXPECT_EQ(doc["checks"][2]["ok"], true);
  EXPECT_TRUE(doc["checks"][2]["error"].is_null());
  EXPECT_EQ(Json::parse(render(Format::json, doctor_document({})))["ok"], true);
}

TEST(DoctorDocument, CsvHasOneLinePerCheck) {
  const std::string csv = render(Format::csv, doctor_document(failed_doctor()));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "name,ok,detail,error_category,error_message");
  EXPECT_NE(csv.find("\npython,1,/usr/bin/python3 3.11.2,,\n"), std::string::npos) << csv;
}

} // namespace
} // namespace kprof

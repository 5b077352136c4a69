// The CLI's small artefacts as documents rendered by the sinks: metric sets, the batch ranking,
// the doctor checks, and the document kinds. The table goldens were printed by the CLI before
// the artefacts went through the sinks (kprof metrics, kprof batch on the stand-in ncu,
// kprof doctor), so the text the CLI prints is unchanged.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/report.hpp"
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
std::vector<BatchCandidate> sample_batch() {
  std::vector<BatchCandidate> candidates(4);
  const std::string cases = "/work/tests/python/cases/";
  candidates[0].candidate = 0;
  candidates[0].kernel_file = cases + "positional/kernel.py";
  candidates[0].report = tiny_report(181088, "add_kernel");
  candidates[1].candidate = 1;
  candidates[1].kernel_file = cases + "raises/kernel.py";
  candidates[1].status = "failed";
  candidates[1].error =
      make_error(ErrorCategory::kernel_raised, "ValueError: the kernel rejects these inputs",
                 "Traceback (most recent call last):\n  ...");
  candidates[2].candidate = 2;
  candidates[2].kernel_file = cases + "poisoned/kernel.py";
  candidates[2].status = "failed";
  candidates[2].error = make_error(
      ErrorCategory::kernel_raised,
      "RuntimeError: CUDA error: an illegal memory access was encountered (the CUDA context was "
      "poisoned; the remaining candidates continue in a fresh process)");
  candidates[3].candidate = 3;
  candidates[3].kernel_file = cases + "positional/kernel.py";
  candidates[3].report = tiny_report(206272, "matmul_kernel");
  for (auto& candidate : candidates) {
    candidate.dir = "/out/round004/cand" + std::to_string(candidate.candidate);
  }
  return candidates;
}

Json sample_batch_document() {
  return batch_document(4, 9.5, Json{{"round", 4}, {"ncu_version", "2025.3.1.0"}}, sample_batch());
}

std::vector<DoctorLine> failed_doctor() {
  return {{"ncu", false,
           "ncu (Nsight Compute) was not found; looked in: --ncu (not given), $KPROF_NCU (unset)",
           make_error(ErrorCategory::ncu_not_found, "ncu (Nsight Compute) was not found")},
          {"gpu", false, "nvidia-smi not found: no NVIDIA driver on this machine", std::nullopt},
          {"python", true, "/usr/bin/python3 3.11.2", std::nullopt},
          {"torch", false, "`import torch` failed", std::nullopt},
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
        DocumentKind::metric_set, DocumentKind::batch, DocumentKind::doctor}) {
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

TEST(BatchDocument, TableIsWhatKprofBatchPrinted) {
  test::expect_golden(render(Format::table, sample_batch_document()), "batch.table.txt");
}

TEST(BatchDocument, RanksCandidatesByTotalDurationWithFailuresLast) {
  const Json doc = Json::parse(render(Format::json, sample_batch_document()));
  EXPECT_EQ(doc["kind"], "batch");
  EXPECT_EQ(doc["round"], 4);
  EXPECT_EQ(doc["metadata"]["ncu_version"], "2025.3.1.0");
  ASSERT_EQ(doc["candidates"].size(), 4U);
  EXPECT_EQ(doc["candidates"][0]["candidate"], 0);
  EXPECT_EQ(doc["candidates"][0]["rank"], 1);
  EXPECT_EQ(doc["candidates"][1]["candidate"], 3);
  EXPECT_EQ(doc["candidates"][1]["rank"], 2);
  EXPECT_TRUE(doc["candidates"][2]["rank"].is_null());
  EXPECT_EQ(doc["candidates"][2]["status"], "failed");
  EXPECT_EQ(doc["candidates"][2]["error"]["category"], "kernel_raised");
  EXPECT_EQ(doc["candidates"][0]["report"]["summary"]["dominant_kernel"], "add_kernel");
}

TEST(BatchDocument, CsvHasOneLinePerCandidateInRankOrder) {
  const std::string csv = render(Format::csv, sample_batch_document());
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "rank,candidate,status,total_duration_ns,dominant_kernel,kernel_file,error_category,"
            "error_message");
  EXPECT_NE(
      csv.find("\n1,0,ok,181088,add_kernel,/work/tests/python/cases/positional/kernel.py,,\n"),
      std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n,1,failed,,,/work/tests/python/cases/raises/kernel.py,kernel_raised,"
                     "ValueError: the kernel rejects these inputs\n"),
            std::string::npos)
      << csv;
}

TEST(BatchDocument, ShowsOnlyTheFirstLineOfAMultiLineError) {
  std::vector<BatchCandidate> candidates(1);
  candidates[0].status = "failed";
  candidates[0].error = make_error(ErrorCategory::kernel_raised, "first line\nsecond line");
  const std::string text =
      render(Format::table, batch_document(1, 1.0, Json::object(), candidates));
  EXPECT_NE(text.find("kernel_raised: first line\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("second line"), std::string::npos) << text;
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

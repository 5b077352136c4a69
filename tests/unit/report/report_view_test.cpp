// ReportView: the one read side of report documents (kprof/report_view.hpp).
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "kprof/report.hpp"
#include "kprof/report_view.hpp"

namespace kprof {
namespace {

Json launch(const std::string& name, int id, const std::string& duration_key, double duration,
            const std::string& unit) {
  Json metrics = Json::object();
  metrics[duration_key] = Json{{"value", duration}, {"unit", unit}};
  metrics["Registers Per Thread"] = Json{{"value", id * 10}, {"unit", "register/thread"}};
  return Json{{"name", name}, {"id", id}, {"metrics", metrics}};
}

/// A details-page document: durations under "Duration", in different units per launch.
Json details_document() {
  Json doc = Json::object();
  doc["schema_version"] = 1;
  doc["metadata"] = Json{{"page", "details"}, {"gpu", "NVIDIA H200"}};
  doc["kernels"] = Json::array({launch("k", 0, "Duration", 900, "usecond"),
                                launch("k", 1, "Duration", 1.2, "msecond"),
                                launch("k", 2, "Duration", 5, "usecond")});
  doc["summary"] = Json{{"total_duration_ns", nullptr},
                        {"launches", 3},
                        {"dominant_kernel", "k"},
                        {"kernels", Json::array()}};
  doc["roofline"] = Json::object();
  return doc;
}

TEST(JsonRead, TreatsNullNanInfinityAndOtherTypesAsAbsent) {
  Json object = Json::object();
  object["nan"] = std::numeric_limits<double>::quiet_NaN();
  object["inf"] = std::numeric_limits<double>::infinity();
  object["null"] = nullptr;
  object["text"] = "12";
  object["number"] = 12.5;
  EXPECT_FALSE(json_read::number_at(object, "nan"));
  EXPECT_FALSE(json_read::number_at(object, "inf"));
  EXPECT_FALSE(json_read::number_at(object, "null"));
  EXPECT_FALSE(json_read::number_at(object, "text"));
  EXPECT_FALSE(json_read::number_at(object, "missing"));
  EXPECT_EQ(json_read::number_at(object, "number"), 12.5);
  EXPECT_EQ(json_read::text_at(object, "number", "fallback"), "fallback");
  EXPECT_EQ(json_read::text_at(object, "text"), "12");
  EXPECT_FALSE(json_read::index_at(object, "number")); // not an integer
  EXPECT_EQ(json_read::member(Json::array(), "x"), nullptr);
}

TEST(DurationText, ScalesNanosecondsToAUnitAndSaysMissingOtherwise) {
  EXPECT_EQ(duration_text(9856.0), "9.86 us");
  EXPECT_EQ(duration_text(1.21e6), "1.21 ms");
  EXPECT_EQ(duration_text(std::nullopt), "-");
  EXPECT_EQ(duration_text(std::nullopt, "unknown"), "unknown");
  EXPECT_EQ(duration_text(std::numeric_limits<double>::quiet_NaN(), "unknown"), "unknown");
}

TEST(DurationNs, ConvertsTheUnitsNcuWrites) {
  EXPECT_EQ(duration_ns(5, "usecond"), 5000.0);
  EXPECT_EQ(duration_ns(1.5, "ms"), 1.5e6);
  EXPECT_EQ(duration_ns(2, "second"), 2e9);
  EXPECT_EQ(duration_ns(7, "nsecond"), 7.0);
  EXPECT_FALSE(duration_ns(7, "byte"));
}

TEST(ReportView, PicksTheLongestLaunchAcrossUnitsOnADetailsPage) {
  const Json doc = details_document();
  const ReportView view(doc);
  ASSERT_TRUE(view.details_page());
  const ReportKernel* kernel = view.kernel("k");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->launch_count, 3U);
  ASSERT_NE(kernel->representative, nullptr);
  EXPECT_EQ((*kernel->representative)["id"], 1); // 1.2 ms beats 900 us
  // No summary duration: the representative launch's duration, in nanoseconds.
  ASSERT_TRUE(kernel->duration_ns);
  EXPECT_DOUBLE_EQ(*kernel->duration_ns, 1.2e6);
}

TEST(ReportView, TakesTheFirstLaunchWhenNoneHasADuration) {
  Json doc = details_document();
  for (Json& entry : doc["kernels"]) {
    entry["metrics"].erase("Duration");
  }
  const ReportView view(doc);
  ASSERT_NE(view.kernel("k")->representative, nullptr);
  EXPECT_EQ((*view.kernel("k")->representative)["id"], 0);
  EXPECT_FALSE(view.kernel("k")->duration_ns);
}

TEST(KernelsWith, TakesEachNamesLongestLaunchWhenItHasTheMemberLongestKernelFirst) {
  Json doc = details_document();
  doc["kernels"].push_back(launch("other", 3, "Duration", 2, "msecond"));
  doc["kernels"].push_back(launch("bare", 4, "Duration", 3, "msecond"));
  doc["kernels"][0]["hot_lines"] = Json{{"lines", "of the 900 us launch"}};
  doc["kernels"][1]["hot_lines"] = Json{{"lines", "of the 1.2 ms launch"}};
  doc["kernels"][3]["hot_lines"] = Json{{"lines", "of other"}};
  doc["kernels"][4]["hot_lines"] = Json::object(); // empty: none
  const auto found = kernels_with(doc, "hot_lines");
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].first, "other"); // 2 ms before k's 1.2 ms; "bare" has none
  EXPECT_EQ(found[1].first, "k");
  EXPECT_EQ((*found[1].second)["hot_lines"]["lines"], "of the 1.2 ms launch");
  // A longest launch without the member leaves its name out, even when a shorter one has it.
  doc["kernels"][1].erase("hot_lines");
  EXPECT_EQ(kernels_with(doc, "hot_lines").size(), 1U);
  EXPECT_EQ(kernels_with(doc, "hot_lines", "oth").size(), 1U);
  EXPECT_TRUE(kernels_with(doc, "hot_lines", "nothing").empty());
}

TEST(ReportView, ListsKernelsFromSummaryLaunchesAndRooflineOnce) {
  Json doc = details_document();
  doc["summary"]["kernels"] =
      Json::array({Json{{"name", "b"}, {"launches", 2}, {"duration_ns", 10.0}, {"share", 0.1}},
                   Json{{"name", "k"}, {"launches", 3}, {"duration_ns", 90.0}, {"share", 0.9}}});
  doc["roofline"]["r"] = Json{{"bottleneck", "memory"}};
  doc["roofline"]["k"] = Json{{"bottleneck", "latency"}};
  const ReportView view(doc);
  EXPECT_EQ(view.kernel_names(), (std::vector<std::string>{"b", "k", "r"}));
  const auto sorted = view.kernels_by_duration();
  ASSERT_EQ(sorted.size(), 3U);
  EXPECT_EQ(sorted[0].name, "k");
  EXPECT_EQ(sorted[1].name, "b");
  EXPECT_EQ(sorted[2].name, "r"); // no duration: last
  EXPECT_EQ(json_read::text_at(*view.kernel("k")->roofline, "bottleneck"), "latency");
  EXPECT_EQ(view.kernel("b")->launch_count, 2U);
}

TEST(ReportView, FallsBackToTheOnlyKernelAsDominant) {
  Json doc = details_document();
  doc["summary"].erase("dominant_kernel");
  EXPECT_EQ(ReportView(doc).dominant_kernel(), "k");
  doc["roofline"]["other"] = Json::object();
  EXPECT_EQ(ReportView(doc).dominant_kernel(), "");
}

TEST(ReportView, ReadsTheRoundAndCandidateOfAProfileRound) {
  Json doc = details_document();
  EXPECT_FALSE(ReportView(doc).round());
  doc["metadata"]["round"] = 3;
  doc["metadata"]["candidate"] = 1;
  EXPECT_EQ(ReportView(doc).round(), 3);
  EXPECT_EQ(ReportView(doc).candidate(), 1);
}

TEST(ReportView, ReadsTheFlatKernelAgentLayoutToo) {
  const Json launch_entry = Json{{"metrics", Json{{"gpu__time_duration.sum", 1500.0}}}};
  EXPECT_EQ(ReportView::metric_value(launch_entry, "gpu__time_duration.sum"), 1500.0);
  EXPECT_EQ(ReportView::launch_duration_ns(launch_entry), 1500.0);
}

TEST(PromptSink, SaysUnknownForANanTotalInADocumentBuiltInMemory) {
  Json doc = details_document();
  doc["summary"]["total_duration_ns"] = std::numeric_limits<double>::quiet_NaN();
  const std::string text = render(Format::prompt, doc);
  EXPECT_NE(text.find("Total GPU time: unknown"), std::string::npos) << text;
  EXPECT_EQ(text.find(" nan"), std::string::npos) << text;
}

} // namespace
} // namespace kprof

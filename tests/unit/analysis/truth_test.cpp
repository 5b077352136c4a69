// The truth beside the counters (src/analysis/truth.cpp): the speed of light of known problems
// by hand, and the report's "truth" object from recorded harness objects.
#include <gtest/gtest.h>

#include "kprof/truth.hpp"

namespace kprof {
namespace {

GpuSpec h100() {
  auto spec = find_gpu_spec("NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(spec.has_value());
  return *spec;
}

TEST(SpeedOfLight, AMatmulIsTwoMnkAtTheDtypesTensorPeak) {
  // 4096^3 bf16: 2*M*N*K = 137.4 GFLOP at 989 TFLOP/s = 139 us; 3 x 32 MiB at 3.35 TB/s = 30 us.
  const double m = 4096;
  const double flops = 2 * m * m * m;
  const double bytes = 3 * m * m * 2;
  const auto light = speed_of_light(flops, 0, bytes, "bfloat16", h100());
  ASSERT_TRUE(light.has_value());
  EXPECT_EQ(light->bound, "compute");
  EXPECT_EQ(light->tensor_peak, "BF16 tensor");
  EXPECT_NEAR(light->ideal_seconds, flops / 989e12, 1e-12);
  EXPECT_NEAR(light->memory_seconds, bytes / 3.35e12, 1e-12);
  // float32 matmuls are held against TF32 (what Triton's tl.dot uses by default)
  EXPECT_NEAR(speed_of_light(flops, 0, bytes, "float32", h100())->ideal_seconds, flops / 494e12,
              1e-12);
}

TEST(SpeedOfLight, SoftmaxIsItsBytesAtDramBandwidth) {
  const double bytes = 2.0 * 4096 * 16384 * 4; // read x once, write y once
  const auto light = speed_of_light(0, 0, bytes, "float32", h100());
  ASSERT_TRUE(light.has_value());
  EXPECT_EQ(light->bound, "memory");
  EXPECT_NEAR(light->ideal_seconds, bytes / 3.35e12, 1e-12);
}

TEST(SpeedOfLight, TensorFlopsOfADtypeWithoutATensorPeakHaveNoSpeedOfLight) {
  EXPECT_FALSE(speed_of_light(1e9, 0, 1e6, "float64", h100()).has_value());
  EXPECT_TRUE(speed_of_light(0, 1e9, 1e6, "float64", h100()).has_value());
}

TruthEvidence softmax_evidence(double median_us) {
  TruthEvidence evidence;
  evidence.check = {{"verdict", "pass"}, {"reason", nullptr}, {"max_abs_error", 1e-7}};
  evidence.timing = {{"median_us", median_us},
                     {"p10_us", median_us},
                     {"p90_us", median_us},
                     {"count", 100},
                     {"mode", "eager"},
                     {"timed_in", "plain_process"},
                     {"gpu_moved", Json::array({"SM clock 1980 -> 1500 MHz"})}};
  evidence.reference = {{"error", nullptr},
                        {"timing", {{"median_us", 2 * median_us}}},
                        {"speed_of_light",
                         {{"flops", 0},
                          {"tensor_core_flops", 0},
                          {"other_flops", 0},
                          {"uncounted_ops", {{"_softmax", 1}}},
                          {"bytes", 49.2e6},
                          {"dtype", "float32"}}}};
  return evidence;
}

TEST(TruthJson, SaysTheSpeedOfLightTheShareAndTheSpeedup) {
  const Json truth = truth_json(softmax_evidence(41.2), h100(), 41.0 * 1000, 1);
  const Json& light = truth["speed_of_light"];
  EXPECT_EQ(light["bound"], "memory");
  EXPECT_NEAR(light["ideal_us"].get<double>(), 49.2e6 / 3.35e12 * 1e6, 1e-9);
  EXPECT_NEAR(light["share"].get<double>(), 49.2e6 / 3.35e12 * 1e6 / 41.2, 1e-9);
  EXPECT_NEAR(truth["reference"]["speedup"].get<double>(), 2.0, 1e-12);
  EXPECT_EQ(truth["check"]["verdict"], "pass");
  EXPECT_EQ(truth["ncu_vs_measured"]["differs"], false);
  const std::string notes = truth["notes"].dump();
  EXPECT_NE(notes.find("could not count _softmax"), std::string::npos);
  EXPECT_NE(notes.find("SM clock 1980 -> 1500 MHz"), std::string::npos);
}

TEST(TruthJson, TheSpeedupComparesLikeWithLikeWhenTheModesDiffer) {
  // Measured on the H100 (docs/device-runs/2026-12-06-truth.md): KernelBench's LSTM as its own
  // candidate, 6,244 launches, timed eagerly at 26.79 ms while its reference went into a CUDA
  // graph (8.29 ms): the same model was called 0.31x of itself.
  TruthEvidence evidence = softmax_evidence(26790);
  evidence.reference["timing"] = {
      {"median_us", 8290}, {"eager_median_us", 26900}, {"mode", "graph"}};
  Json truth = truth_json(evidence, h100(), std::nullopt, 6244);
  EXPECT_NEAR(truth["reference"]["speedup"].get<double>(), 26900.0 / 26790.0, 1e-12);
  EXPECT_EQ(truth["reference"]["speedup_mode"], "eager");
  EXPECT_NE(truth["notes"].dump().find("timed in eager mode and the reference in graph"),
            std::string::npos);
  // A candidate in a graph against an eager reference: eager against eager too.
  evidence.timing["mode"] = "graph";
  evidence.timing["median_us"] = 10.0;
  evidence.timing["eager_median_us"] = 20.0;
  evidence.reference["timing"] = {{"median_us", 40.0}, {"mode", "eager"}};
  truth = truth_json(evidence, h100(), std::nullopt, 1);
  EXPECT_NEAR(truth["reference"]["speedup"].get<double>(), 2.0, 1e-12);
  // A graph median without its eager one has no like pair: no speed-up rather than a wrong one.
  evidence.timing.erase("eager_median_us");
  truth = truth_json(evidence, h100(), std::nullopt, 1);
  EXPECT_TRUE(truth["reference"]["speedup"].is_null());
  EXPECT_TRUE(truth["reference"]["speedup_mode"].is_null());
  // One mode: the medians, in that mode.
  evidence.reference["timing"] = {{"median_us", 30.0}, {"mode", "graph"}};
  truth = truth_json(evidence, h100(), std::nullopt, 1);
  EXPECT_NEAR(truth["reference"]["speedup"].get<double>(), 3.0, 1e-12);
  EXPECT_EQ(truth["reference"]["speedup_mode"], "graph");
}

TEST(TruthJson, AReferenceThatIsTheCandidateItselfSaysSoAndHasNoSpeedup) {
  TruthEvidence evidence = softmax_evidence(41.2);
  evidence.reference["timing"] = nullptr;
  evidence.reference["same_as_candidate"] = true;
  Json truth = truth_json(evidence, h100(), std::nullopt, 1);
  EXPECT_EQ(truth["reference"]["same_as_candidate"], true);
  EXPECT_TRUE(truth["reference"]["speedup"].is_null());
  EXPECT_EQ(truth["speed_of_light"]["bound"], "memory"); // the counts stay
  evidence.reference.erase("same_as_candidate");
  truth = truth_json(evidence, h100(), std::nullopt, 1);
  EXPECT_FALSE(truth["reference"].contains("same_as_candidate"));
}

TEST(TruthJson, SaysWhenNcusDurationAndTheMedianDifferByMoreThanTheThreshold) {
  const Json truth = truth_json(softmax_evidence(41.2), h100(), 20.0 * 1000, 3);
  const Json& versus = truth["ncu_vs_measured"];
  EXPECT_EQ(versus["differs"], true);
  EXPECT_NEAR(versus["ratio"].get<double>(), 41.2 / 20.0, 1e-12);
  EXPECT_NE(versus["why"].get<std::string>().find("gaps between its 3 launches"),
            std::string::npos);
  const Json slower = truth_json(softmax_evidence(10), h100(), 20.0 * 1000, 1);
  EXPECT_NE(slower["ncu_vs_measured"]["why"].get<std::string>().find("replay"), std::string::npos);
}

TEST(TruthJson, AnUnknownGpuHasNoSpeedOfLightAndSaysSo) {
  const Json truth = truth_json(softmax_evidence(41.2), std::nullopt, std::nullopt, 1);
  EXPECT_TRUE(truth["speed_of_light"]["ideal_us"].is_null());
  EXPECT_TRUE(truth["ncu_vs_measured"].is_null());
  EXPECT_NE(truth["notes"].dump().find("no datasheet peaks"), std::string::npos);
}

TEST(TruthJson, NothingMeasuredIsNull) {
  EXPECT_TRUE(truth_json(TruthEvidence{}, h100(), 1000.0, 1).is_null());
}

TEST(TruthJson, ATimingErrorIsKeptAsTheError) {
  TruthEvidence evidence;
  evidence.timing = {{"error", "RuntimeError: out of workspace"}};
  const Json truth = truth_json(evidence, h100(), 1000.0, 1);
  EXPECT_EQ(truth["timing"], Json({{"error", "RuntimeError: out of workspace"}}));
  EXPECT_TRUE(truth["ncu_vs_measured"].is_null());
}

} // namespace
} // namespace kprof

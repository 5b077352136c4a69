// The diagnosis (src/diagnosis): the SASS it reads, and how causes are made and ranked from
// rules and facts chosen by hand. tests/unit/diagnosis/planted_suite_test.cpp proves it on the
// recorded planted-defect suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "diagnosis/code.hpp"
#include "diagnosis/launch_site.hpp"
#include "diagnosis/sass.hpp"
#include "kprof/diagnosis.hpp"
#include "kprof/ncu_output.hpp"

namespace kprof {
namespace {

using diagnosis::decode_sass;
using diagnosis::SassKind;

TEST(SassDecoding, ReadsAWideLoadsDestinationAndItsAddressRegisters) {
  const diagnosis::SassOp op = decode_sass("@!P0 LDG.E.128 R16, desc[UR6][R2.64+0x800]");
  EXPECT_EQ(op.kind, SassKind::global_load);
  EXPECT_EQ(op.writes, (std::vector<int>{16, 17, 18, 19}));
  EXPECT_EQ(op.reads, (std::vector<int>{2, 3}));
  EXPECT_EQ(op.access_bytes, 16);
}

TEST(SassDecoding, GivesStoresAndReductionsNoDestination) {
  const diagnosis::SassOp store = decode_sass("STG.E desc[UR4][R2.64], R5");
  EXPECT_EQ(store.kind, SassKind::global_store);
  EXPECT_TRUE(store.writes.empty());
  EXPECT_EQ(store.reads, (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(decode_sass("REDG.E.ADD.STRONG.GPU desc[UR4][R4.64], R7").kind,
            SassKind::global_atomic);
  const diagnosis::SassOp atomic =
      decode_sass("ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU PT, RZ, desc[UR6][R2.64], R5");
  EXPECT_EQ(atomic.kind, SassKind::global_atomic);
  EXPECT_TRUE(atomic.writes.empty());
  EXPECT_EQ(atomic.access_bytes, 4);
  // Hopper's packed atomics (recorded on an H100, 2026-12-06: Triton's tl.atomic_add of a block
  // of floats): four floats per lane are 16 bytes, two halves 4.
  EXPECT_EQ(
      decode_sass("ATOMG.E.ADD.F32x4.FTZ.RN.STRONG.GPU PT, RZ, desc[UR6][R2.64], R8").access_bytes,
      16);
  EXPECT_EQ(decode_sass("REDG.E.ADD.F16x2.RN.STRONG.GPU desc[UR4][R2.64], R5").access_bytes, 4);
  EXPECT_EQ(
      decode_sass("ATOMG.E.ADD.F32x2.FTZ.RN.STRONG.GPU PT, RZ, desc[UR6][R2.64], R8").access_bytes,
      8);
  EXPECT_EQ(decode_sass("LDL R3, [R1+0x10]").kind, SassKind::local_load);
  EXPECT_EQ(decode_sass("STL [R1+0x10], R3").kind, SassKind::local_store);
  EXPECT_EQ(decode_sass("HMMA.16816.F32 R4, R8, R12, R4").kind, SassKind::tensor);
  EXPECT_EQ(decode_sass("REDUX.SUM UR4, R3").kind, SassKind::other);
}

TEST(SassDecoding, NamesTheTwoFactorsOfAnFmaAndNotItsAddend) {
  // Recorded on an H100 (tests/fixtures/ncu/2025.3.1/heldout/bmm_f16/source.csv).
  const diagnosis::SassOp ffma = decode_sass("FFMA R51, R56, R7, R51");
  EXPECT_TRUE(ffma.fma);
  EXPECT_EQ(ffma.factors, (std::array<int, 2>{56, 7}));
  EXPECT_EQ(ffma.writes, (std::vector<int>{51}));
  const diagnosis::SassOp packed = decode_sass("HFMA2 R4, R8.H0_H0, -R12, R4");
  EXPECT_TRUE(packed.fma);
  EXPECT_EQ(packed.factors, (std::array<int, 2>{8, 12}));
  // A constant factor is no register.
  EXPECT_EQ(decode_sass("FFMA R3, R2, c[0x0][0x160], R3").factors, (std::array<int, 2>{2, -1}));
  EXPECT_FALSE(decode_sass("FMUL R3, R2, R4").fma);
  EXPECT_FALSE(decode_sass("HMMA.16816.F32 R4, R8, R12, R4").fma);
}

TEST(SassDecoding, LeavesSpecialRegistersUniformRegistersAndRzOut) {
  const diagnosis::SassOp op = decode_sass("S2R R0, SR_TID.X");
  EXPECT_EQ(op.writes, (std::vector<int>{0}));
  EXPECT_TRUE(op.reads.empty());
  const diagnosis::SassOp wide = decode_sass("IMAD.WIDE R2, R5, 0x4, RZ");
  EXPECT_EQ(wide.writes, (std::vector<int>{2, 3}));
  EXPECT_EQ(wide.reads, (std::vector<int>{5}));
}

TEST(ScoreboardProducers, FollowAStoreBackThroughArithmeticToTheLoad) {
  const std::vector<diagnosis::SassOp> ops{
      decode_sass("IMAD.WIDE R2, R5, 0x4, R6"),  // 0: the address
      decode_sass("LDG.E R4, desc[UR4][R2.64]"), // 1: the load
      decode_sass("IMAD.WIDE R8, R5, 0x4, R10"), // 2
      decode_sass("FMUL R7, R4, 2"),             // 3
      decode_sass("STG.E desc[UR4][R8.64], R7"), // 4: waits for R7, made from R4
      decode_sass("IADD3 R12, R13, 0x1, RZ")};   // 5: no load behind it
  const std::vector<std::size_t> producers =
      diagnosis::scoreboard_producers(ops, diagnosis::is_long_scoreboard_producer);
  EXPECT_EQ(producers[4], 1U);
  EXPECT_EQ(producers[3], 1U);
  EXPECT_EQ(producers[5], 5U);
}

TEST(SassDecoding, ReadsWhichPredicatesAreWrittenAndWhichRead) {
  const diagnosis::SassOp compare = decode_sass("ISETP.GE.AND P0, PT, R4, UR6, PT");
  EXPECT_EQ(compare.predicates_written, (std::vector<int>{0}));
  EXPECT_TRUE(compare.predicates_read.empty());
  EXPECT_EQ(decode_sass("@!P2 LDG.E R5, desc[UR4][R8.64]").predicates_read, (std::vector<int>{2}));
  EXPECT_EQ(decode_sass("SEL R5, R6, R7, !P1").predicates_read, (std::vector<int>{1}));
  const diagnosis::SassOp carry_out = decode_sass("LEA R6, P3, R8, R2, 0x2");
  EXPECT_EQ(carry_out.predicates_written, (std::vector<int>{3}));
  EXPECT_EQ(carry_out.writes, (std::vector<int>{6}));
  EXPECT_EQ(decode_sass("LEA.HI.X.SX32 R7, R8, R3, 0x2, P3").predicates_read,
            (std::vector<int>{3}));
}

TEST(ScoreboardProducers, FollowAnAddressChosenByComparingTheLastLoadedValue) {
  // One step of a binary search as Triton unrolls it (recorded on an H100, 2026-12-06): the
  // next index is lo or mid + 1 as the value loaded last compares, so the next load's address
  // waits for the last load through a predicate.
  const std::vector<diagnosis::SassOp> ops{
      decode_sass("LDG.E R9, desc[UR4][R6.64]"),        // 0: a[mid]
      decode_sass("FSETP.GTU.AND P0, PT, R4, R9, PT"),  // 1: x > a[mid]
      decode_sass("@P0 IADD3 R10, R8, 0x1, RZ"),        // 2: lo = mid + 1
      decode_sass("IMAD.IADD R5, R10, 0x1, R11"),       // 3: lo + hi
      decode_sass("SHF.R.S32.HI R8, RZ, 0x1, R5"),      // 4: mid
      decode_sass("LEA R6, P3, R8, R2, 0x2"),           // 5: &a[mid]
      decode_sass("LEA.HI.X.SX32 R7, R8, R3, 0x2, P3"), // 6
      decode_sass("LDG.E R9, desc[UR4][R6.64]")};       // 7: the next a[mid]
  const std::vector<std::size_t> producers =
      diagnosis::scoreboard_producers(ops, diagnosis::is_long_scoreboard_producer);
  EXPECT_EQ(producers[7], 0U);
  EXPECT_EQ(producers[4], 0U);
}

TEST(ToolkitHeaders, AreTheCudaIncludeDirectories) {
  EXPECT_TRUE(diagnosis::is_toolkit_header("/usr/local/cuda/include/device_atomic_functions.hpp"));
  EXPECT_TRUE(diagnosis::is_toolkit_header("/usr/local/cuda/include/crt/sm_80_rt.hpp"));
  EXPECT_TRUE(
      diagnosis::is_toolkit_header("/opt/cuda-12.4/targets/x86_64-linux/include/cuda_fp16.hpp"));
  EXPECT_FALSE(diagnosis::is_toolkit_header("/work/tests/planted/cuda/planted.cu"));
  EXPECT_FALSE(diagnosis::is_toolkit_header("/home/me/include/mine.cuh"));
}

TEST(KernelIdentifier, IsNcusNameWithoutReturnTypeParametersTemplateArgumentsOrNamespaces) {
  EXPECT_EQ(diagnosis::kernel_identifier("few_programs_scale_kernel"), "few_programs_scale_kernel");
  EXPECT_EQ(diagnosis::kernel_identifier("few_blocks_scale_kernel(const float *, float *, int)"),
            "few_blocks_scale_kernel");
  EXPECT_EQ(diagnosis::kernel_identifier("void ns::tiled<32, float>(const float *, int)"), "tiled");
}

TEST(LaunchSite, IsTheTritonCallWhoseGridSpansLines) {
  const std::string text = "@triton.jit\n"
                           "def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):\n"
                           "    pass\n"
                           "\n"
                           "def kernel_function(x):\n"
                           "    # scale_kernel[grid](x) launches it\n"
                           "    grid = (triton.cdiv(n, 1024),)\n"
                           "    scale_kernel[\n"
                           "        grid\n"
                           "    ](x, n, BLOCK=1024, num_warps=4)\n"
                           "    return scale_kernel_2[grid](x)\n";
  const std::optional<diagnosis::LaunchSite> site = diagnosis::find_launch(text, "scale_kernel");
  ASSERT_TRUE(site.has_value());
  EXPECT_EQ(site->line, 8);
  EXPECT_EQ(site->text, "scale_kernel[");
  EXPECT_EQ(site->count, 1U);
}

TEST(LaunchSite, IsTheCudaLaunchWithTemplateArgumentsInsideAPythonString) {
  const std::string text = "cuda_source = \"\"\"\n"
                           "template <int N> __global__ void tiled(const float* x) {}\n"
                           "void launch(const float* x) {\n"
                           "  // tiled<<<1, 1>>>(x);\n"
                           "  tiled<32> <<<blocks, 256, 0, stream>>>(x);\n"
                           "}\n"
                           "\"\"\"\n";
  const std::optional<diagnosis::LaunchSite> site = diagnosis::find_launch(text, "tiled");
  ASSERT_TRUE(site.has_value());
  EXPECT_EQ(site->line, 5);
  EXPECT_EQ(site->text, "tiled<32> <<<blocks, 256, 0, stream>>>(x);");
  EXPECT_FALSE(diagnosis::find_launch(text, "launch").has_value());
}

TEST(DiagnosisCategories, ReadBackFromTheirWords) {
  for (const DiagnosisCategory category : diagnosis_categories()) {
    EXPECT_EQ(parse_diagnosis_category(to_string(category)), category) << to_string(category);
  }
  EXPECT_FALSE(parse_diagnosis_category("uncoalesced").has_value());
}

RuleResult rule(std::string name, std::string speedup_type, double estimate,
                std::string description = "A finding. More text.") {
  return RuleResult{
      "Section", std::move(name), "OPT", std::move(description), std::move(speedup_type), estimate};
}

struct Case {
  KernelRecord launch;
  LaunchFacts facts;

  Diagnosis diagnose(PageKind page = PageKind::details, std::string set = "deep") const {
    DiagnosisInput input;
    input.launch = &launch;
    input.facts = &facts;
    input.page = page;
    input.metric_set = std::move(set);
    return kprof::diagnose(input);
  }
};

Case launch_of(std::array<std::int64_t, 3> grid, std::vector<RuleResult> rules = {}) {
  Case c;
  c.launch.name = "kernel";
  c.launch.grid = grid;
  c.launch.block = {128, 1, 1};
  c.launch.rules = std::move(rules);
  c.facts.sm_count = SourcedNumber{132, "# SMs"};
  c.facts.duration_ns = SourcedNumber{100000, "Duration"};
  c.facts.roofline.compute_sol_pct = 2;
  c.facts.roofline.memory_sol_pct = 3;
  return c;
}

TEST(Diagnose, NamesAGridSmallerThanTheGpuWithTheIdleSmsAsItsEstimate) {
  const Diagnosis diagnosis = launch_of({4, 1, 1}).diagnose(PageKind::raw, "lean");
  ASSERT_FALSE(diagnosis.causes.empty());
  const DiagnosisCause& first = diagnosis.causes.front();
  EXPECT_EQ(first.category, DiagnosisCategory::too_few_blocks);
  EXPECT_FALSE(first.line.has_value());
  ASSERT_TRUE(first.estimated_speedup_pct.has_value());
  EXPECT_NEAR(*first.estimated_speedup_pct, 100.0 * 128 / 132, 0.01);
  EXPECT_EQ(first.source, "kprof:launch");
  EXPECT_NE(first.title.find("4 blocks"), std::string::npos) << first.title;
  // A raw lean capture says what the deep set and the source page would add.
  const std::vector<std::string>& notes = diagnosis.notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find("--metrics deep") != std::string::npos;
  }));
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find("lean set") != std::string::npos;
  }));
}

TEST(Diagnose, NeverRanksAGenericSymptomFirstAndFoldsItIntoTheCause) {
  Case c = launch_of({8192, 1, 1}, {rule("HighPipeUtilization", "local", 99.0,
                                         "All compute pipelines are under-utilized. Either ..."),
                                    rule("IssueSlotUtilization", "local", 50.0),
                                    rule("UncoalescedGlobalAccess", "global", 40.0)});
  const Diagnosis diagnosis = c.diagnose();
  ASSERT_FALSE(diagnosis.causes.empty());
  const DiagnosisCause& first = diagnosis.causes.front();
  EXPECT_EQ(first.category, DiagnosisCategory::uncoalesced_access);
  EXPECT_EQ(first.estimated_speedup_pct, 40.0);
  EXPECT_EQ(first.source, "ncu:UncoalescedGlobalAccess");
  const auto folded = [&](std::string_view name) {
    return std::any_of(
        first.evidence.begin(), first.evidence.end(),
        [&](const DiagnosisEvidence& e) { return e.metric.find(name) != std::string::npos; });
  };
  EXPECT_TRUE(folded("HighPipeUtilization"));
  EXPECT_TRUE(folded("IssueSlotUtilization"));
  for (const DiagnosisCause& cause : diagnosis.causes) {
    EXPECT_EQ(cause.title.find("under-utilized"), std::string::npos) << cause.title;
  }
}

TEST(Diagnose, GivesALocalEstimateNoSpeedupAndRanksItAfterGlobalOnes) {
  Case c = launch_of({256, 1, 1}, {rule("TheoreticalOccupancy", "local", 87.5),
                                   rule("LaunchConfiguration", "global", 50.0)});
  c.facts.theoretical_occupancy_pct = SourcedNumber{12.5, "Theoretical Occupancy"};
  c.facts.block_limit_registers = SourcedNumber{1, "Block Limit Registers"};
  c.facts.block_limit_blocks = SourcedNumber{32, "Block Limit SM"};
  c.facts.registers_per_thread = SourcedNumber{184, "Registers Per Thread"};
  const Diagnosis diagnosis = c.diagnose();
  ASSERT_EQ(diagnosis.causes.size(), 2U);
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::tail_effect);
  EXPECT_EQ(diagnosis.causes[1].category, DiagnosisCategory::low_occupancy);
  EXPECT_FALSE(diagnosis.causes[1].estimated_speedup_pct.has_value());
  EXPECT_NE(diagnosis.causes[1].title.find("limited by registers: 184 per thread"),
            std::string::npos)
      << diagnosis.causes[1].title;
}

TEST(Diagnose, FoldsAMemoryStallIntoTheOccupancyLimitWhenNothingElseExplainsIt) {
  Case c = launch_of(
      {131072, 1, 1},
      {rule("TheoreticalOccupancy", "global", 93.75),
       rule("CPIStall", "global", 81.0,
            "On average, each warp of this workload spends 33.4 cycles being stalled waiting for "
            "a scoreboard dependency on a L1TEX (local, global, surface, texture) operation.")});
  c.facts.theoretical_occupancy_pct = SourcedNumber{6.25, "Theoretical Occupancy"};
  c.facts.block_limit_shared_mem = SourcedNumber{2, "Block Limit Shared Mem"};
  c.facts.shared_mem_dynamic_bytes = SourcedNumber{102400, "Dynamic Shared Memory Per Block"};
  const Diagnosis diagnosis = c.diagnose();
  ASSERT_EQ(diagnosis.causes.size(), 1U);
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::low_occupancy);
  EXPECT_EQ(diagnosis.causes[0].estimated_speedup_pct, 93.75);
  EXPECT_NE(diagnosis.causes[0].title.find("shared memory: 102,400 bytes per block"),
            std::string::npos)
      << diagnosis.causes[0].title;
}

TEST(Diagnose, CallsAMemoryBoundKernelWithoutDefectsDramBoundAtItsPercentOfPeak) {
  Case c = launch_of({8192, 1, 1});
  c.facts.roofline.memory_sol_pct = 77.7;
  c.facts.roofline.compute_sol_pct = 15.7;
  c.facts.roofline.bottleneck = Bottleneck::memory;
  c.facts.dram_throughput_pct = SourcedNumber{77.67, "DRAM Throughput"};
  c.facts.l2_throughput_pct = SourcedNumber{60.0, "L2 Cache Throughput"};
  const Diagnosis diagnosis = c.diagnose();
  ASSERT_EQ(diagnosis.causes.size(), 1U);
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::dram_bound);
  EXPECT_NE(diagnosis.causes[0].title.find("77.7% of peak"), std::string::npos)
      << diagnosis.causes[0].title;
  EXPECT_NEAR(*diagnosis.causes[0].estimated_speedup_pct, 22.3, 1e-9);
}

TEST(Diagnose, TurnsAMemoryBoundVerdictOnWastedSectorsIntoTheAccessDefect) {
  Case c = launch_of({8192, 1, 1});
  c.facts.roofline.memory_sol_pct = 89.1;
  c.facts.roofline.bottleneck = Bottleneck::memory;
  c.facts.global_load_sector_use_pct =
      SourcedNumber{12.5, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"};
  const Diagnosis diagnosis = c.diagnose(PageKind::raw, "default");
  ASSERT_EQ(diagnosis.causes.size(), 1U);
  const DiagnosisCause& cause = diagnosis.causes[0];
  EXPECT_EQ(cause.category, DiagnosisCategory::uncoalesced_access);
  EXPECT_NE(cause.title.find("12.5% of each loaded 32-byte sector used (up to 8.0x"),
            std::string::npos)
      << cause.title;
  EXPECT_NE(cause.title.find("not the roofline"), std::string::npos) << cause.title;
  // Without rule or source page: the unused bytes' share of the memory-bound time.
  EXPECT_NEAR(*cause.estimated_speedup_pct, 0.875 * 89.1, 0.01);
}

std::vector<DiagnosisCategory> order_of(const Diagnosis& diagnosis) {
  std::vector<DiagnosisCategory> order;
  for (const DiagnosisCause& cause : diagnosis.causes) {
    order.push_back(cause.category);
  }
  return order;
}

TEST(Diagnose, BreaksATieBetweenAModelAndAMeasuredRoofByEvidenceNotByCategoryOrder) {
  // The clean column-store transpose (mat_f32, H200): ncu's MIO stall estimate 22.33% equals the
  // DRAM verdict's headroom (memory SOL 77.67%); mio_pressure came first only because its enum
  // is declared before dram_bound.
  Case c = launch_of(
      {8192, 1, 1},
      {rule("CPIStall", "global", 22.33,
            "On average, each warp of this workload spends 59.5 cycles being stalled waiting for "
            "the MIO (memory input/output) instruction queue to be not full. More text.")});
  c.facts.roofline.memory_sol_pct = 77.67;
  c.facts.roofline.compute_sol_pct = 15.72;
  c.facts.roofline.bottleneck = Bottleneck::memory;
  c.facts.dram_throughput_pct = SourcedNumber{77.67, "DRAM Throughput"};
  const Diagnosis diagnosis = c.diagnose();
  EXPECT_EQ(order_of(diagnosis), (std::vector<DiagnosisCategory>{DiagnosisCategory::dram_bound,
                                                                 DiagnosisCategory::mio_pressure}));
  EXPECT_EQ(diagnosis.causes[0].estimate_confidence, EstimateConfidence::high);
  EXPECT_EQ(diagnosis.causes[1].estimate_confidence, EstimateConfidence::medium);
}

TEST(Diagnose, LeadsAStreamAtEightyNineNinePercentOfDramPeakWithItsRoofNotALoadImbalance) {
  // The streaming copy nobody here wrote (H100): 89.9% of DRAM peak, nothing to fix; ncu's
  // AchievedOccupancy estimate, 10.07%, tied the DRAM verdict and came first by category order.
  Case c = launch_of({65536, 1, 1}, {rule("AchievedOccupancy", "global", 10.07)});
  c.facts.roofline.memory_sol_pct = 89.93;
  c.facts.roofline.compute_sol_pct = 5.7;
  c.facts.roofline.headroom_pct = 10.07;
  c.facts.roofline.bottleneck = Bottleneck::memory;
  c.facts.dram_throughput_pct = SourcedNumber{89.93, "DRAM Throughput"};
  c.facts.achieved_occupancy_pct = SourcedNumber{84.7, "Achieved Occupancy"};
  c.facts.theoretical_occupancy_pct = SourcedNumber{100, "Theoretical Occupancy"};
  const Diagnosis diagnosis = c.diagnose();
  EXPECT_EQ(order_of(diagnosis),
            (std::vector<DiagnosisCategory>{DiagnosisCategory::dram_bound,
                                            DiagnosisCategory::load_imbalance}));
  EXPECT_EQ(diagnosis.causes.at(0).estimated_speedup_pct,
            diagnosis.causes.at(1).estimated_speedup_pct);
}

TEST(Diagnose, RanksADefectWithMeasuredExcessAheadOfTheRoofItTiesWith) {
  // The one-warp softmax read without its source page: the spills' estimate is ncu's stall
  // estimate, equal to the DRAM verdict's headroom; the spill traffic is part of those bytes.
  Case c = launch_of(
      {4096, 1, 1},
      {rule("CPIStall", "global", 29.54,
            "On average, each warp of this workload spends 5.6 cycles being stalled waiting for a "
            "scoreboard dependency on a L1TEX (local, global, surface, texture) operation.")});
  c.facts.roofline.memory_sol_pct = 70.46;
  c.facts.roofline.bottleneck = Bottleneck::memory;
  c.facts.dram_throughput_pct = SourcedNumber{70.46, "DRAM Throughput"};
  c.facts.spill_requests = SourcedNumber{1048576, "Local Memory Spilling Requests"};
  const Diagnosis diagnosis = c.diagnose();
  ASSERT_EQ(diagnosis.causes.size(), 2U);
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::register_spills);
  EXPECT_EQ(diagnosis.causes[0].estimated_speedup_pct, diagnosis.causes[1].estimated_speedup_pct);
  EXPECT_EQ(diagnosis.causes[1].category, DiagnosisCategory::dram_bound);
}

/// A launch of a recorded ncu page (tests/fixtures/ncu/), its facts read as a report reads them.
struct Recorded {
  Capture capture;
  LaunchFacts facts;
  const KernelRecord* launch = nullptr;

  Diagnosis diagnose() const {
    DiagnosisInput input;
    input.launch = launch;
    input.facts = &facts;
    input.page = capture.page;
    input.metric_set = "deep";
    return kprof::diagnose(input);
  }
};

Recorded recorded(const std::string& page, std::string_view kernel) {
  Recorded out;
  Result<Capture> capture =
      read_ncu_csv_file(std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / page);
  if (!capture.ok()) {
    ADD_FAILURE() << capture.error().message;
    return out;
  }
  out.capture = std::move(capture).value();
  for (const KernelRecord& launch : out.capture.kernels) {
    if (launch.name == kernel || launch.name.starts_with(kernel)) {
      out.launch = &launch;
    }
  }
  if (out.launch == nullptr) {
    ADD_FAILURE() << kernel << " is not in " << page;
    return out;
  }
  const LaunchFactReader reader(out.capture, gpu_spec_of(out.capture));
  out.facts = reader.read(*out.launch);
  return out;
}

TEST(Diagnose, LeadsARecordedStreamAtNinetyPercentOfDramPeakWithItsRoof) {
  // add_kernel (recorded, 132 SMs): DRAM at 90.0% of peak, ncu's AchievedOccupancy estimate 10.0%,
  // the same as the DRAM verdict's headroom. The occupancy gap is no defect of a kernel at its
  // roof.
  const Recorded add = recorded("batch4_details_sections_rules.csv", "add_kernel");
  ASSERT_NE(add.launch, nullptr);
  const Diagnosis diagnosis = add.diagnose();
  ASSERT_GE(diagnosis.causes.size(), 2U);
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::dram_bound);
  EXPECT_EQ(diagnosis.causes[1].category, DiagnosisCategory::load_imbalance);
}

TEST(Diagnose, CapsAnEstimateThatKeepsTheWorkAtTheRooflinesHeadroomSoTheRoofLeads) {
  // A stream at 89.9% of DRAM peak with a partial last wave: more even waves move the same bytes,
  // so they gain at most the 10.1% the memory unit lacks of its peak, not ncu's 25%.
  Case c = launch_of({8192, 1, 1}, {rule("LaunchConfiguration", "global", 25.0)});
  c.facts.roofline.memory_sol_pct = 89.9;
  c.facts.roofline.compute_sol_pct = 6.0;
  c.facts.roofline.headroom_pct = 10.1;
  c.facts.roofline.bottleneck = Bottleneck::memory;
  c.facts.dram_throughput_pct = SourcedNumber{89.9, "DRAM Throughput"};
  c.facts.waves_per_sm = SourcedNumber{7.76, "Waves Per SM"};
  const Diagnosis diagnosis = c.diagnose();
  EXPECT_EQ(order_of(diagnosis), (std::vector<DiagnosisCategory>{DiagnosisCategory::dram_bound,
                                                                 DiagnosisCategory::tail_effect}));
  const DiagnosisCause& tail = diagnosis.causes.at(1);
  EXPECT_NEAR(*tail.estimated_speedup_pct, 10.1, 1e-9);
  EXPECT_TRUE(
      std::any_of(tail.evidence.begin(), tail.evidence.end(), [](const DiagnosisEvidence& e) {
        return e.metric == "roofline: headroom" && e.meaning.find("25.0%") != std::string::npos;
      }));
}

TEST(Diagnose, LeavesTheEstimateOfADefectThatWastesBytesAboveTheHeadroom) {
  // The strided load (vec_f32, H200): memory SOL 89.1% on sectors used to 12.5%; fixing the
  // access moves 8x fewer bytes, so ncu's 75% is not bounded by the 10.9% headroom.
  Case c = launch_of({8192, 1, 1}, {rule("UncoalescedGlobalAccess", "global", 75.12)});
  c.facts.roofline.memory_sol_pct = 89.08;
  c.facts.roofline.headroom_pct = 10.92;
  c.facts.roofline.bottleneck = Bottleneck::memory;
  const Diagnosis diagnosis = c.diagnose();
  ASSERT_FALSE(diagnosis.causes.empty());
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::uncoalesced_access);
  EXPECT_EQ(diagnosis.causes[0].estimated_speedup_pct, 75.12);
}

TEST(Diagnose, LeadsALaunchOfAFewMicrosecondsWithLaunchBoundWhateverItsGridsEstimate) {
  // 2.7 us and 4 blocks on 132 SMs: ncu's LaunchConfiguration promises 97%, but more blocks
  // cannot make a kernel shorter than its launch; batching or fusing can.
  Case c = launch_of({4, 1, 1}, {rule("LaunchConfiguration", "global", 96.97)});
  c.facts.duration_ns = SourcedNumber{2700, "Duration"};
  const Diagnosis diagnosis = c.diagnose();
  EXPECT_EQ(order_of(diagnosis),
            (std::vector<DiagnosisCategory>{DiagnosisCategory::launch_bound,
                                            DiagnosisCategory::too_few_blocks}));
  const std::string& title = diagnosis.causes.at(0).title;
  for (const char* fix : {"2.70 us", "batch", "fuse", "CUDA graph"}) {
    EXPECT_NE(title.find(fix), std::string::npos) << fix << " in " << title;
  }
}

TEST(Diagnose, LeadsARecordedOneBlockFillOfOnePointSevenMicrosecondsWithLaunchBound) {
  // PyTorch's fill of the planted atomic sum's output (H100, 2026-12-06): 2.27 us, one block,
  // ncu's LaunchConfiguration estimate 99.24%.
  const Recorded fill =
      recorded("planted/vec_f32/details.csv", "void at::vectorized_elementwise_kernel<4, ");
  ASSERT_NE(fill.launch, nullptr);
  const Diagnosis diagnosis = fill.diagnose();
  ASSERT_GE(diagnosis.causes.size(), 2U);
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::launch_bound);
  EXPECT_EQ(diagnosis.causes[1].category, DiagnosisCategory::too_few_blocks);
}

/// A SASS instruction of a source page with `samples` stall samples of `reason`.
SassInstruction sass(std::uint64_t address, std::string text, std::string reason = {},
                     double samples = 0) {
  SassInstruction out;
  out.address = address;
  out.text = std::move(text);
  out.counters.instructions_executed = 1000;
  out.counters.thread_instructions_executed = 32000;
  if (!reason.empty()) {
    out.counters.samples = samples;
    out.counters.stalls.emplace_back(std::move(reason), samples);
  }
  return out;
}

SourceLine source_line(int number, std::string text, std::vector<SassInstruction> instructions) {
  SourceLine line;
  line.line = number;
  line.text = std::move(text);
  for (const SassInstruction& instruction : instructions) {
    line.counters += instruction.counters;
  }
  line.instructions = std::move(instructions);
  return line;
}

/// A Triton kernel whose threads each follow a chain of dependent loads (`p = tl.load(next + p)`,
/// unrolled twice), launched with 4 programs from line 20 of its file.
struct PointerChase {
  std::vector<SourceBlock> blocks;
  KernelHotLines hot;
  KernelSource kernel_file;
  Case c;

  PointerChase() {
    SourceBlock block;
    block.file = "/work/run/chase.py";
    block.function = "chase_kernel";
    block.lines.push_back(source_line(11,
                                      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
                                      {sass(0x100, "S2R R0, SR_TID.X", "selected", 20),
                                       sass(0x110, "IMAD.WIDE R4, R0, 0x4, R10", "wait", 10)}));
    block.lines.push_back(source_line(13, "        p = tl.load(next_ptr + p)",
                                      {sass(0x120, "LDG.E R6, desc[UR4][R4.64]", "lg", 30),
                                       sass(0x130, "IMAD.WIDE R4, R6, 0x4, R10", "long_sb", 450),
                                       sass(0x140, "LDG.E R6, desc[UR4][R4.64]"),
                                       sass(0x150, "IMAD.WIDE R4, R6, 0x4, R10", "long_sb", 440)}));
    block.lines.push_back(source_line(14, "    tl.store(out_ptr + offs, p)",
                                      {sass(0x160, "STG.E desc[UR4][R8.64], R6", "long_sb", 50)}));
    blocks.push_back(std::move(block));
    kernel_file.path = "/work/run/chase.py";
    kernel_file.text =
        std::string(19, '\n') + "    chase_kernel[(4,)](nxt, out, steps, BLOCK=128)\n";
    c = launch_of({4, 1, 1},
                  {rule("LaunchConfiguration", "global", 96.97),
                   rule("CPIStall", "global", 90.0,
                        "On average, each warp of this workload spends 120.5 cycles being stalled "
                        "waiting for a scoreboard dependency on a L1TEX (local, global, surface, "
                        "texture) operation. More text.")});
    c.launch.name = "chase_kernel";
  }

  Diagnosis diagnose(const KernelSource* source) const {
    DiagnosisInput input;
    input.launch = &c.launch;
    input.facts = &c.facts;
    input.page = PageKind::details;
    input.metric_set = "deep";
    input.blocks = &blocks;
    input.hot_lines = &hot;
    input.kernel_source = source;
    return kprof::diagnose(input);
  }
};

TEST(Diagnose, NamesTheLoadAChainOfDependentLoadsWaitsOnAndTheLaunchForTooFewBlocks) {
  // The load the warps wait on is where the fix goes (independent work per program, the chain
  // broken up); the launch is where the grid is set. Before, "too few blocks" had neither.
  const PointerChase chase;
  const Diagnosis diagnosis = chase.diagnose(&chase.kernel_file);
  ASSERT_FALSE(diagnosis.causes.empty());
  const DiagnosisCause& first = diagnosis.causes.front();
  EXPECT_EQ(first.category, DiagnosisCategory::too_few_blocks);
  ASSERT_TRUE(first.line.has_value());
  EXPECT_EQ(first.line->line, 13);
  EXPECT_NE(first.title.find("the global load at chase.py:13"), std::string::npos) << first.title;
  ASSERT_TRUE(first.launch.has_value());
  EXPECT_EQ(first.launch->file, "/work/run/chase.py");
  EXPECT_EQ(first.launch->line, 20);
  EXPECT_EQ(first.launch->source, "chase_kernel[(4,)](nxt, out, steps, BLOCK=128)");
  for (const std::string& note : diagnosis.notes) {
    EXPECT_EQ(note.find("launch"), std::string::npos) << note;
  }
}

TEST(Diagnose, SaysWhyNoLaunchLineIsShownForACaptureReadOnItsOwnOrAFileThatDoesNotLaunchIt) {
  const PointerChase chase;
  const auto has_note = [](const Diagnosis& diagnosis, std::string_view text) {
    return std::any_of(
        diagnosis.notes.begin(), diagnosis.notes.end(),
        [&](const std::string& note) { return note.find(text) != std::string::npos; });
  };
  const Diagnosis bare = chase.diagnose(nullptr);
  EXPECT_FALSE(bare.causes.front().launch.has_value());
  EXPECT_TRUE(has_note(bare, "a capture read on its own does not say which file launched"));
  KernelSource other = chase.kernel_file;
  other.text = "def kernel_function(x):\n    return helpers.run(x)\n";
  EXPECT_TRUE(has_note(chase.diagnose(&other),
                       "chase_kernel is not launched in chase.py (no `chase_kernel[grid](...)`"));
}

std::string cpi_stall(std::string_view waiting_for, double share) {
  return fmt::format("On average, each warp of this workload spends 12.0 cycles being stalled "
                     "waiting for {}. More text. This stall type represents about {}% of the "
                     "total average of 40.0 cycles between issuing two instructions.",
                     waiting_for, share);
}

constexpr std::string_view k_l1tex = "a scoreboard dependency on a L1TEX (local, global, surface, "
                                     "texture) operation";
constexpr std::string_view k_barrier = "sibling warps at a CTA barrier";

bool says_stalls_are_spread(const DiagnosisCause& cause) {
  return std::any_of(cause.evidence.begin(), cause.evidence.end(), [](const DiagnosisEvidence& e) {
    return e.meaning.find("no single stall reason dominates") != std::string::npos &&
           e.meaning.find("rebalances") != std::string::npos;
  });
}

TEST(Diagnose, LowersTheConfidenceOfNcusStallEstimatesWhenTheSourcePageShowsNoReasonDominating) {
  // Long-scoreboard 30%, MIO 25%, barrier 20%, issuing 15%, fixed latency 10% of the samples:
  // hiding the long-scoreboard waits moves the warps to the MIO queue and the barrier.
  SourceBlock block;
  block.file = "/work/run/spread.cu";
  block.function = "spread_kernel";
  block.lines.push_back(source_line(20, "  float v = x[i];",
                                    {sass(0x100, "LDG.E R2, desc[UR4][R4.64]", "selected", 150),
                                     sass(0x110, "FMUL R3, R2, R2", "long_sb", 300)}));
  block.lines.push_back(source_line(21, "  tile[threadIdx.x] = v; __syncthreads();",
                                    {sass(0x120, "STS [R6], R3", "mio", 250),
                                     sass(0x130, "BAR.SYNC.DEFER_BLOCKING 0x0", "barrier", 200),
                                     sass(0x140, "IADD3 R7, R7, 0x1, RZ", "wait", 100)}));
  const std::vector<SourceBlock> blocks{block};
  const KernelHotLines hot;
  Case c = launch_of({8192, 1, 1}, {rule("CPIStall", "global", 30.0, cpi_stall(k_l1tex, 30.0)),
                                    rule("AchievedOccupancy", "global", 25.0)});
  c.facts.achieved_occupancy_pct = SourcedNumber{60, "Achieved Occupancy"};
  c.facts.theoretical_occupancy_pct = SourcedNumber{100, "Theoretical Occupancy"};
  DiagnosisInput input;
  input.launch = &c.launch;
  input.facts = &c.facts;
  input.page = PageKind::details;
  input.blocks = &blocks;
  input.hot_lines = &hot;
  const Diagnosis diagnosis = kprof::diagnose(input);
  for (const DiagnosisCategory category :
       {DiagnosisCategory::memory_latency, DiagnosisCategory::load_imbalance}) {
    const auto cause =
        std::find_if(diagnosis.causes.begin(), diagnosis.causes.end(),
                     [&](const DiagnosisCause& x) { return x.category == category; });
    ASSERT_NE(cause, diagnosis.causes.end()) << to_string(category);
    EXPECT_EQ(cause->estimate_confidence, EstimateConfidence::low) << to_string(category);
    EXPECT_TRUE(says_stalls_are_spread(*cause)) << to_string(category);
  }
}

TEST(Diagnose, ReadsFromNcusStallRulesWhetherOneStallReasonDominatesWithoutASourcePage) {
  Case spread =
      launch_of({8192, 1, 1}, {rule("CPIStall", "global", 31.2, cpi_stall(k_l1tex, 31.2)),
                               rule("CPIStall", "global", 28.4, cpi_stall(k_barrier, 28.4))});
  const Diagnosis spread_diagnosis = spread.diagnose();
  ASSERT_EQ(spread_diagnosis.causes.size(), 2U);
  for (const DiagnosisCause& cause : spread_diagnosis.causes) {
    EXPECT_EQ(cause.estimate_confidence, EstimateConfidence::low) << cause.title;
    EXPECT_TRUE(says_stalls_are_spread(cause)) << cause.title;
  }
  // The pointer chase's one stall: 93.9% of the cycles wait on the load; ncu's estimate stands.
  Case dominated =
      launch_of({8192, 1, 1}, {rule("CPIStall", "global", 93.9, cpi_stall(k_l1tex, 93.9))});
  const Diagnosis dominated_diagnosis = dominated.diagnose();
  ASSERT_EQ(dominated_diagnosis.causes.size(), 1U);
  EXPECT_EQ(dominated_diagnosis.causes[0].estimate_confidence, EstimateConfidence::medium);
  EXPECT_FALSE(says_stalls_are_spread(dominated_diagnosis.causes[0]));
}

TEST(Diagnose, WritesTheFixOfATritonKernelInTritonsTermsAtItsLaunch) {
  const PointerChase chase;
  const Diagnosis diagnosis = chase.diagnose(&chase.kernel_file);
  const std::string& fix = diagnosis.causes.at(0).fix;
  for (const char* words :
       {"one program per SM (132 SMs)", "the launch (chase.py:20)", "BLOCK", "triton.cdiv"}) {
    EXPECT_NE(fix.find(words), std::string::npos) << words << " in " << fix;
  }
  EXPECT_EQ(fix.find("CUDA"), std::string::npos) << fix;
}

TEST(Diagnose, TakesABareKernelNameForTritonsUnlessTheKernelFileDeclaresItInCuda) {
  Case c = launch_of({8192, 1, 1}, {rule("ThreadDivergence", "global", 40.0)});
  c.launch.name = "lane_branch";
  EXPECT_NE(c.diagnose().causes.at(0).fix.find("tl.where"), std::string::npos);
  KernelSource source;
  source.path = "kernel.py";
  source.text = R"(src = 'extern "C" __global__ void lane_branch(float* x) {}')";
  DiagnosisInput input;
  input.launch = &c.launch;
  input.facts = &c.facts;
  input.page = PageKind::details;
  input.kernel_source = &source;
  const std::string fix = kprof::diagnose(input).causes.at(0).fix;
  EXPECT_NE(fix.find("threadIdx.x / 32"), std::string::npos) << fix;
  EXPECT_EQ(fix.find("tl.where"), std::string::npos) << fix;
}

TEST(Diagnose, WritesTheFixOfACudaKernelInCudaTermsAtItsLine) {
  Case c = launch_of({8192, 1, 1}, {rule("UncoalescedSharedAccess", "global", 92.33)});
  c.launch.name = "transpose_smem_kernel(const float *, float *, int, int)";
  const Diagnosis diagnosis = c.diagnose();
  ASSERT_FALSE(diagnosis.causes.empty());
  const std::string& fix = diagnosis.causes[0].fix;
  EXPECT_NE(fix.find("__shared__ float tile[32][32 + 1]"), std::string::npos) << fix;
  EXPECT_EQ(fix.find("num_warps"), std::string::npos) << fix;
}

TEST(Diagnose, WritesBothLanguagesFixesWhenTheCaptureDoesNotShowTheKernelsLanguage) {
  Case c = launch_of({8192, 1, 1}, {rule("ThreadDivergence", "global", 40.0)});
  c.launch.name.clear();
  const Diagnosis diagnosis = c.diagnose();
  ASSERT_FALSE(diagnosis.causes.empty());
  const std::string& fix = diagnosis.causes[0].fix;
  EXPECT_NE(fix.find("In Triton: "), std::string::npos) << fix;
  EXPECT_NE(fix.find("tl.where"), std::string::npos) << fix;
  EXPECT_NE(fix.find(" In CUDA C++: "), std::string::npos) << fix;
}

TEST(Diagnose, WritesAFixOfTheTensorCoresThatNamesInputPrecision) {
  // The fp32 GEMM with tl.dot(..., input_precision="ieee") (gemm_f32, H200), read from its pages.
  Case c = launch_of({16, 16, 1});
  c.facts.tensor_pipe_pct = SourcedNumber{0, "sm__pipe_tensor_cycles_active"};
  SourceBlock block;
  block.file = "/work/main/tests/planted/gemm_f32/matmul_ieee.py";
  block.function = "matmul_fp32_ieee_kernel";
  block.lines.push_back(source_line(
      18, "        acc += tl.dot(a, b, input_precision=\"ieee\")",
      {sass(0x100, "FFMA R4, R8, R12, R4", "math", 700), sass(0x110, "FFMA R5, R9, R12, R5")}));
  const std::vector<SourceBlock> blocks{block};
  const KernelHotLines hot;
  DiagnosisInput input;
  input.launch = &c.launch;
  input.facts = &c.facts;
  input.page = PageKind::details;
  input.blocks = &blocks;
  input.hot_lines = &hot;
  const Diagnosis diagnosis = kprof::diagnose(input);
  ASSERT_FALSE(diagnosis.causes.empty());
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::tensor_cores_unused);
  const std::string& fix = diagnosis.causes[0].fix;
  EXPECT_NE(fix.find("matmul_ieee.py:18"), std::string::npos) << fix;
  EXPECT_NE(fix.find("input_precision=\"tf32\""), std::string::npos) << fix;
}

/// Runs the diagnosis of `c` with a source page of one block.
Diagnosis diagnose_with_code(const Case& c, const SourceBlock& block) {
  const std::vector<SourceBlock> blocks{block};
  const KernelHotLines hot;
  DiagnosisInput input;
  input.launch = &c.launch;
  input.facts = &c.facts;
  input.page = PageKind::details;
  input.metric_set = "deep";
  input.blocks = &blocks;
  input.hot_lines = &hot;
  return kprof::diagnose(input);
}

const DiagnosisCause* cause_of(const Diagnosis& diagnosis, DiagnosisCategory category) {
  for (const DiagnosisCause& cause : diagnosis.causes) {
    if (cause.category == category) {
      return &cause;
    }
  }
  return nullptr;
}

/// A global load that moves `sectors` L2 sectors, `excessive` of them more than it needs.
SassInstruction load_moving(std::uint64_t address, std::string text, double sectors,
                            double excessive, std::string reason = {}, double samples = 0) {
  SassInstruction out = sass(address, std::move(text), std::move(reason), samples);
  out.counters.l2_sectors = sectors;
  out.counters.l2_sectors_excessive = excessive;
  out.counters.l2_sectors_ideal = sectors - excessive;
  return out;
}

/// The planted pointer chase on the H100 (chase_i32, 2026-12-06): `p = next[p]` unrolled, each
/// load's address computed from the value the load before returned; memory SOL 67.3% on sectors
/// of which 87% are excessive (ncu's UncoalescedGlobalAccess 85.93%), long-scoreboard waits 100%.
/// With `chained` false the addresses come from the thread's index instead (a strided load).
Case chase_case(SourceBlock& block, bool chained) {
  block.file = "/work/run/chase.py";
  block.function = "chase_kernel";
  const std::string from = chained ? "R6" : "R0";
  block.lines.push_back(
      source_line(15, "        p = tl.load(next_ptr + p, mask=mask, other=0)",
                  {load_moving(0x100, "LDG.E R6, desc[UR4][R2.64]", 1000, 870),
                   sass(0x110, "LEA R2, P1, " + from + ", UR6, 0x2", "long_sb", 1000),
                   sass(0x120, "LEA.HI.X.SX32 R3, " + from + ", UR7, 0x2, P1"),
                   load_moving(0x130, "LDG.E R6, desc[UR4][R2.64]", 1000, 870),
                   sass(0x140, "LEA R2, P1, " + from + ", UR6, 0x2", "long_sb", 1000),
                   sass(0x150, "LEA.HI.X.SX32 R3, " + from + ", UR7, 0x2, P1"),
                   load_moving(0x160, "LDG.E R6, desc[UR4][R2.64]", 1000, 870),
                   sass(0x170, "LEA R2, P1, " + from + ", UR6, 0x2", "long_sb", 1000),
                   sass(0x180, "LEA.HI.X.SX32 R3, " + from + ", UR7, 0x2, P1"),
                   load_moving(0x190, "LDG.E R6, desc[UR4][R2.64]", 1000, 870)}));
  Case c = launch_of({4096, 1, 1}, {rule("UncoalescedGlobalAccess", "global", 85.93),
                                    rule("CPIStall", "global", 32.72, cpi_stall(k_l1tex, 96.0))});
  c.facts.roofline.memory_sol_pct = 67.28;
  c.facts.roofline.compute_sol_pct = 1.29;
  c.facts.roofline.headroom_pct = 32.72;
  c.facts.roofline.bottleneck = Bottleneck::memory;
  c.facts.dram_throughput_pct = SourcedNumber{67.2, "DRAM Throughput"};
  return c;
}

TEST(Diagnose, NamesAChainOfDependentLoadsMemoryLatencyWithTheSectorsItsDataAddressesWaste) {
  SourceBlock block;
  const Case c = chase_case(block, true);
  const Diagnosis diagnosis = diagnose_with_code(c, block);
  ASSERT_FALSE(diagnosis.causes.empty());
  const DiagnosisCause& first = diagnosis.causes.front();
  EXPECT_EQ(first.category, DiagnosisCategory::memory_latency);
  ASSERT_TRUE(first.line.has_value());
  EXPECT_EQ(first.line->line, 15);
  EXPECT_EQ(first.estimated_speedup_pct, 85.93); // the sectors are wasted: no headroom cap
  EXPECT_NE(first.title.find("Dependent loads at chase.py:15"), std::string::npos) << first.title;
  EXPECT_EQ(cause_of(diagnosis, DiagnosisCategory::uncoalesced_access), nullptr);
  EXPECT_EQ(cause_of(diagnosis, DiagnosisCategory::dram_bound), nullptr);
}

TEST(Diagnose, KeepsUncoalescedAccessForLoadsWhoseAddressesAreNotLoaded) {
  SourceBlock block;
  const Case c = chase_case(block, false);
  const Diagnosis diagnosis = diagnose_with_code(c, block);
  ASSERT_FALSE(diagnosis.causes.empty());
  const DiagnosisCause& first = diagnosis.causes.front();
  EXPECT_EQ(first.category, DiagnosisCategory::uncoalesced_access);
  EXPECT_NE(first.title.find("Uncoalesced global loads at chase.py:15"), std::string::npos)
      << first.title;
}

/// The planted tail on the H100 (compute_f32/cuda_tail_wave, 2026-12-06): 265 blocks of 1024
/// threads, two per SM, so one wave and one block; compute SOL 62.8%, the SMs active for 161,039
/// of the 244,119 elapsed cycles.
Case tail_case(double active_cycles) {
  Case c = launch_of({265, 1, 1}, {rule("LaunchConfiguration", "global", 50.0),
                                   rule("AchievedOccupancy", "local", 25.47)});
  c.launch.block = {1024, 1, 1};
  c.facts.roofline.compute_sol_pct = 62.77;
  c.facts.roofline.memory_sol_pct = 0.44;
  c.facts.roofline.headroom_pct = 37.23;
  c.facts.roofline.bottleneck = Bottleneck::compute;
  c.facts.sm_active_cycles = SourcedNumber{active_cycles, "SM Active Cycles"};
  c.facts.elapsed_cycles = SourcedNumber{244119, "Elapsed Cycles"};
  return c;
}

TEST(Diagnose, LeadsWithAPartialLastWaveWhenTheSmsSitIdleForTheRoofsDistance) {
  const Diagnosis diagnosis = tail_case(161038.61).diagnose();
  ASSERT_GE(diagnosis.causes.size(), 2U);
  const DiagnosisCause& tail = diagnosis.causes[0];
  EXPECT_EQ(tail.category, DiagnosisCategory::tail_effect);
  EXPECT_NEAR(*tail.estimated_speedup_pct, 34.03, 0.01); // the idle share, under ncu's 50%
  EXPECT_EQ(diagnosis.causes[1].category, DiagnosisCategory::compute_bound);
  EXPECT_NEAR(*diagnosis.causes[1].estimated_speedup_pct, 100 - 62.77 / (161038.61 / 244119), 0.01);
}

TEST(Diagnose, BoundsAPartialLastWaveByTheSmsIdleShareSoABusyKernelLeadsWithItsRoof) {
  // The same grid with the SMs active 97% of the cycles (as the clean twin's, 98.4%).
  const Diagnosis diagnosis = tail_case(236795).diagnose();
  ASSERT_GE(diagnosis.causes.size(), 2U);
  EXPECT_EQ(diagnosis.causes[0].category, DiagnosisCategory::compute_bound);
  EXPECT_EQ(diagnosis.causes[1].category, DiagnosisCategory::tail_effect);
  EXPECT_NEAR(*diagnosis.causes[1].estimated_speedup_pct, 3.0, 0.01);
}

TEST(Diagnose, TakesAnOccupancyGapThatNcuRatesLocallyForImbalanceOnlyWhenSmsSitIdle) {
  // The planted skewed partition and its even twin on the H100 (compute_f32, 2026-12-06): 4224
  // blocks of 64 threads; the twin at 88.6% of the compute peak with its SMs active 96.6% of the
  // cycles, the skewed kernel's SMs 29.4%.
  const auto imbalance_case = [](double active) {
    Case c = launch_of({4224, 1, 1}, {rule("AchievedOccupancy", "local", 41.1)});
    c.launch.block = {64, 1, 1};
    c.facts.roofline.compute_sol_pct = 88.55;
    c.facts.roofline.memory_sol_pct = 0.82;
    c.facts.roofline.headroom_pct = 11.45;
    c.facts.roofline.bottleneck = Bottleneck::compute;
    c.facts.achieved_occupancy_pct = SourcedNumber{58.9, "Achieved Occupancy"};
    c.facts.theoretical_occupancy_pct = SourcedNumber{100, "Theoretical Occupancy"};
    c.facts.sm_active_cycles = SourcedNumber{active, "SM Active Cycles"};
    c.facts.elapsed_cycles = SourcedNumber{100, "Elapsed Cycles"};
    return c;
  };
  const Diagnosis even = imbalance_case(96.6).diagnose();
  EXPECT_EQ(cause_of(even, DiagnosisCategory::load_imbalance), nullptr);
  EXPECT_EQ(order_of(even), (std::vector<DiagnosisCategory>{DiagnosisCategory::compute_bound}));
  const Diagnosis skewed = imbalance_case(29.4).diagnose();
  EXPECT_NE(cause_of(skewed, DiagnosisCategory::load_imbalance), nullptr);
}

/// The planted shared-memory re-read on the H100 (compute_f32/cuda_shared_reread, 2026-12-06):
/// `acc += tile[(threadIdx.x + r) & 255] * 0.5f`, a shared load per add; compute SOL 90.2% with
/// the L1/shared pipe at `l1` of its peak.
Case shared_reread_case(SourceBlock& block, double l1) {
  block.file = "/work/run/planted.cu";
  block.function = "shared_reread_kernel";
  block.lines.push_back(
      source_line(525, "    acc += tile[(threadIdx.x + r) & 255] * 0.5f;",
                  {sass(0x100, "LOP3.LUT R5, R4, 0xff, RZ, 0xc0, !PT", "math", 100),
                   sass(0x110, "LDS R6, [R5]", "not_selected", 300),
                   sass(0x120, "FFMA R7, R6, 0.5, R7", "wait", 100)}));
  block.lines.push_back(
      source_line(524, "  for (int r = 0; r < reps; ++r) {",
                  {sass(0x130, "IADD3 R4, R4, 0x1, RZ", "selected", 50),
                   sass(0x140, "ISETP.NE.AND P0, PT, R4, R8, PT", "selected", 50)}));
  Case c = launch_of({4096, 1, 1});
  c.launch.block = {256, 1, 1};
  c.facts.roofline.compute_sol_pct = 90.18;
  c.facts.roofline.memory_sol_pct = 68.34;
  c.facts.roofline.headroom_pct = 9.82;
  c.facts.roofline.bottleneck = Bottleneck::compute;
  c.facts.l1_throughput_pct = SourcedNumber{l1, "L1/TEX Cache Throughput"};
  return c;
}

TEST(Diagnose, NamesMioPressureWhenAComputeBoundKernelKeepsItsSharedMemoryPipeNearItsRoof) {
  SourceBlock block;
  const Case c = shared_reread_case(block, 71.07);
  const Diagnosis diagnosis = diagnose_with_code(c, block);
  ASSERT_FALSE(diagnosis.causes.empty());
  const DiagnosisCause& first = diagnosis.causes.front();
  EXPECT_EQ(first.category, DiagnosisCategory::mio_pressure);
  ASSERT_TRUE(first.line.has_value());
  EXPECT_EQ(first.line->line, 525);
  EXPECT_NEAR(*first.estimated_speedup_pct, 20.0, 1e-9); // 1 of the 5 instructions
  EXPECT_EQ(cause_of(diagnosis, DiagnosisCategory::compute_bound), nullptr);
}

TEST(Diagnose, LeavesAComputeBoundKernelWhoseSharedMemoryPipeIsBelowItsRoofAtItsRoof) {
  SourceBlock block;
  const Case c = shared_reread_case(block, 59.13); // the bank-conflict twin's column reads
  const Diagnosis diagnosis = diagnose_with_code(c, block);
  ASSERT_FALSE(diagnosis.causes.empty());
  EXPECT_EQ(diagnosis.causes.front().category, DiagnosisCategory::compute_bound);
  EXPECT_EQ(cause_of(diagnosis, DiagnosisCategory::mio_pressure), nullptr);
}

TEST(Diagnose, PutsBarrierStallsSampledAfterTheBarrierAtTheBarriersLine) {
  // The planted single producer on the H100 (compute_f32/cuda_single_producer, 2026-12-06): the
  // warps held at `__syncthreads()` (line 473) were sampled at the next instruction, the loop
  // bound's load the compiler placed after the barrier (line 467).
  SourceBlock block;
  block.file = "/work/run/planted.cu";
  block.function = "single_producer_kernel";
  block.lines.push_back(source_line(473, "    __syncthreads();",
                                    {sass(0x100, "BAR.SYNC.DEFER_BLOCKING 0x0", "wait", 26)}));
  block.lines.push_back(source_line(467, "  for (int r = 0; r < rounds; ++r) {",
                                    {sass(0x110, "LDC R6, c[0x0][0x224]", "barrier", 17862)}));
  block.lines.push_back(source_line(474, "    acc += tile[threadIdx.x];",
                                    {sass(0x120, "LDS R5, [R4]", "selected", 10)}));
  Case c = launch_of({4096, 1, 1}, {rule("CPIStall", "global", 57.61, cpi_stall(k_barrier, 80))});
  c.launch.block = {256, 1, 1};
  const Diagnosis diagnosis = diagnose_with_code(c, block);
  const DiagnosisCause* barrier = cause_of(diagnosis, DiagnosisCategory::barrier_stalls);
  ASSERT_NE(barrier, nullptr);
  ASSERT_TRUE(barrier->line.has_value());
  EXPECT_EQ(barrier->line->line, 473);
}

TEST(DiagnosisJson, WritesEveryMemberOfACause) {
  DiagnosisCause cause;
  cause.category = DiagnosisCategory::bank_conflicts;
  cause.title = "Shared-memory bank conflicts at k.cu:12";
  cause.fix = "Pad the shared tile.";
  cause.line = DiagnosisLine{"/src/k.cu", 12};
  cause.launch = DiagnosisLaunch{"/src/kernel.py", 40, "k<<<grid, 256>>>(x, n);"};
  cause.evidence.push_back({"ncu rule X (global estimate)", 93.76, "why"});
  cause.evidence.push_back({"roofline", std::string("memory-bound"), "verdict"});
  cause.estimated_speedup_pct = 93.76;
  cause.estimate_confidence = EstimateConfidence::high;
  cause.source = "ncu:UncoalescedSharedAccess";
  const Json json = cause;
  EXPECT_EQ(
      json.dump(),
      R"json({"category":"bank_conflicts","title":"Shared-memory bank conflicts at k.cu:12",)json"
      R"json("fix":"Pad the shared tile.",)json"
      R"json("line":{"file":"/src/k.cu","line":12},"launch":{"file":"/src/kernel.py",)json"
      R"json("line":40,"source":"k<<<grid, 256>>>(x, n);"},"evidence":[{"metric":"ncu rule X )json"
      R"json((global estimate)","value":93.76,"meaning":"why"},{"metric":"roofline",)json"
      R"json("value":"memory-bound","meaning":"verdict"}],"estimated_speedup_pct":93.76,)json"
      R"json("estimate_confidence":"high","source":"ncu:UncoalescedSharedAccess"})json");
}

} // namespace
} // namespace kprof

// Peak figures of the GPUs kprof knows, to turn achieved numbers into fractions of peak.
//
// The figures are leads from the vendor datasheets (dense math, no sparsity: half the sparse
// figure where a datasheet gives only that, as for TF32 and FP16 tensor), not measurements:
// clocks, power caps and MIG slices make real peaks lower. L2 sizes are what CUDA reports
// (device__attribute_l2_cache_size; the H200 fixtures read 62,914,560 = 60 MiB). The resident
// warps per SM are CUDA's per compute capability (64 for 8.0, 9.0 and 10.0, 48 for 8.9).
#include "kprof/analysis.hpp"
#include "kprof/strings.hpp"

#include <algorithm>
#include <cctype>

namespace kprof {
namespace {

constexpr double k_tb = 1e12;    // bytes per second in one TB/s
constexpr double k_tflop = 1e12; // operations per second in one TFLOP/s
constexpr double k_mib = 1024.0 * 1024.0;

struct KnownGpu {
  GpuSpec spec;
  /// Other spellings ncu (device__attribute_display_name) or KernelAgent's GPU table use for the
  /// same part.
  std::vector<std::string> aliases;
};

std::vector<KnownGpu> make_known_gpus() {
  return {
      {{"NVIDIA H100 80GB HBM3", "Hopper", 3.35 * k_tb, 67 * k_tflop, 989 * k_tflop, 132,
        50 * k_mib, 64, 494 * k_tflop, 989 * k_tflop},
       {"NVIDIA H100 SXM5 80GB"}},
      {{"NVIDIA H100 PCIe", "Hopper", 2.0 * k_tb, 51 * k_tflop, 756 * k_tflop, 114, 50 * k_mib, 64,
        378 * k_tflop, 756 * k_tflop},
       {"NVIDIA H100 PCIe 80GB"}},
      // H100 NVL: the datasheet's 1,671 TFLOP/s BF16 is with sparsity; dense is half.
      {{"NVIDIA H100 NVL", "Hopper", 3.9 * k_tb, 60 * k_tflop, 835 * k_tflop, 132, 50 * k_mib, 64,
        417.5 * k_tflop, 835 * k_tflop},
       {"NVIDIA H100 NVL 94GB"}},
      {{"NVIDIA H200", "Hopper", 4.8 * k_tb, 67 * k_tflop, 989 * k_tflop, 132, 60 * k_mib, 64,
        494 * k_tflop, 989 * k_tflop},
       {}},
      {{"NVIDIA A100-SXM4-80GB", "Ampere", 2.039 * k_tb, 19.5 * k_tflop, 312 * k_tflop, 108,
        40 * k_mib, 64, 156 * k_tflop, 312 * k_tflop},
       {"NVIDIA A100 SXM4 80GB"}},
      {{"NVIDIA A100 80GB PCIe", "Ampere", 1.935 * k_tb, 19.5 * k_tflop, 312 * k_tflop, 108,
        40 * k_mib, 64, 156 * k_tflop, 312 * k_tflop},
       {"NVIDIA A100 PCIe 80GB"}},
      {{"NVIDIA A100-SXM4-40GB", "Ampere", 1.555 * k_tb, 19.5 * k_tflop, 312 * k_tflop, 108,
        40 * k_mib, 64, 156 * k_tflop, 312 * k_tflop},
       {"NVIDIA A100-PCIE-40GB", "NVIDIA A100 SXM4 40GB", "NVIDIA A100 PCIe 40GB"}},
      // B200: the datasheet gives no L2 size; 126 MB is the commonly reported figure, unverified
      // here. The least certain figure of this table.
      {{"NVIDIA B200", "Blackwell", 8.0 * k_tb, 80 * k_tflop, 2250 * k_tflop, 148, 126 * k_mib, 64,
        1100 * k_tflop, 2250 * k_tflop},
       {}},
      {{"NVIDIA L40S", "Ada Lovelace", 0.864 * k_tb, 91.6 * k_tflop, 362 * k_tflop, 142, 96 * k_mib,
        48, 183 * k_tflop, 362 * k_tflop},
       {}},
  };
}

const std::vector<KnownGpu>& table() {
  static const std::vector<KnownGpu> k_table = make_known_gpus();
  return k_table;
}

} // namespace

std::optional<GpuSpec> find_gpu_spec(std::string_view device_name) {
  const std::string_view wanted = trim(device_name);
  for (const KnownGpu& gpu : table()) {
    if (equals_ignoring_case(gpu.spec.name, wanted)) {
      return gpu.spec;
    }
    for (const std::string& alias : gpu.aliases) {
      if (equals_ignoring_case(alias, wanted)) {
        return gpu.spec;
      }
    }
  }
  return std::nullopt;
}

const std::vector<GpuSpec>& known_gpus() {
  static const std::vector<GpuSpec> k_specs = [] {
    std::vector<GpuSpec> specs;
    for (const KnownGpu& gpu : table()) {
      specs.push_back(gpu.spec);
    }
    return specs;
  }();
  return k_specs;
}

} // namespace kprof

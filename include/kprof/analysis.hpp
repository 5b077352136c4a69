// kprof: from a Capture to facts: selection, per-kernel aggregation, summary, roofline.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"

namespace kprof {

/// Every column the analysis reads: the raw metric names and details-page labels of its facts
/// (duration, SOL, DRAM, tensor pipe, occupancy, cycles: see docs/metrics.md) and the run facts
/// of Capture::run_fact_columns() (the GPU's name). Each name once.
std::vector<std::string_view> analysis_columns();
/// The raw-page metrics the fp32 roofline is computed from (Roofline::fp32_flops_per_s and its
/// intensity): ncu's SpeedOfLightRooflineChart instruction rates, cycles per second, DRAM bytes
/// per second.
std::vector<std::string_view> fp32_roofline_columns();

/// What to read of a capture for a report with `set`: on the raw page, the set's metrics plus
/// analysis_columns(); a details page whole; every column when set.keep_all_columns ("all").
ReadOptions read_options_for(const MetricSet& set);

/// Which launches of one kernel name to keep. `longest`: the one with the largest duration
/// (KernelAgent's profiler keeps one launch per kernel; kprof's roofline of a name is the
/// longest launch's, so its metrics then come from the same launch).
enum class Select { first, last, max_cycles, longest, all };

std::string_view to_string(Select select);
/// Parses "first|last|max-cycles|longest|all" ("max_cycles" accepted too); usage error listing
/// the valid words otherwise.
Result<Select> parse_select(std::string_view word);

struct SelectOptions {
  Select select = Select::all;
  /// Keep only kernels whose name contains one of these substrings (empty: keep all).
  std::vector<std::string> kernel_filters;
  /// Keep only launches whose NVTX range equals this (empty: keep all). Used by batch.
  std::string nvtx_range;
};

/// no_kernels: "no kernel name contains 'A' or 'B' (kernels in WHERE: x, y, ...)", what
/// analyse() says when `kernel_filters` keep no launch and what `kprof mcp` says when a kernel
/// filter matches no kernel of a round. `names` are listed once each, in order, at most 8.
Error no_kernel_named(const std::vector<std::string>& kernel_filters,
                      const std::vector<std::string>& names, std::string_view where);

/// Indices into capture.kernels of the launches kept, in capture order. Selection applies per
/// distinct kernel name; max-cycles uses sm__cycles_active.avg, then gpu__time_duration.sum,
/// longest the other way round; both fall back to last when neither is present.
std::vector<std::size_t> select_kernels(const Capture& capture, const SelectOptions& options);

/// What a GPU can do at most; used to turn achieved numbers into fractions of peak.
struct GpuSpec {
  std::string name;                      ///< canonical name ("NVIDIA H200")
  std::string architecture;              ///< "Hopper"
  double dram_bandwidth_bytes_per_s = 0; ///< vendor datasheet peak
  double fp32_flops = 0;                 ///< dense, non-tensor
  double bf16_tensor_flops = 0;          ///< dense
  int sm_count = 0;
  double l2_bytes = 0;
  int max_warps_per_sm = 0;     ///< resident warps an SM holds at most (occupancy's 100%)
  double tf32_tensor_flops = 0; ///< dense
  double fp16_tensor_flops = 0; ///< dense
};

/// The spec whose name matches `device_name` (as ncu prints device__attribute_display_name,
/// "NVIDIA H200", "NVIDIA H100 80GB HBM3", ...). Case-insensitive; nullopt when unknown.
std::optional<GpuSpec> find_gpu_spec(std::string_view device_name);

/// Every known GPU (at least H100, H200, A100, B200, L40S).
const std::vector<GpuSpec>& known_gpus();

/// The spec of the GPU `capture` names (device__attribute_display_name), when kprof knows it.
/// The one way analyse() and the report find a capture's GPU.
std::optional<GpuSpec> gpu_spec_of(const Capture& capture);

enum class Bottleneck { memory, compute, latency };
/// "memory", "compute" or "latency".
std::string_view to_string(Bottleneck bottleneck);

/// The roofline verdict of one kernel (or of an aggregate of its launches).
struct Roofline {
  std::optional<double> compute_sol_pct; ///< sm__throughput.avg.pct_of_peak_sustained_elapsed
  std::optional<double> memory_sol_pct;  ///< gpu__compute_memory_throughput.avg.pct_of_...
  Bottleneck bottleneck = Bottleneck::latency;
  /// 100 - max(compute, memory): how far the busier unit is from its peak.
  std::optional<double> headroom_pct;
  std::optional<double> tensor_pipe_pct; ///< sm__pipe_tensor_cycles_active.avg.pct_of_...
  bool tensor_cores_used = false;
  std::optional<double>
      dram_bytes_per_s; ///< (read+write bytes) / duration, or dram__bytes.sum.per_second
  std::optional<double> dram_peak_fraction; ///< dram_bytes_per_s / GpuSpec bandwidth (GPU known)
  /// Achieved fp32 FLOP/s, (fadd + fmul + 2 ffma) per cycle x cycles per second (ncu's
  /// SpeedOfLightRooflineChart metrics; nullopt without them). 0 when no fp32 instruction ran.
  std::optional<double> fp32_flops_per_s;
  /// fp32_flops_per_s / dram_bytes_per_s: the kernel's point on the fp32 roofline (nullopt unless
  /// both are known and positive).
  std::optional<double> fp32_flop_per_dram_byte;
  /// One sentence: why this verdict, with the numbers ("memory-bound: memory SOL 90.3% vs
  /// compute 5.8%; DRAM 4.35 TB/s = 91% of H200 peak 4.80 TB/s"). When neither SOL was
  /// collected, bottleneck stays `latency`, headroom is empty and this says "no verdict: ...".
  std::string explanation;
};

/// Thresholds of the verdict: below `latency_pct` SOL on both units the kernel is
/// latency-bound/under-utilized; otherwise the busier unit bounds it (memory on a tie). A tensor
/// pipe at or above `tensor_in_use_pct` counts as tensor cores in use.
struct RooflineThresholds {
  double latency_pct = 60.0;
  double tensor_in_use_pct = 5.0;
};

/// Reads raw-page metrics or, on the details page, the matching section labels ("Duration",
/// "Compute (SM) Throughput", "Memory Throughput" [%], ...), converting units (us, Mbyte,
/// Tbyte/s, ...) to ns, bytes and bytes/s. A missing or NaN value leaves its field empty.
Roofline roofline_of(const Capture& capture, const KernelRecord& kernel,
                     const std::optional<GpuSpec>& gpu, const RooflineThresholds& thresholds = {});

/// True for a kernel of a library the candidate calls rather than writes: PyTorch (`at::`,
/// `c10::`), CUB, Thrust, CUTLASS, cuBLAS/cuBLASLt (`gemv`, `gemmSN`, `nvjet`, `sm90_xmma`, ...),
/// cuDNN, NCCL, FlashAttention (`flash::`). Read from the name alone (docs/diagnosis.md lists
/// the patterns); a Triton or CUDA kernel of the candidate's own is never one.
bool is_library_kernel(std::string_view name);

/// One kernel name after selection: its launches and their aggregate.
struct KernelSummary {
  std::string name;
  std::vector<std::size_t> launches; ///< indices into capture.kernels
  /// Sum of gpu__time_duration.sum (details: "Duration") over the launches that report one;
  /// empty when none does.
  std::optional<double> duration_ns;
  std::optional<double> share; ///< duration / total duration, 0..1
  Roofline roofline;           ///< of the longest launch (the last if none is timed)
  bool library = false;        ///< is_library_kernel(name)
};

struct Summary {
  std::optional<double> total_duration_ns;
  std::string dominant_kernel; ///< name with the largest duration ("" if unknown)
  std::size_t launches = 0;
};

/// Selection + aggregation + roofline of one capture.
struct Analysis {
  std::vector<std::size_t> selected;  ///< indices into capture.kernels, capture order
  std::vector<KernelSummary> kernels; ///< one per distinct name, in first-seen order
  Summary summary;
  std::optional<GpuSpec> gpu;
  std::string gpu_name; ///< as the capture printed it ("" if absent)
};

/// A number read from a capture and the column it was read from: what a diagnosis's evidence
/// names ("Theoretical Occupancy" on a details page, "launch__occupancy_limit_registers" on a raw
/// page, "datasheet: NVIDIA H200" for a figure of the GPU table).
struct SourcedNumber {
  double value = 0;
  std::string metric;
};

/// What the diagnosis reads of one launch besides its rules, grid and block (docs/diagnosis.md
/// names the columns of each). A value is empty when the capture holds none of its columns: a
/// lean capture has few of them, a details page most.
struct LaunchFacts {
  std::optional<SourcedNumber> duration_ns;
  std::optional<SourcedNumber> sm_count;         ///< SMs of the GPU
  std::optional<SourcedNumber> waves_per_sm;     ///< grid / blocks one wave holds
  std::optional<SourcedNumber> max_warps_per_sm; ///< an SM's resident warps at most
  std::optional<SourcedNumber> theoretical_occupancy_pct;
  std::optional<SourcedNumber> achieved_occupancy_pct;
  std::optional<SourcedNumber> block_limit_registers;  ///< blocks per SM the registers allow
  std::optional<SourcedNumber> block_limit_shared_mem; ///< ... the shared memory allows
  std::optional<SourcedNumber> block_limit_warps;      ///< ... the block's warps allow
  std::optional<SourcedNumber> block_limit_blocks;     ///< ... the SM's block slots allow
  std::optional<SourcedNumber> block_limit_barriers;   ///< ... the barriers allow
  std::optional<SourcedNumber> registers_per_thread;
  std::optional<SourcedNumber> shared_mem_dynamic_bytes;   ///< per block
  std::optional<SourcedNumber> shared_mem_static_bytes;    ///< per block
  std::optional<SourcedNumber> shared_mem_allocated_bytes; ///< per block, all kinds
  std::optional<SourcedNumber> spill_requests;             ///< local-memory spill requests
  std::optional<SourcedNumber> branch_uniform_pct; ///< branch targets taken by the whole warp
  std::optional<SourcedNumber> divergent_branches; ///< per warp scheduler, average
  std::optional<SourcedNumber> active_threads_per_warp;
  std::optional<SourcedNumber> predicated_on_threads_per_warp; ///< active and not predicated off
  std::optional<SourcedNumber> global_load_sector_use_pct;     ///< bytes used of each loaded sector
  std::optional<SourcedNumber> dram_throughput_pct;
  std::optional<SourcedNumber> l2_throughput_pct;
  std::optional<SourcedNumber> l1_throughput_pct;
  std::optional<SourcedNumber> fma_pipe_pct;
  std::optional<SourcedNumber> tensor_pipe_pct;
  std::optional<SourcedNumber> issue_active_pct; ///< issue slots busy
  std::optional<SourcedNumber> sm_active_cycles; ///< cycles an SM had a warp, averaged over SMs
  std::optional<SourcedNumber> elapsed_cycles;   ///< the launch's cycles
  /// Stall reasons, percent of the active warps' cycles (the default set's Stalls group).
  std::optional<SourcedNumber> long_scoreboard_stall_pct;
  std::optional<SourcedNumber> lg_throttle_stall_pct;
  std::optional<SourcedNumber> mio_throttle_stall_pct;
  std::optional<SourcedNumber> barrier_stall_pct;
  Roofline roofline; ///< of this launch
};

/// Reads LaunchFacts; resolves a capture's columns once (a 20,000-launch capture is read per
/// launch). Borrows the capture, which must outlive it.
class LaunchFactReader {
public:
  LaunchFactReader(const Capture& capture, std::optional<GpuSpec> gpu,
                   const RooflineThresholds& thresholds = {});
  ~LaunchFactReader();
  LaunchFactReader(const LaunchFactReader&) = delete;
  LaunchFactReader& operator=(const LaunchFactReader&) = delete;

  [[nodiscard]] LaunchFacts read(const KernelRecord& launch) const;
  [[nodiscard]] const std::optional<GpuSpec>& gpu() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// The one rule for impossible values (docs/diagnosis.md, "Impossible values"): what the
/// analysis reads of a launch is a quantity that cannot be negative (a duration, a percentage, a
/// count, a byte count, a throughput, a rate, a frequency); a negative one was not measured by
/// ncu (the file was edited or damaged), so whatever reads it refuses the input instead of
/// drawing a conclusion from it. A capture (analyse()) and a report document (diff_reports())
/// are refused by these functions alike.
///
/// What `column` holds when a fact of the analysis or the diagnosis is read from it ("a
/// duration", "a percentage", ...), matched by name (a raw metric, or a details-page label as
/// "Label" or "Section/Label") and unit; nullopt for a column no fact is read from (a metric of
/// its own may be negative: a NUMA node of -1).
std::optional<std::string_view> quantity_of(const Column& column);
/// malformed_input "'WHERE' is VALUE UNIT: QUANTITY cannot be negative (...)" when `value` is
/// negative; nothing otherwise (NaN and the infinities are not negative numbers: readers take
/// them as absent).
Result<void> check_not_negative(std::string_view where, double value, std::string_view unit,
                                std::string_view quantity);
/// check_not_negative() of every value that quantity_of() names in the launches `launches`
/// (indices into capture.kernels): malformed_input naming the first negative one's launch (its
/// ID and kernel name) and column.
Result<void> check_capture_values(const Capture& capture, const std::vector<std::size_t>& launches);

/// Runs selection and analysis. Fails with no_kernels when nothing is selected (the message says
/// which filter removed everything), and with malformed_input when a selected launch holds an
/// impossible value (check_capture_values()).
Result<Analysis> analyse(const Capture& capture, const SelectOptions& options,
                         const RooflineThresholds& thresholds = {});

} // namespace kprof

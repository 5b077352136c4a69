// kprof: a call of many launches (issue 42). Two tiers: a timeline of every launch of the call,
// timed by PyTorch's profiler in a process outside ncu (templates/harness.py, `--timeline`), and
// ncu's metrics on a few representatives per distinct kernel, chosen with ncu's own launch
// filters. Everything here is pure: the plan of what ncu replays, the filter that asks for it,
// the matching of ncu's rows back to the timeline and the report's `workload` member
// (docs/json-schema.md, docs/harness.md "Many launches").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kprof/capture.hpp"
#include "kprof/error.hpp"

namespace kprof {

/// One kernel launch of the profiled call, as PyTorch's profiler recorded it.
struct TimelineLaunch {
  std::string name; ///< demangled, as the profiler prints it
  std::array<std::int64_t, 3> grid{0, 0, 0};
  std::array<std::int64_t, 3> block{0, 0, 0};
  std::int64_t registers = -1;     ///< per thread; -1 unknown
  std::int64_t shared_memory = -1; ///< bytes per block; -1 unknown
  std::int64_t stream = -1;
  double start_us = 0;    ///< from the first launch's start
  double duration_us = 0; ///< on the GPU
  std::string op;         ///< the innermost PyTorch op that launched it; empty when none
};

/// Every launch of one call, in launch order.
struct Timeline {
  std::vector<TimelineLaunch> launches;
  double call_us = 0;         ///< the call's wall time under the profiler
  double process_seconds = 0; ///< what the timeline process took, start to end
};

/// Reads the file the harness's timeline mode writes (`{"version": 1, "launches": [...]}`).
/// A malformed file is an ErrorCategory::parse_error naming `where`; a file that holds an
/// `error` (the timeline could not be made) is an ErrorCategory::program_error with its text.
Result<Timeline> parse_timeline(std::string_view text, std::string_view where);

/// What ncu's `--filter-mode per-launch-config` counts launches per: the launch configuration
/// alone (grid, block, shared memory), as its --help words it, or the kernel's name and its
/// configuration. Measured on an H100 with ncu 2025.3.1 (2026-12-06, `bench/device/run
/// workload-filters`, docs/device-runs/2026-12-06-workload-probe.md): name and configuration
/// (VGG16's nchwToNhwcKernel and nhwcToNchwKernel of one grid and block each got a row); the
/// matching of rows to the timeline holds under either.
enum class ConfigGrouping { config, name_and_config };
inline constexpr ConfigGrouping k_ncu_config_grouping = ConfigGrouping::name_and_config;

/// `--launches` (docs/harness.md, "Many launches"): `auto` profiles the call under ncu as `all`
/// does but stops replaying at k_auto_launch_cap launches; a call that reaches the cap is then
/// timed whole outside ncu and replayed again in two tiers (representatives only). A call of few
/// launches, the usual candidate, so costs nothing more than under `all`. `many` is for a call
/// known to make many launches (a model): it is timed outside ncu from the start, beside the
/// session's start, and the session waits at its profiled call for the verdict: the fastest
/// answer for a model, at about 4.5 s more for a call of one launch (H100, 2026-12-06,
/// docs/device-runs/2026-12-06-workload.md). `all` replays every launch of the call (no timeline).
enum class LaunchTiers { automatic, many, all };
std::string_view to_string(LaunchTiers tiers);                 ///< "auto", "many", "all"
Result<LaunchTiers> parse_launch_tiers(std::string_view word); ///< usage error naming the words

/// A call of more launches than this gets the two tiers; a call of this many or fewer is
/// profiled as with `--launches all` (every launch replayed).
inline constexpr std::size_t k_two_tier_threshold = 32;

/// Under `--launches auto`, the most launches the first session replays (ncu's --launch-count):
/// a call of k_two_tier_threshold launches, kprof's primer kernel (profiled in the same session,
/// NVTX range kprof:primer) and one launch more, whose row says that the call goes on.
inline constexpr std::size_t k_auto_launch_cap = k_two_tier_threshold + 2;

/// The most launches ncu replays by default: at about 0.31 s a replayed launch with the default
/// sections (H100, ncu 2025.3.1, docs/device-runs/2026-12-06-workload-probe.md) and ncu's start
/// of 4-5 s, 24 keep a model's answer near 12 s.
inline constexpr std::size_t k_default_max_replayed = 24;

struct ReplayBudget {
  std::size_t max_replayed = k_default_max_replayed; ///< at least 1
  std::size_t per_shape = 1; ///< launches replayed per configuration (ncu's --launch-count)
};

/// One distinct kernel of the call: a name and a launch shape (grid, block, shared memory).
struct KernelShape {
  std::string name;
  std::string function; ///< kernel_function_name(name)
  std::array<std::int64_t, 3> grid{0, 0, 0};
  std::array<std::int64_t, 3> block{0, 0, 0};
  std::int64_t shared_memory = -1;
  std::int64_t registers = -1;
  std::vector<std::size_t> launches; ///< timeline indices, in launch order
  double total_us = 0;
  std::vector<std::size_t> planned; ///< the launches ncu is expected to replay
  std::vector<std::string> ops;     ///< the PyTorch ops that launched it, first seen first
};

/// What ncu is asked to replay.
struct ReplayPlan {
  std::vector<KernelShape> shapes; ///< most time first
  /// Function names given to ncu's kernel filter; empty: every kernel's configurations.
  std::vector<std::string> names;
  std::size_t per_shape = 1;
  std::size_t max_replayed = k_default_max_replayed;
  std::size_t planned = 0; ///< launches expected to be replayed
  std::size_t launches = 0;
  double kernel_us = 0; ///< the sum of every launch's duration
  ConfigGrouping grouping = k_ncu_config_grouping;
};

/// Whether a call with this timeline gets the two tiers (more than k_two_tier_threshold launches).
bool needs_two_tiers(const Timeline& timeline);

/// Groups the timeline into distinct kernels and chooses what ncu replays: every configuration
/// (ReplayBudget::per_shape launches each) when that fits the budget, else the kernels' function
/// names most time first while they fit (at least the first), so the replays cover the most time.
ReplayPlan plan_replays(const Timeline& timeline, const ReplayBudget& budget,
                        ConfigGrouping grouping = k_ncu_config_grouping);

/// The one place that says how ncu is asked for the plan's launches: `--filter-mode
/// per-launch-config --launch-count K` and, when the budget cut kernels, `--kernel-name
/// regex:...` of the kept names.
std::vector<std::string> replay_filter_args(const ReplayPlan& plan);

/// A kernel's function name without return type, scopes, template arguments and parameters:
/// `void at::native::elementwise_kernel<128, 2, ...>(int, ...)` is `elementwise_kernel`.
std::string kernel_function_name(std::string_view demangled);

/// For each of `capture`'s kernels, the timeline launch it replayed, or nullopt (another range,
/// or no launch of its name and shape left): rows in launch order are matched to the next
/// launch of the same function name, grid and block, so the match holds whatever ncu's filter
/// grouped by. `nvtx_range` empty: every row.
std::vector<std::optional<std::size_t>>
match_replayed(const Timeline& timeline, const Capture& capture, std::string_view nvtx_range);

/// "measured on launch 3 of 6,244; the 3,073 launches take 9.54 ms, 59% of the call's kernel
/// time", or "not replayed (...)": the sentence the report carries for `shape`.
std::string shape_sentence(const KernelShape& shape, const ReplayPlan& plan,
                           const std::vector<std::size_t>& replayed);

/// The report's `workload.timeline` (docs/json-schema.md): the call's span in this many bins, and
/// a lane for each of this many kernels of most time (the rest share one).
inline constexpr std::size_t k_timeline_bins = 240;
inline constexpr std::size_t k_timeline_lanes = 8;

/// The report's `workload` member (docs/json-schema.md): the timeline's totals, every distinct
/// kernel with its launches, time, share, ops and the launches ncu replayed (with their ncu
/// IDs), the filter, the budget and what it left out.
nlohmann::ordered_json workload_json(const Timeline& timeline, const ReplayPlan& plan,
                                     const Capture& capture, std::string_view nvtx_range);

} // namespace kprof

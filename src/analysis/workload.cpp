// A call of many launches: the plan of what ncu replays, and the report's view of it.
//
// Design note. The timeline (every launch, from PyTorch's profiler outside ncu) decides what ncu
// replays, but ncu selects launches itself, with its filters, while the program runs: the plan
// therefore simulates those filters on the timeline (which launches ncu will replay) and, once
// the rows exist, matches each row back to a launch in launch order by function name and shape.
// The simulation can be wrong (what per-launch-config groups by is measured on the device, not
// known); the matching cannot, so the report says what was replayed, not what was planned.
#include "kprof/workload.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "kprof/numbers.hpp"

namespace kprof {
namespace {

using Json = nlohmann::ordered_json;

std::int64_t int_member(const nlohmann::json& object, const char* key, std::int64_t fallback) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number()) {
    return fallback;
  }
  return found->get<std::int64_t>();
}

double number_member(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number()) {
    return 0.0;
  }
  return found->get<double>();
}

std::array<std::int64_t, 3> dims_member(const nlohmann::json& object, const char* key) {
  std::array<std::int64_t, 3> dims{0, 0, 0};
  const auto found = object.find(key);
  if (found == object.end() || !found->is_array()) {
    return dims;
  }
  for (std::size_t i = 0; i < 3 && i < found->size(); ++i) {
    if ((*found)[i].is_number()) {
      dims[i] = (*found)[i].get<std::int64_t>();
    }
  }
  return dims;
}

/// The key ncu's per-launch-config filter counts a launch under.
using ConfigKey =
    std::tuple<std::string, std::array<std::int64_t, 3>, std::array<std::int64_t, 3>, std::int64_t>;

ConfigKey config_key(const TimelineLaunch& launch, ConfigGrouping grouping) {
  return {grouping == ConfigGrouping::name_and_config ? kernel_function_name(launch.name)
                                                      : std::string(),
          launch.grid, launch.block, launch.shared_memory};
}

/// The launches ncu replays under `--filter-mode per-launch-config --launch-count per_shape`
/// with a kernel filter of `names` (empty: none), in launch order.
std::vector<std::size_t> simulate_filter(const Timeline& timeline,
                                         const std::set<std::string>& names, std::size_t per_shape,
                                         ConfigGrouping grouping) {
  std::map<ConfigKey, std::size_t> seen;
  std::vector<std::size_t> replayed;
  for (std::size_t i = 0; i < timeline.launches.size(); ++i) {
    const TimelineLaunch& launch = timeline.launches[i];
    if (!names.empty() && !names.contains(kernel_function_name(launch.name))) {
      continue;
    }
    if (++seen[config_key(launch, grouping)] <= per_shape) {
      replayed.push_back(i);
    }
  }
  return replayed;
}

std::string regex_escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) {
      out.push_back('\\');
    }
    out.push_back(c);
  }
  return out;
}

Json dims_json(const std::array<std::int64_t, 3>& dims) {
  return Json::array({dims[0], dims[1], dims[2]});
}

std::string percent(double share) {
  return fmt::format("{}%", format_fixed(100.0 * share, 0));
}

std::string milliseconds(double us) {
  return fmt::format("{} ms", format_fixed(us / 1000.0, 2));
}

/// 6244 as "6,244": counts in sentences read as the user writes them.
std::string grouped(std::size_t count) {
  const std::string digits = std::to_string(count);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out.push_back(',');
    }
    out.push_back(digits[i]);
  }
  return out;
}

} // namespace

std::string_view to_string(LaunchTiers tiers) {
  switch (tiers) {
  case LaunchTiers::automatic:
    return "auto";
  case LaunchTiers::many:
    return "many";
  case LaunchTiers::all:
    return "all";
  }
  KPROF_ASSERT(false && "unknown LaunchTiers");
  return "auto";
}

Result<LaunchTiers> parse_launch_tiers(std::string_view word) {
  if (word == "auto") {
    return LaunchTiers::automatic;
  }
  if (word == "many") {
    return LaunchTiers::many;
  }
  if (word == "all") {
    return LaunchTiers::all;
  }
  return make_error(ErrorCategory::usage,
                    fmt::format("unknown launches '{}'; valid values: auto, many, all", word));
}

Result<Timeline> parse_timeline(std::string_view text, std::string_view where) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("{}: the timeline is not a JSON object", where));
  }
  if (const auto error = doc.find("error"); error != doc.end() && error->is_string()) {
    return make_error(ErrorCategory::kernel_raised,
                      fmt::format("{}: no timeline: {}", where, error->get<std::string>()));
  }
  const auto launches = doc.find("launches");
  if (int_member(doc, "version", 0) != 1 || launches == doc.end() || !launches->is_array()) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("{}: not a version 1 timeline with a launches list", where));
  }
  Timeline timeline;
  timeline.call_us = number_member(doc, "call_us");
  timeline.process_seconds = number_member(doc, "process_seconds");
  timeline.launches.reserve(launches->size());
  for (const auto& entry : *launches) {
    const auto name = entry.is_object() ? entry.find("name") : entry.end();
    if (!entry.is_object() || name == entry.end() || !name->is_string()) {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("{}: launch {} has no name", where, timeline.launches.size()));
    }
    TimelineLaunch launch;
    launch.name = name->get<std::string>();
    launch.grid = dims_member(entry, "grid");
    launch.block = dims_member(entry, "block");
    launch.registers = int_member(entry, "registers", -1);
    launch.shared_memory = int_member(entry, "shared_memory", -1);
    launch.stream = int_member(entry, "stream", -1);
    launch.start_us = number_member(entry, "start_us");
    launch.duration_us = std::max(0.0, number_member(entry, "duration_us"));
    if (const auto op = entry.find("op"); op != entry.end() && op->is_string()) {
      launch.op = op->get<std::string>();
    }
    timeline.launches.push_back(std::move(launch));
  }
  return timeline;
}

bool needs_two_tiers(const Timeline& timeline) {
  return timeline.launches.size() > k_two_tier_threshold;
}

std::string kernel_function_name(std::string_view demangled) {
  std::string text(demangled);
  for (const std::string_view anonymous : {"(anonymous namespace)", "{anonymous}"}) {
    for (auto at = text.find(anonymous); at != std::string::npos; at = text.find(anonymous)) {
      text.replace(at, anonymous.size(), "anonymous");
    }
  }
  // Drop template arguments, and everything from the parameter list on.
  std::string bare;
  int depth = 0;
  for (const char c : text) {
    if (c == '<') {
      ++depth;
    } else if (c == '>' && depth > 0) {
      --depth;
    } else if (depth == 0 && c == '(') {
      break;
    } else if (depth == 0) {
      bare.push_back(c);
    }
  }
  while (!bare.empty() && bare.back() == ' ') {
    bare.pop_back();
  }
  if (const auto space = bare.rfind(' '); space != std::string::npos) {
    bare.erase(0, space + 1);
  }
  if (const auto scope = bare.rfind("::"); scope != std::string::npos) {
    bare.erase(0, scope + 2);
  }
  return bare.empty() ? std::string(demangled) : bare;
}

ReplayPlan plan_replays(const Timeline& timeline, const ReplayBudget& budget,
                        ConfigGrouping grouping) {
  ReplayPlan plan;
  plan.per_shape = std::max<std::size_t>(1, budget.per_shape);
  plan.max_replayed = std::max<std::size_t>(1, budget.max_replayed);
  plan.grouping = grouping;
  plan.launches = timeline.launches.size();
  std::map<ConfigKey, std::size_t> index; // name, grid, block, shared memory -> shape
  for (std::size_t i = 0; i < timeline.launches.size(); ++i) {
    const TimelineLaunch& launch = timeline.launches[i];
    plan.kernel_us += launch.duration_us;
    const ConfigKey key{launch.name, launch.grid, launch.block, launch.shared_memory};
    auto [slot, added] = index.try_emplace(key, plan.shapes.size());
    if (added) {
      KernelShape shape;
      shape.name = launch.name;
      shape.function = kernel_function_name(launch.name);
      shape.grid = launch.grid;
      shape.block = launch.block;
      shape.shared_memory = launch.shared_memory;
      shape.registers = launch.registers;
      plan.shapes.push_back(std::move(shape));
    }
    KernelShape& shape = plan.shapes[slot->second];
    shape.launches.push_back(i);
    shape.total_us += launch.duration_us;
    if (!launch.op.empty() &&
        std::find(shape.ops.begin(), shape.ops.end(), launch.op) == shape.ops.end()) {
      shape.ops.push_back(launch.op);
    }
  }
  // Most time first; ties by first launch, so the order is the timeline's, not the map's.
  std::stable_sort(
      plan.shapes.begin(), plan.shapes.end(),
      [](const KernelShape& a, const KernelShape& b) { return a.total_us > b.total_us; });

  std::set<std::string> names;
  std::vector<std::size_t> replayed = simulate_filter(timeline, names, plan.per_shape, grouping);
  if (replayed.size() > plan.max_replayed) {
    // Keep kernels by function name, most time first, while their configurations fit.
    for (const KernelShape& shape : plan.shapes) {
      if (names.contains(shape.function)) {
        continue;
      }
      std::set<std::string> tried = names;
      tried.insert(shape.function);
      std::vector<std::size_t> with = simulate_filter(timeline, tried, plan.per_shape, grouping);
      if (with.size() <= plan.max_replayed || names.empty()) {
        names = std::move(tried);
        replayed = std::move(with);
      }
    }
    plan.names.assign(names.begin(), names.end());
  }
  plan.planned = replayed.size();
  std::map<std::size_t, KernelShape*> shape_of;
  for (KernelShape& shape : plan.shapes) {
    for (const std::size_t launch : shape.launches) {
      shape_of[launch] = &shape;
    }
  }
  for (const std::size_t launch : replayed) {
    shape_of[launch]->planned.push_back(launch);
  }
  return plan;
}

std::vector<std::string> replay_filter_args(const ReplayPlan& plan) {
  std::vector<std::string> args{"--filter-mode", "per-launch-config", "--launch-count",
                                std::to_string(plan.per_shape)};
  if (!plan.names.empty()) {
    // Anchored so that it holds whether ncu matches the whole name or searches it, and whether
    // its function name keeps scopes or template arguments.
    std::vector<std::string> escaped;
    escaped.reserve(plan.names.size());
    for (const auto& name : plan.names) {
      escaped.push_back(regex_escaped(name));
    }
    args.emplace_back("--kernel-name");
    args.push_back(fmt::format("regex:^(.*::)?({})([<(].*)?$", fmt::join(escaped, "|")));
  }
  return args;
}

std::vector<std::optional<std::size_t>>
match_replayed(const Timeline& timeline, const Capture& capture, std::string_view nvtx_range) {
  std::vector<std::optional<std::size_t>> matched(capture.kernels.size());
  std::vector<std::string> functions;
  functions.reserve(timeline.launches.size());
  for (const auto& launch : timeline.launches) {
    functions.push_back(kernel_function_name(launch.name));
  }
  std::size_t next = 0;
  for (std::size_t k = 0; k < capture.kernels.size(); ++k) {
    const KernelRecord& row = capture.kernels[k];
    if (!nvtx_range.empty() && row.nvtx_range != nvtx_range) {
      continue;
    }
    const std::string function = kernel_function_name(row.name);
    for (std::size_t i = next; i < timeline.launches.size(); ++i) {
      const TimelineLaunch& launch = timeline.launches[i];
      if (launch.grid == row.grid && launch.block == row.block && functions[i] == function) {
        matched[k] = i;
        next = i + 1;
        break;
      }
    }
  }
  return matched;
}

std::string shape_sentence(const KernelShape& shape, const ReplayPlan& plan,
                           const std::vector<std::size_t>& replayed) {
  const double share = plan.kernel_us > 0 ? shape.total_us / plan.kernel_us : 0.0;
  const std::string time = fmt::format(
      "the {} launch{} take{} {}, {} of the call's kernel time", grouped(shape.launches.size()),
      shape.launches.size() == 1 ? "" : "es", shape.launches.size() == 1 ? "s" : "",
      milliseconds(shape.total_us), percent(share));
  if (replayed.empty()) {
    return fmt::format("not replayed ({}); {}",
                       shape.planned.empty() ? "left out by the budget of " +
                                                   std::to_string(plan.max_replayed) + " replays"
                                             : "ncu replayed no launch of this shape",
                       time);
  }
  std::vector<std::string> numbers;
  numbers.reserve(replayed.size());
  for (const std::size_t launch : replayed) {
    numbers.push_back(grouped(launch + 1));
  }
  return fmt::format("measured on launch{} {} of {}; {}", replayed.size() == 1 ? "" : "es",
                     fmt::join(numbers, ", "), grouped(plan.launches), time);
}

namespace {

/// The report's `workload.timeline`: the call's span cut into k_timeline_bins equal bins, and per
/// lane (the k_timeline_lanes kernels of most time, in the plan's order, then every other kernel
/// together) the GPU time of its launches in each bin, microseconds to 0.1. A page draws it at
/// its resolution from a few hundred numbers, whatever the launch count (6,244 for an LSTM).
Json timeline_lanes(const Timeline& timeline, const ReplayPlan& plan) {
  double span = 0;
  for (const TimelineLaunch& launch : timeline.launches) {
    span = std::max(span, launch.start_us + launch.duration_us);
  }
  const std::size_t named = std::min(plan.shapes.size(), k_timeline_lanes);
  std::vector<std::vector<double>> busy(named + (plan.shapes.size() > named ? 1 : 0),
                                        std::vector<double>(k_timeline_bins, 0.0));
  const double width = span > 0 ? span / static_cast<double>(k_timeline_bins) : 1.0;
  for (std::size_t shape = 0; shape < plan.shapes.size(); ++shape) {
    std::vector<double>& lane = busy[std::min(shape, named)];
    for (const std::size_t index : plan.shapes[shape].launches) {
      // A launch that crosses bins counts in each for the part of it there; the last bin takes
      // what lies past its start.
      const double from = timeline.launches[index].start_us;
      const double to = from + timeline.launches[index].duration_us;
      const auto first = std::min(static_cast<std::size_t>(from / width), k_timeline_bins - 1);
      const auto last = std::min(static_cast<std::size_t>(to / width), k_timeline_bins - 1);
      for (std::size_t bin = first; bin <= last; ++bin) {
        const double bin_start = static_cast<double>(bin) * width;
        const double bin_end = bin + 1 == k_timeline_bins ? to : bin_start + width;
        lane[bin] += std::max(0.0, std::min(to, bin_end) - std::max(from, bin_start));
      }
    }
  }
  Json lanes = Json::array();
  for (std::size_t i = 0; i < busy.size(); ++i) {
    Json values = Json::array();
    for (const double us : busy[i]) {
      values.push_back(std::round(us * 10.0) / 10.0);
    }
    lanes.push_back(
        {{"kernel", i < named ? Json(i) : Json()},
         {"function", i < named ? plan.shapes[i].function
                                : fmt::format("{} other kernels", plan.shapes.size() - named)},
         {"busy_us", std::move(values)}});
  }
  return {{"span_us", span}, {"bins", k_timeline_bins}, {"lanes", std::move(lanes)}};
}

} // namespace

nlohmann::ordered_json workload_json(const Timeline& timeline, const ReplayPlan& plan,
                                     const Capture& capture, std::string_view nvtx_range) {
  const auto matched = match_replayed(timeline, capture, nvtx_range);
  std::map<std::size_t, std::vector<std::size_t>> rows_of_launch; // launch -> capture rows
  for (std::size_t k = 0; k < matched.size(); ++k) {
    if (matched[k]) {
      rows_of_launch[*matched[k]].push_back(k);
    }
  }
  Json kernels = Json::array();
  std::size_t replayed_total = 0;
  double covered_us = 0;
  std::size_t left_out = 0;
  double left_out_us = 0;
  for (const KernelShape& shape : plan.shapes) {
    Json replays = Json::array();
    std::vector<std::size_t> replayed;
    for (const std::size_t launch : shape.launches) {
      const auto rows = rows_of_launch.find(launch);
      if (rows == rows_of_launch.end()) {
        continue;
      }
      replayed.push_back(launch);
      for (const std::size_t k : rows->second) {
        replays.push_back({{"launch", launch}, {"id", capture.kernels[k].id}});
      }
    }
    replayed_total += replayed.size();
    if (replayed.empty()) {
      ++left_out;
      left_out_us += shape.total_us;
    } else {
      covered_us += shape.total_us;
    }
    Json entry;
    entry["name"] = shape.name;
    entry["function"] = shape.function;
    entry["grid"] = dims_json(shape.grid);
    entry["block"] = dims_json(shape.block);
    entry["shared_memory_bytes"] = shape.shared_memory >= 0 ? Json(shape.shared_memory) : Json();
    entry["registers"] = shape.registers >= 0 ? Json(shape.registers) : Json();
    entry["launches"] = shape.launches.size();
    entry["first_launch"] = shape.launches.front();
    entry["total_us"] = shape.total_us;
    entry["share"] = plan.kernel_us > 0 ? shape.total_us / plan.kernel_us : 0.0;
    entry["ops"] = shape.ops;
    entry["planned"] = shape.planned;
    entry["replayed"] = std::move(replays);
    entry["summary"] = shape_sentence(shape, plan, replayed);
    kernels.push_back(std::move(entry));
  }
  Json doc;
  doc["launches"] = timeline.launches.size();
  doc["distinct_kernels"] = plan.shapes.size();
  doc["kernel_time_us"] = plan.kernel_us;
  doc["call_us"] = timeline.call_us;
  doc["timeline_seconds"] = timeline.process_seconds;
  doc["replayed"] = replayed_total;
  doc["planned"] = plan.planned;
  doc["max_replayed"] = plan.max_replayed;
  doc["per_shape"] = plan.per_shape;
  doc["covered_share"] = plan.kernel_us > 0 ? covered_us / plan.kernel_us : 0.0;
  doc["filter"] = replay_filter_args(plan);
  doc["left_out"] = {
      {"kernels", left_out},
      {"share", plan.kernel_us > 0 ? left_out_us / plan.kernel_us : 0.0},
      {"note", left_out == 0
                   ? std::string()
                   : fmt::format("{} of {} distinct kernels ({} of the kernel time) have no "
                                 "replayed launch: their time is in the timeline, their metrics "
                                 "are not (raise --max-replayed, now {}, to include them)",
                                 left_out, plan.shapes.size(),
                                 percent(plan.kernel_us > 0 ? left_out_us / plan.kernel_us : 0.0),
                                 plan.max_replayed)}};
  doc["kernels"] = std::move(kernels);
  doc["timeline"] = timeline_lanes(timeline, plan);
  return doc;
}

} // namespace kprof

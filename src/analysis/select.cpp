#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/facts.hpp"
#include "analysis/internal.hpp"
#include "kprof/analysis.hpp"
#include "kprof/nvtx_ranges.hpp"

namespace kprof {

std::string_view to_string(Select select) {
  switch (select) {
  case Select::first:
    return "first";
  case Select::last:
    return "last";
  case Select::max_cycles:
    return "max-cycles";
  case Select::longest:
    return "longest";
  case Select::all:
    return "all";
  }
  return "all";
}

Result<Select> parse_select(std::string_view word) {
  constexpr std::array k_selects{Select::first, Select::last, Select::max_cycles, Select::longest,
                                 Select::all};
  std::string valid;
  for (Select select : k_selects) {
    if (word == to_string(select)) {
      return select;
    }
    valid += valid.empty() ? "" : ", ";
    valid += to_string(select);
  }
  if (word == "max_cycles") {
    return Select::max_cycles;
  }
  return make_error(ErrorCategory::usage,
                    fmt::format("unknown selection '{}' (valid: {})", word, valid));
}

namespace analysis {

bool passes_kernel_filters(const KernelRecord& kernel, const std::vector<std::string>& filters) {
  if (filters.empty()) {
    return true;
  }
  return std::any_of(filters.begin(), filters.end(), [&kernel](const std::string& filter) {
    return kernel.name.find(filter) != std::string::npos;
  });
}

bool passes_nvtx_filter(const KernelRecord& kernel, const std::string& nvtx_range) {
  if (nvtx_range.empty()) {
    return kernel.nvtx_range != k_primer_range; // kprof's own kernel, never a candidate's
  }
  return kernel.nvtx_range == nvtx_range;
}

namespace {

/// The launch of one name with the largest `order[0]` fact; if no launch has it, the largest
/// `order[1]`; if none has either, the last launch. Ties keep the earlier launch. max-cycles
/// orders SM active cycles before duration, longest the other way round.
std::size_t pick_largest(const FactLookup& facts, const std::vector<std::size_t>& launches,
                         const std::array<Fact, 2>& order) {
  for (Fact fact : order) {
    std::optional<std::size_t> best;
    double best_value = 0;
    for (std::size_t index : launches) {
      const auto value = facts.get(facts.capture().kernels[index], fact);
      if (value && (!best || *value > best_value)) {
        best = index;
        best_value = *value;
      }
    }
    if (best) {
      return *best;
    }
  }
  return launches.back();
}

} // namespace

std::vector<std::size_t> select_kernels(const FactLookup& facts, const SelectOptions& options) {
  const Capture& capture = facts.capture();
  // Launches per distinct name, in first-seen order of the names.
  std::vector<std::vector<std::size_t>> groups;
  std::unordered_map<std::string_view, std::size_t> group_of;
  for (std::size_t index = 0; index < capture.kernels.size(); ++index) {
    const KernelRecord& kernel = capture.kernels[index];
    if (!passes_kernel_filters(kernel, options.kernel_filters) ||
        !passes_nvtx_filter(kernel, options.nvtx_range)) {
      continue;
    }
    const auto [slot, inserted] = group_of.try_emplace(kernel.name, groups.size());
    if (inserted) {
      groups.emplace_back();
    }
    groups[slot->second].push_back(index);
  }

  std::vector<std::size_t> kept;
  for (const std::vector<std::size_t>& launches : groups) {
    switch (options.select) {
    case Select::first:
      kept.push_back(launches.front());
      break;
    case Select::last:
      kept.push_back(launches.back());
      break;
    case Select::max_cycles:
      kept.push_back(pick_largest(facts, launches, {Fact::sm_active_cycles, Fact::duration_ns}));
      break;
    case Select::longest:
      kept.push_back(pick_largest(facts, launches, {Fact::duration_ns, Fact::sm_active_cycles}));
      break;
    case Select::all:
      kept.insert(kept.end(), launches.begin(), launches.end());
      break;
    }
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

} // namespace analysis

std::vector<std::size_t> select_kernels(const Capture& capture, const SelectOptions& options) {
  return analysis::select_kernels(analysis::FactLookup(capture), options);
}

} // namespace kprof

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/facts.hpp"
#include "analysis/internal.hpp"
#include "kprof/analysis.hpp"
#include "kprof/nvtx_ranges.hpp"

namespace kprof {
namespace {

/// The distinct values, in first-seen order, comma-separated; "..." after `limit` of them.
std::string distinct_list(const std::vector<std::string>& values, std::size_t limit = 8) {
  std::vector<std::string_view> seen;
  for (const std::string& value : values) {
    if (std::find(seen.begin(), seen.end(), value) == seen.end()) {
      seen.emplace_back(value);
    }
  }
  std::string text;
  for (std::size_t i = 0; i < seen.size() && i < limit; ++i) {
    text += fmt::format("{}{}", i == 0 ? "" : ", ", seen[i]);
  }
  if (seen.size() > limit) {
    text += ", ...";
  }
  return text;
}

/// Why selection would keep nothing (which filter removed everything), or nullopt when some
/// launch survives the filters.
std::optional<Error> explain_empty(const Capture& capture, const SelectOptions& options) {
  if (capture.kernels.empty()) {
    return make_error(ErrorCategory::no_kernels, "the capture holds no kernel launch");
  }
  std::vector<std::string> names;
  std::vector<std::string> ranges_of_matching;
  for (const KernelRecord& kernel : capture.kernels) {
    names.push_back(kernel.name);
    if (!analysis::passes_kernel_filters(kernel, options.kernel_filters)) {
      continue;
    }
    if (analysis::passes_nvtx_filter(kernel, options.nvtx_range)) {
      return std::nullopt;
    }
    ranges_of_matching.push_back(kernel.nvtx_range.empty() ? std::string("(none)")
                                                           : "'" + kernel.nvtx_range + "'");
  }
  if (ranges_of_matching.empty()) {
    return no_kernel_named(options.kernel_filters, names, "the capture");
  }
  if (options.nvtx_range.empty()) {
    return make_error(ErrorCategory::no_kernels,
                      fmt::format("the capture holds only kprof's own primer kernel (NVTX range "
                                  "'{}'), no {}launch of the program's",
                                  k_primer_range,
                                  options.kernel_filters.empty() ? "" : "matching "));
  }
  return make_error(ErrorCategory::no_kernels,
                    fmt::format("no {}launch is in NVTX range '{}' (ranges seen: {})",
                                options.kernel_filters.empty() ? "" : "matching ",
                                options.nvtx_range, distinct_list(ranges_of_matching)));
}

/// Name patterns of library kernels (docs/diagnosis.md): a prefix of the name once a leading
/// "void " is dropped, or a word anywhere in it.
constexpr std::array<std::string_view, 15> k_library_prefixes{
    "at::",  "c10::", "cub::", "cutlass::", "thrust::", "flash::", "pytorch_flash::", "cudnn::",
    "cufft", "sm80_", "sm90_", "sm100_",    "ampere_",  "volta_",  "turing_"};
constexpr std::array<std::string_view, 12> k_library_words{"cublas",
                                                           "cudnn",
                                                           "cutlass",
                                                           "nccl",
                                                           "xmma_",
                                                           "nvjet",
                                                           "gemmSN_",
                                                           "gemv2N_",
                                                           "gemv2T_",
                                                           "gemvNSP",
                                                           "splitKreduce_kernel",
                                                           "CUDAFunctor"};

} // namespace

Error no_kernel_named(const std::vector<std::string>& kernel_filters,
                      const std::vector<std::string>& names, std::string_view where) {
  return make_error(ErrorCategory::no_kernels,
                    fmt::format("no kernel name contains '{}' (kernels in {}: {})",
                                fmt::join(kernel_filters, "' or '"), where, distinct_list(names)));
}

bool is_library_kernel(std::string_view name) {
  constexpr std::string_view k_void = "void ";
  const std::string_view bare = name.starts_with(k_void) ? name.substr(k_void.size()) : name;
  const auto has_prefix = [&](std::string_view prefix) { return bare.starts_with(prefix); };
  const auto has_word = [&](std::string_view word) {
    return name.find(word) != std::string_view::npos;
  };
  return std::any_of(k_library_prefixes.begin(), k_library_prefixes.end(), has_prefix) ||
         std::any_of(k_library_words.begin(), k_library_words.end(), has_word);
}

Result<Analysis> analyse(const Capture& capture, const SelectOptions& options,
                         const RooflineThresholds& thresholds) {
  if (auto why = explain_empty(capture, options)) {
    return *why;
  }
  const analysis::FactLookup facts(capture);

  Analysis result;
  if (auto name = capture.device_name()) {
    result.gpu_name = *name;
  }
  result.gpu = gpu_spec_of(capture);
  result.selected = analysis::select_kernels(facts, options);
  KPROF_ASSERT(!result.selected.empty());
  if (auto valid = check_capture_values(capture, result.selected); !valid) {
    return valid.error();
  }

  std::unordered_map<std::string_view, std::size_t> summary_of;
  for (std::size_t index : result.selected) {
    const std::string& name = capture.kernels[index].name;
    const auto [slot, inserted] = summary_of.try_emplace(name, result.kernels.size());
    if (inserted) {
      KernelSummary summary;
      summary.name = name;
      summary.library = is_library_kernel(name);
      result.kernels.push_back(std::move(summary));
    }
    result.kernels[slot->second].launches.push_back(index);
  }

  std::optional<double> total;
  for (KernelSummary& summary : result.kernels) {
    std::size_t longest = summary.launches.back();
    std::optional<double> longest_ns;
    for (std::size_t index : summary.launches) {
      const auto duration = facts.duration_ns(capture.kernels[index]);
      if (!duration) {
        continue;
      }
      summary.duration_ns = summary.duration_ns.value_or(0.0) + *duration;
      if (!longest_ns || *duration > *longest_ns) {
        longest = index;
        longest_ns = duration;
      }
    }
    summary.roofline =
        analysis::roofline_of(facts, capture.kernels[longest], result.gpu, thresholds);
    if (summary.duration_ns) {
      total = total.value_or(0.0) + *summary.duration_ns;
    }
  }

  result.summary.launches = result.selected.size();
  result.summary.total_duration_ns = total;
  std::optional<double> dominant_ns;
  for (KernelSummary& summary : result.kernels) {
    if (!summary.duration_ns) {
      continue;
    }
    if (total && *total > 0) {
      summary.share = *summary.duration_ns / *total;
    }
    if (!dominant_ns || *summary.duration_ns > *dominant_ns) {
      dominant_ns = summary.duration_ns;
      result.summary.dominant_kernel = summary.name;
    }
  }
  return result;
}

} // namespace kprof

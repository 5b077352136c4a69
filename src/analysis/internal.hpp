// kprof internal: the entry points the analysis files share, taking a FactLookup so one capture's
// columns are resolved once per analyse() rather than once per kernel.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "kprof/analysis.hpp"

namespace kprof::analysis {

/// True when `filters` is empty or the kernel's name contains one of them.
bool passes_kernel_filters(const KernelRecord& kernel, const std::vector<std::string>& filters);

/// True when `nvtx_range` equals the kernel's innermost range; with `nvtx_range` empty, unless
/// the kernel is kprof's primer (k_primer_range).
bool passes_nvtx_filter(const KernelRecord& kernel, const std::string& nvtx_range);

/// kprof::select_kernels over an existing lookup.
std::vector<std::size_t> select_kernels(const FactLookup& facts, const SelectOptions& options);

/// kprof::roofline_of over an existing lookup.
Roofline roofline_of(const FactLookup& facts, const KernelRecord& kernel,
                     const std::optional<GpuSpec>& gpu, const RooflineThresholds& thresholds);

} // namespace kprof::analysis

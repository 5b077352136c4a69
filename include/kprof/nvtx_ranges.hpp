// kprof: the NVTX ranges kprof's harness pushes around the GPU work it profiles. Header-only
// constants of the util layer, so that the harness (which names the ranges) and the analysis
// (which must never count kprof's own launches as a candidate's) share them.
#pragma once

#include <string_view>

namespace kprof {

/// The range of the harness's primer kernel (templates/harness.py): a tiny kernel of kprof's own
/// that absorbs the first-kernel cost of a process. Its launches are never a candidate's: the
/// analysis drops them from every capture, an imported session log included.
inline constexpr std::string_view k_primer_range = "kprof:primer";

} // namespace kprof

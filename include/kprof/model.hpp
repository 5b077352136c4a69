// kprof model PROBLEM.py (issue 42 item 3, docs/harness.md "A model"): a KernelBench problem's
// Model profiled as the candidate, so that a model's launches are ranked by their share of its
// call's time (the report's `workload`) without writing a kernel.py first.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "kprof/error.hpp"

namespace kprof {

/// The directory under --out where `kprof model` writes its candidate: <out>/model/kernel.py.
inline constexpr std::string_view k_model_dir = "model";

/// The text of the candidate: a kernel_function that calls `problem`'s Model as KernelBench's
/// evaluation does (Model(*get_init_inputs()) on the GPU, eval mode, no gradients; through
/// torch.compile when `compile`), built at its first call (a warm-up) and kept, on the inputs the
/// harness passes (the problem's inputs; its init inputs, appended by the harness, dropped).
std::string model_candidate_text(const std::filesystem::path& problem, bool compile);

/// Writes model_candidate_text() to out_dir/model/kernel.py, atomically, after out_dir has been
/// made and checked as a round's (no other user can write under it), and returns its path.
/// input_not_found when `problem` is not a file; io when out_dir is unsafe or the file cannot
/// be written.
Result<std::filesystem::path> write_model_candidate(const std::filesystem::path& problem,
                                                    const std::filesystem::path& out_dir,
                                                    bool compile);

} // namespace kprof

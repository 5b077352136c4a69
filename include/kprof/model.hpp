// kprof model PROBLEM.py (issue 42 item 3, docs/harness.md "A model"): a KernelBench problem's
// Model profiled as the candidate, so that a model's launches are ranked by their share of its
// call's time (the report's `workload`) without writing a kernel.py first.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/profiler.hpp"
#include "kprof/round.hpp"

namespace kprof {

/// The directory under --out where `kprof model` writes its candidate: <out>/model/kernel.py.
inline constexpr std::string_view k_model_dir = "model";

/// kprof model's own defaults, the same in every shell (CLI, MCP, Python): `launches` "many" (a
/// model's call is known to be long) and `check` false (the candidate is the reference; its
/// timing and the problem's speed of light stay), as the option table's values.
const Json& model_option_defaults();

/// `values` (the option table's values a caller gave) with model_option_defaults() for those it
/// did not give: what is given wins.
Json with_model_defaults(Json values);

/// The text of the candidate: a kernel_function that calls `problem`'s Model as KernelBench's
/// evaluation does (Model(*get_init_inputs()) on the GPU, eval mode, no gradients; through
/// torch.compile when `compile`), built at its first call (a warm-up) and kept, on the inputs the
/// harness passes (the problem's inputs; its init inputs, appended by the harness, dropped).
std::string model_candidate_text(const std::filesystem::path& problem, bool compile);

/// Whether `kernel` is `kprof model`'s candidate of `problem` without torch.compile: a file of
/// this user's, no other user may write, whose text is exactly model_candidate_text(problem,
/// false). Such a candidate is the problem's Model called as the reference is, so the truth
/// times the reference once for both (HarnessCandidate::reference_itself). Decided from the
/// file's text, never from anything the candidate says of itself: a candidate that could claim
/// to be the reference would get the reference's timing and no check.
bool is_model_reference_candidate(const std::filesystem::path& kernel,
                                  const std::filesystem::path& problem);

/// Writes model_candidate_text() to out_dir/model/kernel.py, atomically, after out_dir has been
/// made and checked as a round's (no other user can write under it), and returns its path.
/// input_not_found when `problem` is not a file; io when out_dir is unsafe or the file cannot
/// be written.
Result<std::filesystem::path> write_model_candidate(const std::filesystem::path& problem,
                                                    const std::filesystem::path& out_dir,
                                                    bool compile);

/// How many Triton kernels `kprof model --extract` writes as cases by default.
inline constexpr std::size_t k_default_extract_top = 3;
/// The most kernels of a model `--extract` looks through, costliest first, for its Triton ones.
inline constexpr std::size_t k_extract_looked_at = 200;

/// `kprof model --extract DIR` (issue 42 item 3, docs/harness.md "Extracting a kernel"), asked
/// with a model's round (RoundRequest::extract): the round's `top` costliest Triton kernels
/// written as standalone cases; the library kernels that cost more are named, with the op that
/// launched them.
struct ExtractRequest {
  std::filesystem::path out_dir; ///< the cases go to out_dir/<kernel>/
  std::size_t top = k_default_extract_top;
  bool compile = false; ///< the model ran through torch.compile
};

/// The `top` costliest kernels of a model's report (report.json's document), by function name,
/// costliest first: `[{"name", "share", "launches", "total_us", "ops"}]`, from its `workload`
/// (every launch of the call, timed) when it has one, else from `summary.kernels` (the replayed
/// launches).
Json costliest_kernels(const Json& report, std::size_t top);

/// Runs the harness of `round` (a model's single-candidate round, as run_round returns it) in its
/// extract mode (`harness.py PLAN --extract SPEC`, with `python`, outside ncu, holding the GPU's
/// lock of `options`) on costliest_kernels() of the candidate's report and returns the document
/// it wrote, out_dir/extracted.json: per kernel looked at (costliest first, down to the
/// `top`-th case written), `extracted` and its `directory`, or `why` not. `problem` is the
/// model's problem.py, named in the cases. usage error when the round has no report; io when
/// out_dir is unsafe (another user could swap what is written there); gpu_busy as
/// GpuLock::acquire; kernel_raised when the model could not be called (the document's `error`);
/// timeout, or program_crashed when the harness ended without writing its document.
Result<Json> extract_model_kernels(const ExtractRequest& request, const RoundResult& round,
                                   const std::filesystem::path& problem,
                                   const ProfileOptions& options,
                                   const std::filesystem::path& python);

/// What an extraction did, a line per kernel looked at: "extracted NAME (S% of the call's kernel
/// time): kprof profile DIR/kernel.py DIR/problem.py" or "not extracted: NAME (S%): WHY"; one line
/// saying so when it looked at none.
std::vector<std::string> extraction_lines(const Json& extracted);

} // namespace kprof

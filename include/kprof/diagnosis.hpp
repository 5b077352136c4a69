// kprof: the diagnosis of one kernel launch: the causes of its time, most important first
// (src/diagnosis, docs/diagnosis.md).
//
// Each cause names a defect an engineer would fix (uncoalesced access, bank conflicts, too few
// blocks, spills, ...), the source line to fix when there is one, the numbers it rests on and
// where each comes from, and how much of the launch's time fixing it could save at most. It is
// built from what kprof already has: ncu's rules (their global estimates; generic symptoms such
// as "all compute pipelines are under-utilized" and the per-stall rules are folded into the
// cause they come from), the roofline, the launch against the GPU's SMs, and, with a source page,
// the lines' memory counters and every instruction's stalls with the load each waits for.
// Nothing is guessed: a cause whose numbers the capture does not hold is not given, and the
// notes say what a deeper capture would add.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/capture.hpp"
#include "kprof/hot_lines.hpp"
#include "kprof/json_file.hpp"
#include "kprof/source_page.hpp"

namespace kprof {

/// What a cause is. The first ones are defects in the code or the launch; the roofline's
/// verdicts (dram_bound, cache_bound, compute_bound, latency_bound) come after, for a kernel
/// whose time no defect explains.
enum class DiagnosisCategory {
  uncoalesced_access,  ///< global accesses that move sectors they do not use
  bank_conflicts,      ///< shared-memory accesses serialized over banks
  too_few_blocks,      ///< a grid that leaves SMs (or most of a wave) idle
  tail_effect,         ///< a last wave that runs partly empty
  low_occupancy,       ///< theoretical occupancy limited by registers, shared memory, block size
  load_imbalance,      ///< achieved occupancy well below the theoretical
  register_spills,     ///< registers spilled to local memory
  tensor_cores_unused, ///< a matrix product that runs on the FMA pipe
  atomic_contention,   ///< atomics whose lanes update the same addresses
  warp_divergence,     ///< lanes idle while the rest of their warp runs a branch
  barrier_stalls,      ///< warps waiting at barriers for the rest of their block
  memory_latency,      ///< warps waiting on loads that are neither wasteful nor at a bandwidth roof
  mio_pressure,        ///< the MIO queue (shared memory, special functions) full
  instruction_cache,   ///< warps waiting for instructions to be fetched
  launch_bound,        ///< a kernel about as short as its launch
  other,               ///< an ncu rule with an estimate that no category above covers
  dram_bound,          ///< at DRAM bandwidth, on bytes it uses
  cache_bound,         ///< at L1 or L2 bandwidth
  compute_bound,       ///< at a compute pipe's peak
  latency_bound,       ///< neither unit busy and no cause found
};

/// "uncoalesced_access", ...: the words of the JSON document.
std::string_view to_string(DiagnosisCategory category);
/// The category a word names; nullopt for a word this kprof does not know.
std::optional<DiagnosisCategory> parse_diagnosis_category(std::string_view word);
/// Every category, in enum order.
const std::vector<DiagnosisCategory>& diagnosis_categories();

/// How far a cause's estimate can be trusted (docs/diagnosis.md, "Estimates"). The ranking breaks
/// ties of estimates by it, never by category.
enum class EstimateConfidence {
  low,    ///< a model's, on a kernel whose stalls no single reason dominates (it rebalances time)
  medium, ///< a model's: ncu's occupancy, launch and stall rules; kprof's idle-SM share
  high,   ///< measured: wasted sectors, wavefronts or lanes, samples spent on the defect, a roof
};

/// "low", "medium", "high".
std::string_view to_string(EstimateConfidence confidence);

/// One number a cause rests on: the column, rule or counter it was read from, its value, and
/// what it says in this cause.
struct DiagnosisEvidence {
  std::string metric;                      ///< "Theoretical Occupancy", "ncu rule ...", ...
  std::variant<double, std::string> value; ///< a number as read, or text
  std::string meaning;
};

/// A source line: the file as the source page names it.
struct DiagnosisLine {
  std::string file;
  int line = 0;
};

/// Where the kernel is launched: a line of the candidate's kernel file (`kernel[grid](...)`,
/// `kernel<<<grid, block>>>(...)`) and its text.
struct DiagnosisLaunch {
  std::string file; ///< the kernel file as the report's metadata names it
  int line = 0;
  std::string source; ///< the line's text, without its indentation
};

struct DiagnosisCause {
  DiagnosisCategory category = DiagnosisCategory::other;
  std::string title; ///< one sentence with the numbers and the line
  /// What to change and where, in the kernel's language (Triton: BLOCK, num_warps, num_stages,
  /// masks, tl.dot's input_precision; CUDA C++: a padded shared tile, __launch_bounds__,
  /// coalesced indexing, vector loads), phrased for an LLM to act on.
  std::string fix;
  /// The line to fix; for a cause of the launch's parallelism (too few blocks, a partial wave,
  /// occupancy), the line whose result the warps wait on most.
  std::optional<DiagnosisLine> line;
  /// Where the kernel is launched, for the causes whose fix is there (the grid, the block,
  /// num_warps, batching): too few blocks, a partial last wave, occupancy, spills, launch-bound.
  std::optional<DiagnosisLaunch> launch;
  std::vector<DiagnosisEvidence> evidence;
  /// At most how much of the launch's time fixing it saves (percent); empty when nothing the
  /// capture holds gives an estimate of the launch's time (ncu's local estimates do not).
  std::optional<double> estimated_speedup_pct;
  /// How far `estimated_speedup_pct` can be trusted; empty without an estimate.
  std::optional<EstimateConfidence> estimate_confidence;
  /// Where the cause and its estimate come from: "ncu:<Rule>" (ncu's rule and its global
  /// estimate), "kprof:launch", "kprof:roofline", "kprof:metrics", "kprof:source" (the source
  /// page's counters and samples).
  std::string source;
};

/// The diagnosis of a launch: its causes, most important first, and what it could not look at.
struct Diagnosis {
  std::vector<DiagnosisCause> causes;
  std::vector<std::string> notes;
};

/// The candidate's kernel file, as the report's metadata names it (`metadata.kernel_file`, a
/// profiled round's), for the line that launches the kernel.
struct KernelSource {
  std::string path;
  std::optional<std::string> text; ///< empty when the file could not be read
  std::string error;               ///< why it could not, then
};

/// What one launch's diagnosis is made from.
struct DiagnosisInput {
  const KernelRecord* launch = nullptr; ///< rules, grid, block, name (required)
  const LaunchFacts* facts = nullptr;   ///< (required)
  PageKind page = PageKind::raw;
  std::string metric_set; ///< the set's name ("lean", "default", "deep", ...), for the notes
  /// The launch's source-page blocks and hot lines; both nullptr without a source page.
  const std::vector<SourceBlock>* blocks = nullptr;
  const KernelHotLines* hot_lines = nullptr;
  /// The candidate's kernel file; nullptr for a capture read on its own, which does not say
  /// which file launched the kernel (the notes then say so).
  const KernelSource* kernel_source = nullptr;
};

/// The causes of the launch's time, ranked by estimated speedup (causes without one after those
/// with one), ties broken by evidence: the estimate's confidence, then the samples the cause
/// rests on (docs/diagnosis.md, "Ranking"). Never fails; a launch without facts gets an empty
/// diagnosis with notes.
Diagnosis diagnose(const DiagnosisInput& input);

/// {metric, value, meaning}.
void to_json(Json& out, const DiagnosisEvidence& evidence);
/// {category, title, fix, line: {file, line} | null, launch: {file, line, source} | null,
///  evidence: [...], estimated_speedup_pct | null, estimate_confidence ("low" | "medium" |
///  "high") | null, source}: an entry of kernels[].diagnosis (docs/json-schema.md).
void to_json(Json& out, const DiagnosisCause& cause);

} // namespace kprof

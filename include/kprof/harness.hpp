// kprof: the generated Python harness that loads kernel.py + problem.py and runs the profiled call.
//
// The harness is a fixed set of files (templates/harness.py, a thin entry, and the package
// templates/kprof_harness/ beside it, embedded in the binary). Everything
// that varies (paths, warm-up count, ranges) reaches it as data: a JSON plan file named on its
// command line. Nothing is ever spliced into Python source.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/nvtx_ranges.hpp" // k_primer_range, the primer kernel's range

namespace kprof {

enum class InputsOn { gpu, cpu };
std::string_view to_string(InputsOn where);
Result<InputsOn> parse_inputs_on(std::string_view word); ///< "gpu|cpu"

/// The dtype floating-point inputs (and a Model's layer weights) are cast to. `auto_detect`
/// ("auto") is KernelAgent's rule, applied per candidate by the harness: bf16 when
/// kernel_function's lowercased source mentions "bfloat16", else fp16 for "float16" or "half",
/// else fp32 for "float32", else no cast (also when the source cannot be read).
enum class CastDtype { none, auto_detect, bf16, fp16, fp32 };
std::string_view to_string(CastDtype dtype);               ///< auto_detect is "auto"
Result<CastDtype> parse_cast_dtype(std::string_view word); ///< "none|auto|bf16|fp16|fp32"

/// One kernel file to profile, in its own flat NVTX range.
struct HarnessCandidate {
  std::filesystem::path kernel; ///< absolute path of kernel.py
  std::string range;            ///< NVTX range name, "kprof:cand<i>"
  /// `kprof model`'s uncompiled candidate of the plan's problem (is_model_reference_candidate):
  /// the truth's process makes and times the reference once for both, and checks nothing.
  bool reference_itself = false;
};

/// Everything the harness needs, written as JSON next to the script.
/// What the harness measures after each profiled call, outside its range (plan key "truth").
struct TruthPlan {
  bool check = true;           ///< compare the candidate's outputs with the reference's
  bool timing = true;          ///< time the candidate (CUDA events, L2 flushed, a time budget)
  bool reference = true;       ///< time the reference too and count its FLOPs and bytes
  double budget_seconds = 0.1; ///< timed repetitions until this much GPU time ...
  int max_repetitions = 1000;  ///< ... or this many
  /// Override every floating dtype's tolerance (nullopt: the per-dtype defaults of
  /// templates/kprof_harness/correctness.py).
  std::optional<double> atol;
  std::optional<double> rtol;
  /// Where the reference's FLOP counts are kept for the next process (templates/kprof_harness/
  /// flop_cache.py: the out dir's .cache/flops, private); empty: counted in every process.
  std::filesystem::path flop_cache;
  bool operator==(const TruthPlan&) const = default;
};

/// The verdict of a candidate's check against the reference (HarnessCandidateStatus::check).
enum class CheckVerdict { pass, fail, unchecked };
/// "pass", "fail", "unchecked".
std::string_view to_string(CheckVerdict verdict);

struct HarnessPlan {
  std::filesystem::path problem; ///< absolute path of problem.py
  std::vector<HarnessCandidate> candidates;
  std::filesystem::path status_file; ///< where the harness writes its status JSON
  int warmup = 3;                    ///< un-ranged calls before the profiled one
  InputsOn inputs = InputsOn::gpu;
  CastDtype cast = CastDtype::none;
  std::uint64_t seed = 0;
  int first_candidate = 0; ///< skip candidates before this index (restart)
  /// A standby plan: the harness prepares the problem and inputs, then waits on this FIFO for
  /// the candidates (standby_message()); `candidates` is then usually empty.
  std::optional<std::filesystem::path> standby_fifo;
  int standby_idle_seconds = 600; ///< a standby waiting this long exits (code 4) unused
  /// The standby waits before making the inputs (no GPU work until the candidates come): for a
  /// standby started beside a session that still profiles on the same GPU.
  bool standby_defer_inputs = false;
  /// The standby profiles a tiny kernel of its own in the range k_primer_range while it waits, so
  /// that the first-kernel cost of its ncu session (about 1.1 s on the H200) is paid before the
  /// candidates come. Its rows belong to no candidate and reach no report. Not with defer_inputs
  /// (no GPU work before the hand-over).
  bool standby_primer = false;
  /// A standby that makes its inputs before the hand-over holds an exclusive flock on this file
  /// (the GPU's GpuLock::file_of) from its first GPU work (the inputs) to the end of its primer,
  /// and lets it go before it waits: its Python start and torch's import need no lock, so they
  /// run beside another session on the GPU; its GPU work never does. Empty: no lock.
  std::optional<std::filesystem::path> standby_gpu_lock;
  /// A thread started before `import torch` makes the GPU's CUDA context and profiles an empty
  /// kernel of the harness's own in k_primer_range, so that the context's creation and ncu's
  /// first-kernel cost run beside Python's imports (templates/harness.py, EarlyPrimer; a standby
  /// does it under standby_gpu_lock; not with standby_defer_inputs). Its rows reach no report.
  bool early_primer = false;
  /// A host-wide lock file the harness holds (flock) around each profiled call, so that the
  /// profiled calls of harnesses on different GPUs take turns instead of contending in the
  /// driver (docs/harness.md). Never a condition of an answer: after
  /// profiled_call_lock_max_wait_seconds the call goes ahead without it.
  std::optional<std::filesystem::path> profiled_call_lock;
  double profiled_call_lock_max_wait_seconds = 30;
  /// Many launches (docs/harness.md): the first candidate's profiled call waits until this file
  /// exists (kprof read the call's timeline and keeps this session), at most
  /// timeline_gate_max_wait_seconds. Empty: no wait.
  std::optional<std::filesystem::path> timeline_gate;
  double timeline_gate_max_wait_seconds = 120;
  /// Compiling ahead (docs/harness.md): a directory only this user can write, where the harness
  /// and the compile workers kprof starts beside it (`harness.py PLAN --compile-worker`, outside
  /// ncu, seeing no GPU) claim the candidates, publish the harness's Triton target and the
  /// workers' outcomes. Empty: nothing is compiled ahead.
  std::optional<std::filesystem::path> compile_ahead_dir;
  /// How long the harness waits for the worker that claimed a candidate before the candidate's
  /// warm-up (compile_ahead_max_wait_seconds()); past it the warm-up compiles the kernel itself.
  double compile_ahead_max_wait_seconds = 30;
  /// The truth beside the counters (templates/kprof_harness/truth.py, docs/harness.md "The truth"):
  /// nullopt asks for none of it.
  std::optional<TruthPlan> truth;
};

/// The longest the harness waits for a compile worker before a candidate's warm-up, for
/// candidates that may take `timeout` each: a quarter of it, at most 30 s. A worker that hangs
/// on a candidate (a kernel that hangs on meta tensors) costs that candidate this much, and its
/// warm-up compiles the kernel as it would without compile workers, within its timeout.
double compile_ahead_max_wait_seconds(std::chrono::seconds timeout);

/// The line kprof writes into a standby's FIFO: {"candidates": [...], "first_candidate": K} of
/// `plan`, with "compile_ahead": {"dir": D, "max_wait_seconds": W} when it names one,
/// newline-terminated.
std::string standby_message(const HarnessPlan& plan);

/// NVTX range name of candidate `index`: "kprof:cand<index>".
std::string candidate_range(int index);
/// ncu's --nvtx-include for a plan: the candidates' ranges and the primer's,
/// "regex:kprof:(cand[0-9]+|primer)/" (flat ranges; nested do not work).
std::string nvtx_include_for_ranges();

/// One file of the harness as kprof writes it: its path relative to the directory of the entry
/// script ("harness.py", "kprof_harness/plan.py") and its text.
struct HarnessFile {
  std::string_view path;
  std::string_view text;
};

/// The directory, beside the entry script, that holds the harness's package (its modules).
inline constexpr std::string_view k_harness_package = "kprof_harness";

/// The harness, embedded at build time: the entry script (templates/harness.py) first, then the
/// package's modules (templates/kprof_harness/*.py), each path relative to the entry's directory.
std::span<const HarnessFile> harness_files();

/// Writes the harness so that `python3 script_path PLAN` runs it: the package
/// (k_harness_package, beside `script_path`) whole or not at all, replacing an older one there
/// (write_directory_atomic), then the entry script, atomically. io error when either cannot be
/// written ("while writing the harness script").
Result<void> write_harness_script(const std::filesystem::path& script_path);

/// The plan as JSON text (stable key order).
std::string plan_to_json(const HarnessPlan& plan);

/// Writes the harness (write_harness_script) and `plan_path` (the plan), each atomically.
/// io error when either cannot be written; usage error when a path in the plan is not valid
/// UTF-8 (JSON cannot carry it, and the harness could not open it).
Result<void> write_harness(const std::filesystem::path& script_path,
                           const std::filesystem::path& plan_path, const HarnessPlan& plan);

/// Exit codes of the harness process (docs/harness.md).
inline constexpr int k_harness_exit_ok = 0;               ///< every candidate ok
inline constexpr int k_harness_exit_candidate_failed = 1; ///< some candidate failed (see status)
inline constexpr int k_harness_exit_problem_invalid = 2;  ///< problem.py invalid or plan unreadable
inline constexpr int k_harness_exit_cuda_poisoned = 3;    ///< restart from the next candidate
inline constexpr int k_harness_exit_standby_idle = 4;     ///< a standby waited for nothing
inline constexpr int k_harness_exit_internal = 70;        ///< a bug in the harness script
/// Every harness exit code with the name the harness script gives it (EXIT_<NAME>); a test
/// compares this list with templates/harness.py.
inline constexpr std::array<std::pair<std::string_view, int>, 6> k_harness_exit_codes{{
    {"OK", k_harness_exit_ok},
    {"CANDIDATE_FAILED", k_harness_exit_candidate_failed},
    {"PROBLEM_INVALID", k_harness_exit_problem_invalid},
    {"CUDA_POISONED", k_harness_exit_cuda_poisoned},
    {"STANDBY_IDLE", k_harness_exit_standby_idle},
    {"INTERNAL", k_harness_exit_internal},
}};
/// The status file's phase words ("start", "import_problem", ...), in the order a run passes them.
std::span<const std::string_view> harness_status_phases();

/// How far one candidate got, as the harness reported it.
/// Where a candidate got to. `check` (its outputs against the reference's) and `timing` (its
/// timed calls) come after the profiled call, outside its range, when the plan asks for the truth.
enum class HarnessPhase { not_started, import_kernel, warmup, profiled_call, check, timing, done };
std::string_view to_string(HarnessPhase phase);
Result<HarnessPhase> parse_harness_phase(std::string_view word); ///< malformed_input if unknown

struct HarnessCandidateStatus {
  int index = 0;
  std::string range;
  std::filesystem::path kernel; ///< the kernel.py path as the plan named it
  HarnessPhase phase = HarnessPhase::not_started;
  bool ok = false;
  /// Set when !ok: kernel_import, kernel_raised or no_kernels-like categories, with the Python
  /// exception type and message in `message` and the traceback tail in `detail`.
  std::optional<Error> error;
  bool cuda_context_poisoned = false; ///< the error was sticky (illegal address, device assert)
  double import_seconds = 0; ///< loading the candidate's kernel.py (0 from an older harness)
  double warmup_seconds = 0;
  double call_seconds = 0; ///< the profiled call and its synchronize (ncu replay included)
  /// The profiled-call lock: "held", "not held: <why>", or empty (the plan named none).
  std::string call_lock;
  double call_lock_wait_seconds = 0; ///< spent waiting for it, before the range was pushed
  /// "positional" (*inputs, *init_inputs) or "layer_weights" (inputs[0], weight, bias, settings
  /// from Model layer `layer`); empty before the kernel was imported.
  std::string call_style;
  std::string layer;
  /// The cast applied to this candidate's inputs (never auto_detect; none when uncast), and why
  /// ("kernel_function's source mentions 'bfloat16'", "asked for cast bf16", ...); absent and
  /// empty before the kernel was imported, or from a harness that does not report them.
  std::optional<CastDtype> cast_applied;
  std::string cast_reason;
  /// Whether a compile worker compiled this candidate's Triton kernels ahead, while the
  /// candidates before it ran: "compiled", or "not compiled ahead: <why>"; empty when nothing
  /// was compiled ahead (HarnessPlan::compile_ahead_dir; docs/harness.md).
  std::string compiled_ahead;
  /// With compiling ahead: how long the candidate waited for its worker before its warm-up, and
  /// how long that worker took to compile it (0 when the harness compiled it itself).
  double compile_wait_seconds = 0;
  double compile_seconds = 0;
  /// The truth (plan key "truth"): the check's verdict (nullopt: no check ran) and its first
  /// reason; the status's "check", "timing" and "reference" objects as the harness wrote them
  /// (null when absent), which analysis turns into the report's `truth`.
  std::optional<CheckVerdict> check_verdict;
  std::string check_reason;
  Json check;
  Json timing;
  Json reference;
};

struct HarnessStatus {
  /// "start", "import_problem", "inputs", "candidates", "done"; a standby (plan.standby_fifo)
  /// waits in "standby" and ends in "idle" when nothing came.
  std::string phase;
  bool problem_ok = false;
  std::optional<Error> problem_error; ///< problem_invalid with the Python error
  /// Where the inputs were created: "gpu", or "cpu" (asked for, or after a fallback).
  std::string inputs_on;
  /// Why creating the inputs under `torch.device("cuda")` failed ("<Type>: <message>"), when the
  /// harness fell back to creating them on the CPU; empty otherwise.
  std::string inputs_fallback;
  /// Candidates from the plan's first_candidate on (earlier ones are not listed).
  std::vector<HarnessCandidateStatus> candidates;
  double setup_seconds = 0; ///< script start (torch import included) to inputs ready
  double inputs_seconds = 0;
  /// A standby's primer (HarnessPlan::standby_primer): "ran", "failed: <why>", or empty when none
  /// ran; and how long it took (0 when none ran).
  std::string primer;
  double primer_seconds = 0;
  /// A standby's Triton primer (run with the primer): "ran", "no triton: <why>", "failed: <why>",
  /// or empty when none ran; and how long it took.
  std::string triton_primer;
  double triton_primer_seconds = 0;
  /// How long the harness took to find its Triton target and publish it to the compile workers
  /// (docs/harness.md, "Compiling ahead"); 0 when it compiled nothing ahead.
  double compile_target_seconds = 0;
  /// How long the harness's thread took to compute Triton's cache key (triton_key) beside
  /// torch's import (docs/harness.md); 0 without Triton or without such a function.
  double triton_key_seconds = 0;
  std::string python_version;
  std::string torch_version;
  std::string triton_version; ///< empty when triton is absent
  std::string gpu_name;
  /// The GPUs CUDA showed the harness once torch was imported (torch.cuda.device_count()); 0
  /// when the GPU kprof chose is not on this machine (CUDA_VISIBLE_DEVICES names none), and then
  /// the harness stopped before the problem. nullopt before torch's import.
  std::optional<int> cuda_devices;
  /// With cuda_devices 0: the machine's GPUs, whatever CUDA_VISIBLE_DEVICES says (NVML, else
  /// /proc/driver/nvidia/gpus); nullopt when neither could tell.
  std::optional<int> machine_gpus;
  /// A truth process's round (templates/kprof_harness/truth_process.py): the gate it answers
  /// (nullopt in any other status), how many gates that process answered so far, whether it
  /// waits for another (a worker kept across rounds), and the round's measuring time.
  std::optional<int> sequence;
  std::optional<int> rounds_served;
  bool serving = false;
  double measure_seconds = 0;
};

/// Parses the status JSON the harness wrote; malformed_input when it is not one. A problem error
/// becomes problem_invalid; a candidate's "kernel_import"/"kernel_raised" the same category. Each
/// Error's message is "<Python type>: <message>" and its detail the traceback tail.
Result<HarnessStatus> parse_harness_status(std::string_view json_text);

/// Reads the status file; input_not_found when the harness never wrote it.
Result<HarnessStatus> read_harness_status(const std::filesystem::path& path);

/// The Triton cache the harness uses, where hot lines read the compiled PTX: $TRITON_CACHE_DIR when
/// set (the user's own wins), else kprof's own (kprof_triton_cache_dir, when it is private), else
/// Triton's default, $TRITON_HOME or $HOME, then .triton/cache.
std::filesystem::path triton_cache_dir();

/// kprof's Triton cache, which every session gets as TRITON_CACHE_DIR when the user set none:
/// $XDG_CACHE_HOME/kprof/triton, else ~/.cache/kprof/triton, else <tmp>/kprof-triton-<uid>. One
/// cache for every round and output directory, so a kernel compiled once is loaded afterwards.
/// Triton loads what it finds there as code (kernels, its launcher's shared library), so it is
/// used only when private_directory accepts it (with `create`: made 0700 if missing); nullopt
/// otherwise, and the sessions leave Triton to its own default.
std::optional<std::filesystem::path> kprof_triton_cache_dir(bool create);

} // namespace kprof

// kprof: the profile options, written out once.
//
// One table of option specs (name, kind, default, help, valid words, range) serves every shell:
// the CLI adds its options for profile, batch and harness from it, and Python passes its keyword
// arguments as a name -> value mapping (a JSON object) that parse_run_options() turns into
// ProfileOptions with the same validation and the same messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/profiler.hpp"

namespace kprof {

/// The JSON type an option takes, and how the CLI spells its value.
enum class OptionKind {
  flag,        ///< true/false; on the CLI a flag without value
  integer,     ///< a whole number within [min, max]; on the CLI its decimal digits
  text,        ///< any string (a metric set or list, a directory)
  path,        ///< a file name; absent means "look it up" (ncu, python)
  word,        ///< one of `words`
  names,       ///< a list of strings; on the CLI a repeatable option
  gpu_indices, ///< a list of GPU indices; on the CLI "0,1,3"
};

/// The CLI subcommands an option belongs to (a bit set). Python takes every option.
enum OptionScope : unsigned {
  k_scope_profile = 1U,
  k_scope_batch = 2U,
  k_scope_harness = 4U,
  /// `kprof report FILE`: what a report of a capture keeps (select, kernel, metrics, ncu).
  k_scope_report = 8U,
  k_scope_run = k_scope_profile | k_scope_batch,
  k_scope_all = k_scope_run | k_scope_harness,
};

/// Every option of the table, one enumerator each (OptionSpec::id): code that handles each
/// option switches on it, so a new option that is not handled is a compiler warning (an error
/// with -Werror), not a silent default.
enum class OptionId {
  round,
  out_dir,
  logs_dir,
  metrics,
  source,
  ncu,
  python,
  use_sudo,
  timeout,
  retries,
  attempts,
  warmup,
  check,
  timing,
  timing_budget_ms,
  timing_repetitions,
  tolerance,
  inputs,
  cast,
  seed,
  clock_control,
  launches,
  max_replayed,
  select,
  kernels,
  gpu,
  gpus,
  record_history,
  check_metrics,
  prestart,
  standby,
  standby_idle_seconds,
  kernelagent_logs_only,
  keep_ncu_report,
};

struct OptionSpec {
  OptionId id;
  std::string_view name; ///< the key of the mapping ("clock_control")
  std::string_view cli;  ///< the CLI word ("--clock-control"); empty: not on the CLI
  OptionKind kind = OptionKind::text;
  std::string_view default_text; ///< the default as help shows it; empty: none
  std::string_view help;
  std::span<const std::string_view> words; ///< valid words of a `word` option
  std::uint64_t min = 0;                   ///< inclusive range of an `integer` option
  std::uint64_t max = 0;
  unsigned scopes = k_scope_all;
  bool cli_negates = false; ///< the CLI flag sets the option to false ("--no-history")
};

/// Every option of profile / batch / harness, in help order.
std::span<const OptionSpec> option_specs();

/// The spec called `name`, nullptr when there is none.
const OptionSpec* find_option_spec(std::string_view name);

/// How messages name an option and where the GPU count comes from.
struct OptionContext {
  /// The values are the command line's words: messages name options by their CLI word
  /// ("--timeout") and integers arrive as digits. Else integers must be JSON numbers and
  /// messages name options by their key.
  bool cli_names = false;
  /// Keys the caller spelled differently (Python's "ncu_timeout_seconds" for "timeout").
  std::map<std::string, std::string, std::less<>> spelled;
  /// The number of visible GPUs; nullopt when unknown (no driver): any index is accepted.
  std::optional<int> visible_gpus;

  /// The name of option `spec` in messages.
  [[nodiscard]] std::string name_of(const OptionSpec& spec) const;
};

/// What `profile` and `batch` run: the options plus the round number.
struct RunRequest {
  ProfileOptions options;
  int round = 0;
};

/// A whole number too large for a JSON number (a Python int beyond 64 bits), carried as its
/// decimal digits ("-" first when negative) so that messages show it as given. Every integer
/// option, and every integer Slurm setting, reads one as out of its range. python/module.cpp
/// makes them; a JSON text never holds one.
Json big_whole_number(std::string_view digits);

/// The digits of a big_whole_number(); nullopt for any other value.
std::optional<std::string> big_whole_number_digits(const Json& value);

/// `value` as a message shows it: a string in JSON quotes, a number as written (nan, inf), the
/// digits of a big_whole_number(), anything else as JSON.
std::string option_value_text(const Json& value);

/// usage error naming `name` when `text`, a path the caller gave, holds a NUL byte: no file
/// name can, and the system would end the name there, at another file. Every path kprof takes
/// passes here: the path options in parse_run_options(), Python's path arguments (kprof._path).
Result<void> check_path_text(std::string_view text, std::string_view name);

/// Whether the option's value names a file or directory, checked by check_path_text(): the path
/// options and out_dir (text for its default's sake).
bool is_path_option(const OptionSpec& spec);

/// Checks only the JSON types of `values` (an object of option key -> value): usage error
/// naming the option for an unknown key ("unknown option 'x' (valid: ...)") or a value of the
/// wrong type ("timeout must be an integer, not a string"; the element of a list by its index,
/// "gpus[1] must be an integer, not a string"). Python turns the latter into TypeError;
/// parse_run_options() calls it first. NaN, infinities and big_whole_number()s pass for an
/// integer option: they are numbers, out of every range, and parse_run_options() says so.
Result<void> check_option_types(const Json& values, const OptionContext& context);

/// `values` as a RunRequest: defaults for absent keys, integers within their range (digits
/// when context.cli_names), words among their valid words, the metric set
/// resolvable, GPU indices below context.visible_gpus, paths without a NUL byte, `attempts`
/// (Python's max_retries) as retries + 1 and never beside `retries`. Usage errors name the
/// option and the valid words or range in plain numbers. on_progress is left empty.
Result<RunRequest> parse_run_options(const Json& values, const OptionContext& context);

/// The value of every option of the table that `options` holds, keyed by the table's names, in
/// the form parse_run_options() reads back (parse_run_options(option_values(o)) gives `o`): "gpus"
/// for "gpu" and "retries" for "attempts" (the table's other spellings of them), without "round"
/// (a request's, not an option set's). Paths are as given; unset ones are null.
Json option_values(const ProfileOptions& options);

/// The option table's checks on options made in code rather than parsed (a library user, a test):
/// parse_run_options(option_values(options)), so that every way into a profiler is checked by
/// the same ranges, words and messages. usage error as parse_run_options() gives it.
Result<void> check_run_options(const ProfileOptions& options);

/// The command-line words that give `values` (option key -> value, as parse_run_options()
/// takes them: JSON-typed or the CLI's strings) to `kprof profile`/`batch`, in table order:
/// "--timeout 60", a flag's word when it is on ("--no-history" when record_history is false),
/// one "--kernel K" per name, "--gpus 0,1". `attempts` becomes "--retries N-1"; other options
/// without a CLI word are left out, and so is a null path. usage error as check_option_types()
/// gives it.
Result<std::vector<std::string>> option_words(const Json& values);

/// The options, by key, in which a profiler for KernelAgent (Python's KernelProfiler, its
/// registry plugin) differs from the table's defaults, so that it gives what KernelAgent's
/// profiler gives (docs/kernelagent.md): select "longest" (one launch per kernel name, the one the
/// roofline is of), cast "auto" (the dtype kernel_function's source names, as KernelAgent's
/// wrapper does), kernelagent_logs_only true (roundNNN_ncu_metrics.json in logs_dir only). A
/// caller's own value for a key replaces the default. And attempts 2: KernelAgent's max_retries=2.
Json kernelagent_option_defaults();

/// `values` (option key -> value) with kernelagent_option_defaults() for every key it does not
/// give (or gives as null); no default attempts where it gives retries. What a profiler for
/// KernelAgent is made from (Python's KernelProfiler and profile_batch).
Json with_kernelagent_defaults(Json values);

/// The visible GPU count without CUDA: the entries of `cuda_visible_devices` when set (an empty
/// value means none), else the entries of `driver_gpus_dir` (/proc/driver/nvidia/gpus);
/// nullopt when neither is there (no driver: the count is unknown).
std::optional<int> count_visible_gpus(const std::optional<std::string>& cuda_visible_devices,
                                      const std::filesystem::path& driver_gpus_dir);

/// count_visible_gpus() of this process: $CUDA_VISIBLE_DEVICES and /proc/driver/nvidia/gpus.
std::optional<int> visible_gpu_count();

/// Refuses (usage) the first of `gpus` that is not below `visible` ("NAME 99: only 1 GPU is
/// visible (valid: 0 to 0)", "NAME 1: no GPU is visible (...)"); accepts any when `visible` is
/// unknown. The one check of parse_run_options() and KernelProfiler::create(), so the CLI, Python
/// and every other caller of the library refuse the same index with the same words.
Result<void> check_visible_gpus(const std::vector<int>& gpus, std::optional<int> visible,
                                std::string_view name);

} // namespace kprof

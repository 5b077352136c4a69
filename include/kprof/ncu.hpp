// kprof: finding ncu, building its command line, classifying what a run produced.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/process.hpp"

namespace kprof {

enum class ClockControl { base, none };
std::string_view to_string(ClockControl clock);
Result<ClockControl> parse_clock_control(std::string_view word); ///< "base|none"

/// A located ncu and its version.
struct NcuInstall {
  std::filesystem::path executable;
  std::string version; ///< "2025.3.1.0" (from `ncu --version`), "" when it could not be read
};

/// Finds ncu, in order: `explicit_path`, $KPROF_NCU, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin,
/// /opt/nvidia/nsight-compute/*/ncu (newest first). Runs `ncu --version` once per executable
/// (cached in-process). ncu_not_found listing every place looked.
/// An `explicit_path` or $KPROF_NCU that names no executable file, or one whose `--version` names
/// no Nsight Compute version (/bin/true, a script printing something else), is ncu_not_found at
/// once (no fall back: the user asked for that one). For an ncu found by searching, a version that
/// cannot be read leaves `version` empty.
Result<NcuInstall> locate_ncu(const std::optional<std::filesystem::path>& explicit_path);

/// The fixed places locate_ncu() searches after the environment; tests point them at temp dirs.
struct NcuSearchPlaces {
  std::filesystem::path cuda_default = "/usr/local/cuda";                   ///< <this>/bin/ncu
  std::filesystem::path nsight_compute_root = "/opt/nvidia/nsight-compute"; ///< <this>/*/ncu
};

/// locate_ncu() with the fixed places given explicitly.
Result<NcuInstall> locate_ncu(const std::optional<std::filesystem::path>& explicit_path,
                              const NcuSearchPlaces& places);

/// Extracts "2025.3.1.0" from `ncu --version` output; nullopt when absent.
std::optional<std::string> parse_ncu_version(std::string_view version_output);

/// One ncu profiling run.
struct NcuCommand {
  NcuInstall ncu;
  MetricSet metrics;        ///< --metrics and, for sections, --section + details page
  std::string nvtx_include; ///< "" = no NVTX filtering
  ClockControl clock_control = ClockControl::none;
  std::filesystem::path log_file;                   ///< --log-file: ncu's CSV and messages
  std::optional<std::filesystem::path> report_file; ///< -o (without .ncu-rep suffix is fine)
  /// Per-line counters for hot lines: `--section SourceCounters --section WarpStateStats
  /// --import-source yes` (sections not already in `metrics`), and the session prints the
  /// source page (`--page source --print-source cuda,sass`) instead of its rows. Needs
  /// report_file: the rows are imported from the report afterwards (import_rows, the page
  /// rows_page() names). One import of the rows (0.55-0.69 s) instead of one of the source page
  /// (1.27-1.37 s): H200, ncu 2025.3.1, docs/device-runs/2026-12-02-early-primer.md.
  bool source_counters = false;
  /// An empty folder of the session's own: passed as --section-folder when the session collects
  /// metrics only (no sections, no source counters), so that ncu reads none of its section and
  /// rule files at start. `python3 -c pass` under ncu with kprof's options took 0.91-0.94 s with
  /// ncu's folder and 0.55-0.59 s with an empty one (H200, ncu 2025.3.1, 2026-12-02,
  /// scripts/device-primer-ab.sh). Ignored when sections are collected.
  std::optional<std::filesystem::path> empty_section_folder;
  bool use_sudo = false;                 ///< prefix `sudo -E --preserve-env=...`
  std::vector<std::string> preserve_env; ///< variable names kept through sudo
  /// Launch filters (replay_filter_args, kprof/workload.hpp), before the target.
  std::vector<std::string> launch_filters;
  std::vector<std::string> target; ///< the program and its arguments
};

/// The page that holds a session's rows: "details" when `metrics` has sections (their rules are
/// there), else "raw".
std::string_view rows_page(const MetricSet& metrics);

/// The exact argv: [sudo -E --preserve-env=A,B] ncu --csv --page raw|details --metrics ...
/// [--section S]... [--section SourceCounters --section WarpStateStats --import-source yes,
/// with --page source --print-source cuda,sass instead of the rows' page]
/// --nvtx --nvtx-include X [--section-folder EMPTY] --target-processes all --replay-mode kernel
/// --clock-control X --log-file F [-o R -f] target...
std::vector<std::string> build_ncu_argv(const NcuCommand& command);

/// What ncu's messages say, independent of the exit code.
struct NcuLogFacts {
  bool permission_denied = false;           ///< ERR_NVGPUCTRPERM
  bool no_kernels_profiled = false;         ///< "No kernels were profiled"
  std::optional<int> application_exit_code; ///< "The application returned an error code (N)"
  std::vector<std::string> errors; ///< other ==ERROR== lines, in order, without "==ERROR== "
};
/// Reads only ncu's own `==...==` lines; the program's output and CSV rows are ignored.
NcuLogFacts scan_ncu_log(std::string_view log_text);

/// The verdict on one ncu run: ok, or an Error, with `partial` when rows exist but the run failed
/// after profiling, and `retryable` when another attempt may succeed (timeout, transient failure).
struct NcuVerdict {
  std::optional<Error> error;
  bool partial = false;
  bool retryable = false;
  /// The profiled program's exit code: as ncu reported it ("The application returned an error
  /// code (N)"), or 0 when ncu exited 0. nullopt when ncu timed out, was killed or failed
  /// itself (then it says nothing about the program).
  std::optional<int> program_exit_code;
  /// The signal that killed the profiled program when program_exit_code is 128 + N as a shell
  /// reports one (139: SIGSEGV, 11); 0 otherwise.
  int program_signal = 0;
};

/// "SIGSEGV" for 11; "signal N" for a number without a name.
std::string signal_name(int signal);

/// Classifies a finished run from ncu's process result, its log file text and whether the log
/// held kernel rows. Never trusts the exit code alone: rc 0 with no rows is no_kernels; rc != 0
/// with rows is partial. Harness-level causes (import errors, exceptions) are decided by the
/// caller from the harness status, which knows more.
/// ncu's own stdout/stderr (process.out/err) are scanned too: it prints option errors there even
/// with --log-file. Categories: timeout (retryable), permission_denied, no_kernels,
/// program_crashed (the program was killed by a signal, 128 + N; partial with rows),
/// kernel_raised (program failed after kernels were profiled; partial), ncu_failed (program
/// failed before any kernel, ncu killed by a signal (retryable), or an ncu error; retryable when
/// it looks transient). The message is one line; detail holds ncu's error lines and the log's last
/// 40 lines (CSV rows left out).
NcuVerdict classify_ncu_run(const ProcessResult& process, std::string_view log_text,
                            bool has_kernel_rows);

/// classify_ncu_run() for a session whose rows are not in its log (with source counters the log
/// holds the source page and the rows are imported from the report): `launches` is how many
/// launches were read from the report, 0 when none were (no report, or none in it).
NcuVerdict classify_ncu_run_rows_imported(const ProcessResult& process, std::string_view log_text,
                                          std::size_t launches);

/// The FILE that means standard input (`kprof report -`).
inline constexpr std::string_view k_stdin_path = "-";

/// Loads ncu output from `path`: a CSV (raw or details page) directly, or an `.ncu-rep` report
/// through `ncu --import FILE --csv --page raw` (ncu_not_found when `ncu` is null). Both keep
/// the columns `options` keeps (default: every column; see read_options_for() in analysis.hpp).
/// `path` "-" (k_stdin_path) reads standard input (a CSV; a report there is refused). A path
/// that is no regular file is input_not_found saying what it is (FIFO, directory, device,
/// symlink loop), without blocking.
Result<Capture> load_capture(const std::filesystem::path& path, const NcuInstall* ncu,
                             const ReadOptions& options = {});

/// What `ncu --import R --csv --page PAGE` prints (PAGE from rows_page()): the rows of a
/// session's report as CSV text, which a round keeps (RoundLayout::k_rows_page) so that its
/// report can be analysed again without ncu. ncu_not_found when ncu cannot be run, ncu_failed
/// when it fails or runs past `timeout`, malformed_input when it printed more than kprof keeps.
Result<std::string> export_rows(const NcuInstall& ncu, const std::filesystem::path& report,
                                std::string_view page,
                                std::chrono::milliseconds timeout = std::chrono::minutes(2));

/// export_rows() read with `options` (as parse_ncu_csv() for what it printed).
Result<Capture> import_rows(const NcuInstall& ncu, const std::filesystem::path& report,
                            std::string_view page, const ReadOptions& options = {},
                            std::chrono::milliseconds timeout = std::chrono::minutes(2));

/// The argv that prints a report's source page: `ncu --import R --page source --print-source
/// cuda,sass --csv` (docs/hot-lines.md).
std::vector<std::string> source_page_argv(const NcuInstall& ncu,
                                          const std::filesystem::path& report);

/// Runs source_page_argv() and returns its output (the source page's CSV, or only ncu's
/// `==WARNING==` line when the kernels have no line info). ncu_not_found when ncu cannot be
/// run, ncu_failed when it fails or runs past `timeout`.
Result<std::string> export_source_page(const NcuInstall& ncu, const std::filesystem::path& report,
                                       std::chrono::milliseconds timeout = std::chrono::minutes(2));

/// The device's metric listing (`ncu --query-metrics [--chips CHIP]`), cached in `cache_dir`
/// as query-metrics-<version>-<chip or "device">.txt when cache_dir is non-empty and the version
/// is known; a cached file is reused without running ncu. ncu_failed when ncu fails or prints
/// nothing; a cache that cannot be written is not an error.
Result<std::string> query_metrics(const NcuInstall& ncu, std::string_view chip,
                                  const std::filesystem::path& cache_dir);

} // namespace kprof

// kprof: a report of a capture profiled elsewhere (`kprof report FILE`, Python's build_report):
// the one reading of FILE, its metric set and its selection, shared by the CLI and the module.
// FILE may also be a report.json kprof wrote (or a round directory holding one): its analysis
// and diagnosis are then made again, by the running kprof, from what the report was built from
// (ReportInputs, its metadata.built_from).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu.hpp"
#include "kprof/source_page.hpp"

namespace kprof {

/// What a report was built from, so that `kprof report REPORT` can build it again with the
/// running kprof, without ncu or a GPU (`metadata.built_from`, docs/json-schema.md). A relative
/// path is relative to the directory of the report.json (the rounds kprof writes use them, so a
/// round can be moved or copied whole); an absolute one is used as it is.
struct ReportInputs {
  /// The ncu CSV whose rows were read (raw or details page, as ncu printed it), or an .ncu-rep
  /// (read again through ncu); nullopt for standard input, which cannot be read again.
  std::optional<std::filesystem::path> rows;
  /// The source page the hot lines and the diagnosis's lines came from (CSV, or the .ncu-rep it
  /// was exported from); nullopt without one.
  std::optional<std::filesystem::path> source_page;
  /// Only the launches of this NVTX range were analysed (a profiled candidate's, "kprof:cand0");
  /// empty: every range.
  std::string nvtx_range;
  /// The --kernel filters (a launch is kept when its name contains one of them).
  std::vector<std::string> kernels;
  /// Every column of the capture was kept (a profiled round); false: the metric set's and the
  /// analysis's columns (`kprof report FILE`, read_options_for()).
  bool all_columns = false;
};

/// `metadata.built_from`: {rows, source_page, nvtx_range, kernels, all_columns}, paths as held.
Json to_json(const ReportInputs& inputs);
/// `metadata.built_from` read back; malformed_input naming the key that is wrong.
Result<ReportInputs> report_inputs_from_json(const Json& built_from);

/// What `kprof report FILE --select S --kernel K... --metrics M [--ncu PATH] [--source |
/// --source-page P]` reads.
struct ReportFileRequest {
  static constexpr std::string_view k_default_select = "all";
  static constexpr std::string_view k_default_metrics = "default";

  /// ncu --csv output (a page or a session log), an .ncu-rep, a report.json kprof wrote, or a
  /// directory holding one (a round's, or a batch candidate's).
  std::filesystem::path file;
  /// nullopt: k_default_select for a capture, the report's own for a report.json.
  std::optional<std::string> select;
  /// Keep kernels whose name contains one of these; empty: all (a report.json: its own filters).
  std::vector<std::string> kernels;
  /// The set whose metrics the report shows; nullopt: k_default_metrics for a capture, the
  /// report's own set for a report.json.
  std::optional<std::string> metrics;
  std::optional<std::filesystem::path> ncu; ///< to import an .ncu-rep (else KPROF_NCU, PATH, ...)
  /// Hot lines from this source page (`--source-page`), or (`source`) from the .ncu-rep's own.
  std::optional<std::filesystem::path> source_page;
  bool source = false;
  /// Where Triton's PTX is looked for to fold the hot lines (empty: kprof's Triton cache).
  std::filesystem::path triton_cache;
};

/// What a report of FILE is built (or streamed) from.
struct ReportFileParts {
  Capture capture;
  Analysis analysis;
  MetricSet metrics;
  /// The facts the report's metadata gets: {"select": S, "built_from": {...}}; for a report.json
  /// also its own metadata (round, candidate, kernel_file, ...) and `reanalysis`.
  Json run;
  std::optional<NcuInstall> ncu; ///< the ncu that imported an .ncu-rep (exports its source page)
  /// The source page the hot lines come from (asked for, or the one a report.json was built
  /// with); nullopt without hot lines.
  std::optional<SourcePage> source_page;
  std::filesystem::path source_page_file; ///< where source_page was read, for messages
  std::filesystem::path triton_cache;     ///< ReportFileRequest::triton_cache, resolved
  /// FILE was a report.json: a source page that cannot be matched to the launches is written
  /// into metadata.hot_lines.error (as the round that wrote it did), not an error.
  bool reanalysis = false;
  /// A report.json's `workload` member (a call replayed in two tiers), kept as its round wrote
  /// it: the rows are analysed again, the call's timeline is not.
  std::optional<Json> workload;
};

/// Reads request.file (an .ncu-rep through ncu), keeps what the set needs, selects and analyses;
/// reads or exports the source page asked for. A report.json (or a directory holding one) is
/// analysed again from its `built_from` (else, for a report of an earlier kprof, from where its
/// round keeps its rows), with its own select, filters and metric set unless the request gives
/// them. usage (a bad set or select word, a batch round's directory), input_not_found (a file,
/// or one the report was built from, is missing), malformed_input (a report of a newer kprof,
/// one that does not say what it was built from), ncu_not_found or no_kernels errors, named with
/// the file.
Result<ReportFileParts> read_report_file(const ReportFileRequest& request);

/// The report document of `parts` (build_report), with the hot lines of parts.source_page.
/// The errors of attach_hot_lines, with the file's name, unless parts.reanalysis.
Result<Json> report_file_document(const ReportFileParts& parts);

} // namespace kprof

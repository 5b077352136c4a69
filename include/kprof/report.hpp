// kprof: the versioned report document and its sinks (JSON, CSV, prompt, table).
//
// Data flows one way: Capture + Analysis -> report document (JSON, schema in docs/json-schema.md)
// -> sinks. Every sink renders from the document alone, so a document loaded back from disk
// (diff, history, Python) renders exactly like a fresh one.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/hot_lines.hpp"
#include "kprof/json_file.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/source_page.hpp"

namespace kprof {

/// Bumped on any change of the document layout: 2 added kernels[].hot_lines, 3 the `workload`
/// member of a call replayed in two tiers (kprof/workload.hpp), 4 the candidate's "truth"
/// (measured time, check, reference, speed of light; kprof/truth.hpp). A reader reads
/// every version up to this one.
inline constexpr int k_report_schema_version = 4;

/// Builds the report document:
///   schema_version, metadata {kprof_version, source, generated_at, gpu, ncu_version?, page,
///   metric_set {name, metrics[{name,label,group}]}, select, ...run_metadata},
///   kernels [{name, id, nvtx_range, grid, block, device, cc, metrics {m: {value, unit}}, rules?}],
///   summary {total_duration_ns, launches, dominant_kernel, kernels[{name, launches, duration_ns,
///   share}]}, roofline {kernel name: {...}}, metrics {kernel name: {m: number}} (KernelAgent
///   layout).
/// `run_metadata` (an object) is merged into metadata last, so a caller can add run facts.
/// Only the selected launches appear in kernels/metrics. NaN/inf and missing values are null;
/// integral numbers below 2^53 are stored as integers. Details pages add "section" to each
/// kernels[].metrics entry. `analysis` must come from `capture` (asserted). Never fails.
Json build_report(const Capture& capture, const Analysis& analysis, const MetricSet& metrics,
                  const Json& run_metadata = Json::object());

/// The document the table, prompt and html sinks draw, in memory that does not grow with the
/// launches: build_report's, except that kernels[] holds only each kernel name's representative
/// launch (its longest, the first on a tie or without durations: the launch ReportView picks)
/// and the KernelAgent `metrics` are empty. Metadata, summary (launch counts and durations over
/// every selected launch) and roofline are build_report's, so those sinks render the same text
/// from either (tests compare them on the recorded fixtures). Not a report to write or record:
/// its kernels[] is not the selection. Never fails.
Json build_report_of_representatives(const Capture& capture, const Analysis& analysis,
                                     const MetricSet& metrics,
                                     const Json& run_metadata = Json::object());

/// build_report_of_representatives' document made from a report held as a tree (one loaded from
/// disk, a profiled round's, one with hot lines): every member as it is, except that kernels[]
/// holds only each kernel name's representative launch (ReportView's pick; names in the order of
/// their first launch) and the KernelAgent `metrics` are empty. What the table, prompt and html
/// sinks draw of `report`, in memory that does not grow with its launches. Never fails.
Json report_outline(const Json& report);

/// Adds `hot_lines` (hot_lines_to_json, docs/hot-lines.md) to every kernels[] entry of
/// `report` whose launch has blocks on the source page. `capture` is the capture the report was
/// built from (its launches, in order, are the page's launches); the PTX that folds Triton's
/// library lines is looked up in `triton_cache` (find_triton_ptx) for each user file of the
/// page. malformed_input when the page's blocks cannot be matched to the capture's launches
/// (the report is left unchanged then).
Result<void> attach_hot_lines(Json& report, const Capture& capture, const SourcePage& page,
                              const std::filesystem::path& triton_cache,
                              const HotLineOptions& options = {});

/// report_outline() of the JSON text `in` yields, parsed as a stream: each launch is dropped
/// once read unless it is its name's representative so far, and the KernelAgent `metrics` are
/// not built, so memory is the outline's, however many launches the text holds. Not validated.
/// malformed_input with nlohmann's message when the text is not JSON.
Result<Json> parse_report_outline(std::istream& in);

/// report_outline(load_report(path)), read as a stream (parse_report_outline): a report.json of
/// 150,000 launches (1 GB) is read in the memory of its outline. Errors as load_report(), whose
/// words it takes for a file that is not a report.
Result<Json> load_report_outline(const std::filesystem::path& path);

/// Checks that `doc` is a kprof report this version can read (schema_version, required keys);
/// malformed_input otherwise, naming what is missing ("summary.dominant_kernel") or, for a larger
/// schema_version, saying that the report was "written by a newer kprof".
Result<void> validate_report(const Json& doc);

/// Parses and validates a report file written by kprof (e.g. round003/report.json).
/// input_not_found when the file cannot be read or is a directory; malformed_input "PATH is not a
/// kprof report: it is ..." saying what it is instead and what to do (ncu's CSV output, an
/// .ncu-rep, a kprof.db, a batch.json or error.json, another kprof document, empty, binary, JSON
/// cut short with nlohmann's position), or with validate_report's message when it is a report
/// this kprof cannot read.
Result<Json> load_report(const std::filesystem::path& path);

enum class Format { json, csv, prompt, table, html };
std::string_view to_string(Format format);
/// "json|csv|prompt|table|html"; usage error listing the valid words otherwise.
Result<Format> parse_format(std::string_view word);

struct RenderOptions {
  bool color = false; ///< ANSI colour in the table (off when NO_COLOR is set)
  /// Decimals of KernelAgent-style numbers. build_report() always rounds the document's
  /// `metrics` to 3 (KernelAgent's default); the prompt and table print values through
  /// format_with_unit(), whose precision is fixed, so no sink reads this today.
  int round_digits = 3;
  std::size_t max_rules = 5; ///< NCU rule findings per kernel in the prompt/table
  /// Columns the table fills (wrapping, and cutting only what cannot wrap). The CLI gives the
  /// terminal's: COLUMNS, else the width of the terminal that stdout is, else this default.
  std::size_t width = 100;
  bool compact = false; ///< JSON without indentation
};

/// What a kprof JSON document holds. Every artefact kprof prints is a document of one kind
/// (docs/json-schema.md), and every Format's sink renders every kind, so the CLI and Python
/// never format by hand.
enum class DocumentKind {
  report,      ///< build_report(): the profile of one capture (no "kind" member, schema v1)
  history,     ///< history_document(): the rounds of a history database
  diff,        ///< diff_reports(): what changed between two reports
  convergence, ///< convergence_document(): whether to stop optimising
  metric_set,  ///< metric_set_document(): a metric set (`kprof metrics`)
  round,       ///< round_document() (kprof/round.hpp): a round's candidates, ranked
  doctor,      ///< doctor_document(): the checks of `kprof doctor`
};

/// "report", "history", "diff", "convergence", "metric_set", "round", "doctor".
std::string_view to_string(DocumentKind kind);

/// The document's "kind" member; a document without one is a report (report documents predate
/// the member). malformed_input naming the word when it is not a kind this kprof knows.
Result<DocumentKind> document_kind(const Json& doc);

/// schema_version of the documents other than the report (history, diff, convergence,
/// metric_set, round, doctor); bumped on an incompatible change of any of them (2: the batch
/// document became the round document, kind "round", with the one shape of a candidate).
inline constexpr int k_document_schema_version = 2;

/// {schema_version, kind: "metric_set", name, description, metrics: [{name, label, group}],
///  sections, other_sets?: [names of the built-in sets]} (other_sets only when
/// `list_builtin_sets`). Never fails.
Json metric_set_document(const MetricSet& set, bool list_builtin_sets = false);

/// One check of `kprof doctor`, as the doctor document shows it (profiler.hpp's DoctorCheck
/// carries the same fields).
struct DoctorLine {
  std::string name; ///< "ncu", "gpu", "counters", "python", "torch", "triton"
  bool ok = false;
  std::string detail; ///< version, or the reason it failed
  std::optional<Error> error;
};

/// {schema_version, kind: "doctor", ok (no failed check carries an error), checks: [{name, ok,
/// detail,
///  error: {category, message, detail} | null}]}. Never fails.
Json doctor_document(const std::vector<DoctorLine>& checks);

/// One output format. Sinks are stateless; render() renders a document of any DocumentKind
/// and never fails: a document of a kind this kprof does not know renders as JSON text.
class Sink {
public:
  virtual ~Sink() = default;
  [[nodiscard]] virtual Format format() const = 0;
  [[nodiscard]] virtual std::string render(const Json& doc, const RenderOptions& options) const = 0;
};

std::unique_ptr<Sink> make_sink(Format format);

/// Receives text piece by piece (a file being written, standard output).
using TextOut = std::function<void(std::string_view)>;

/// Writes render(Format::json, build_report(capture, analysis, metrics, run_metadata), options)
/// to `out` in pieces of about 1 MiB without building the document: the launches (`kernels`
/// and the KernelAgent `metrics`) are written one at a time, so memory is one launch's entry and
/// one piece however many launches were selected (a 20,000-launch document is 80 MB of text).
/// The bytes are the tree's, with its rules (invalid UTF-8 as U+FFFD, NaN and inf as null,
/// integral numbers as integers), except metadata.generated_at, which is the time of this call.
/// Never fails; `out` reports its own failures (AtomicFile::write remembers them).
/// `kept_members` (an object) are written after the document's own, as they are
/// (ReportFileParts::kept_members: what a report.json analysed again keeps).
void write_report_json(const Capture& capture, const Analysis& analysis, const MetricSet& metrics,
                       const Json& run_metadata, const RenderOptions& options, const TextOut& out,
                       const Json& kept_members = Json::object());

/// A member of a report's KernelAgent `metrics` object (ReportSource::agent_members()).
struct AgentMember {
  std::string name;
  bool list = false; ///< a list of records, else one record
};

/// A report document as the files of a round read it (report.json, metrics.csv, KernelAgent's
/// roundNNN_ncu_metrics.json, the history row): held as a tree (HeldReport) or made from its
/// capture launch by launch (CaptureReport), so that a 20,000-launch capture is recorded without
/// its tree. Each of those files has one writer that reads a ReportSource; both kinds give it
/// the same document.
class ReportSource {
public:
  ReportSource() = default;
  ReportSource(const ReportSource&) = delete;
  ReportSource& operator=(const ReportSource&) = delete;
  ReportSource(ReportSource&&) = delete;
  ReportSource& operator=(ReportSource&&) = delete;
  virtual ~ReportSource() = default;

  /// The document's members that do not grow with its launches, to read through ReportView:
  /// metadata, summary and roofline are the document's, and kernels[] holds at least each
  /// name's representative launch (the whole document for a held tree; CaptureReport's is
  /// build_report_of_representatives'). Launches are read with for_each_launch(), the
  /// KernelAgent `metrics` with agent_members() and for_each_agent_record().
  [[nodiscard]] virtual const Json& outline() const = 0;
  /// Calls `each` with every kernels[] entry, in document order. With `diagnosis` false the
  /// caller reads no `diagnosis` or `diagnosis_notes`, and an entry may come without them. With
  /// `per_name` above 0, only the first `per_name` entries of each kernel name, the others not
  /// made at all.
  virtual void for_each_launch(const std::function<void(const Json&)>& each, bool diagnosis = true,
                               int per_name = 0) const = 0;
  /// Whether every kernels[] entry's `metrics` has the same keys with the same units (a
  /// capture's launches all have its columns), so that one launch tells them all.
  [[nodiscard]] virtual bool uniform_metrics() const { return false; }
  /// The members of the KernelAgent `metrics` object, in document order: each kernel name,
  /// and whether its value is a list of records (a name of several launches) or one record.
  [[nodiscard]] virtual std::vector<AgentMember> agent_members() const = 0;
  /// Calls `each` with the records of the KernelAgent `metrics` member `name` (agent_members()'s
  /// word), in order, one at a time: its one record, or each record of its list. Nothing when
  /// there is no such member.
  virtual void for_each_agent_record(const std::string& name,
                                     const std::function<void(const Json& record)>& each) const = 0;
  /// render(Format::json, document, options), in pieces.
  virtual void write_json(const RenderOptions& options, const TextOut& out) const = 0;
  /// json_text(document, compact ? -1 : 2): the text of write_json() in one string (compact:
  /// without the sink's final line break), allocated once.
  [[nodiscard]] virtual std::string document_text(bool compact) const = 0;
};

/// A report document held as a tree (a profiled round's, or one loaded from disk). Borrows
/// `doc`, which must outlive it.
class HeldReport final : public ReportSource {
public:
  explicit HeldReport(const Json& doc) : m_doc(&doc) {}
  explicit HeldReport(const Json&& doc) = delete; ///< would dangle

  [[nodiscard]] const Json& outline() const override { return *m_doc; }
  void for_each_launch(const std::function<void(const Json&)>& each, bool diagnosis = true,
                       int per_name = 0) const override;
  [[nodiscard]] std::vector<AgentMember> agent_members() const override;
  void for_each_agent_record(const std::string& name,
                             const std::function<void(const Json& record)>& each) const override;
  void write_json(const RenderOptions& options, const TextOut& out) const override;
  [[nodiscard]] std::string document_text(bool compact) const override;

private:
  const Json* m_doc;
};

/// build_report(capture, analysis, metrics, run_metadata)'s document, never built whole: the
/// launches are made one at a time when read (for_each_launch, for_each_agent_entry) and the
/// JSON text is write_report_json's. metadata.generated_at is the time of construction (unless
/// run_metadata names one), so every file made from it says the same. Borrows capture,
/// analysis and metrics, which must outlive it. Memory: the outline's launches (one per kernel
/// name) and an index of the selected launches by name, whatever the number of launches.
class CaptureReport final : public ReportSource {
public:
  /// `kept_members` (an object) follow the document's own members, in its outline and its JSON
  /// (ReportFileParts::kept_members).
  CaptureReport(const Capture& capture, const Analysis& analysis, const MetricSet& metrics,
                const Json& run_metadata = Json::object(), Json kept_members = Json::object());

  /// build_report_of_representatives(capture, analysis, metrics, run_metadata): what the table,
  /// prompt and html sinks draw of this report.
  [[nodiscard]] const Json& outline() const override { return m_outline; }
  [[nodiscard]] bool uniform_metrics() const override { return true; }
  void for_each_launch(const std::function<void(const Json&)>& each, bool diagnosis = true,
                       int per_name = 0) const override;
  [[nodiscard]] std::vector<AgentMember> agent_members() const override;
  void for_each_agent_record(const std::string& name,
                             const std::function<void(const Json& record)>& each) const override;
  void write_json(const RenderOptions& options, const TextOut& out) const override;
  /// Written twice: once to count its bytes, then into a string of that size.
  [[nodiscard]] std::string document_text(bool compact) const override;

private:
  const Capture* m_capture;
  const Analysis* m_analysis;
  const MetricSet* m_metrics;
  Json m_run_metadata; ///< the caller's, with generated_at
  Json m_kept_members;
  Json m_outline;
  /// The selected launches (indices into the capture) of each kernel name, in the order of the
  /// KernelAgent `metrics` members.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> m_agent_launches;
  std::unordered_map<std::string, std::size_t> m_agent_slot; ///< name -> m_agent_launches index
};

/// A report whose JSON text is in a file already (`path`, the text `made->write_json(
/// RenderOptions{})` wrote; opened without following a link): the text is read back from it (the
/// compact text by leaving out the pretty text's whitespace between tokens) instead of made
/// again, and the rest is `made`'s. A round's report.json is written once and its history
/// document and the CLI's copy on stdout read it back: a round of 20,000 launches made the text
/// of each launch four times before (docs/performance.md). The file is held open, so renaming
/// its directory (a round's commit) does not matter; its text is `made`'s when the file cannot
/// be read from its start, and a read that fails later ends the text there. io error when it
/// cannot be opened or is not a regular file.
Result<std::shared_ptr<const ReportSource>>
open_written_report(std::shared_ptr<const ReportSource> made, const std::filesystem::path& path);

/// render(Format::csv, document): the CSV sink's text of the document, read launch by launch.
std::string report_csv_text(const ReportSource& report);
/// report_csv_text(report) handed to `out` in pieces of about 1 MiB, never held whole.
void write_report_csv(const ReportSource& report, const TextOut& out);

/// Shorthand for make_sink(format)->render(doc, options): the one call that turns any kprof
/// document into the text of `format`.
std::string render(Format format, const Json& doc, const RenderOptions& options = {});

/// The whole diagnosis of one kernels[] entry as text: every cause in the document's order
/// ("N. title [estimate; source]: `code`"), its line and its evidence ("- metric = value:
/// meaning"), then the notes (kernels[].diagnosis_notes: what it could not look at). "" when the
/// entry has neither (docs/diagnosis.md).
std::string diagnosis_text(const Json& kernel);

} // namespace kprof

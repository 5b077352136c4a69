// kprof report module, internal: the sink classes and the helpers the text sinks share.
//
// Every sink reads the document through ReportView and json_read (kprof/report_view.hpp): a key
// that is missing or has an unexpected type reads as "absent", so render() never throws on a
// document that passed validate_report (which checks only the keys every sink needs).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/report.hpp"
#include "kprof/report_view.hpp"

namespace kprof::report_detail {

std::unique_ptr<Sink> make_json_sink();
std::unique_ptr<Sink> make_csv_sink();
std::unique_ptr<Sink> make_prompt_sink();
std::unique_ptr<Sink> make_table_sink();
std::unique_ptr<Sink> make_html_sink();

/// The one rule for numbers in documents (kprof/json_file.hpp).
using ::kprof::number_json;

// The sinks read documents through the one read side (kprof/report_view.hpp).
using json_read::bool_at;
using json_read::member;
using json_read::number_at;
using json_read::text_at;

/// A labelled value as the text sinks print it ("DRAM bytes read", "16.79 MB").
struct LabelledValue {
  std::string label;
  std::string text;
};

/// Values shown under one heading: a metric-set group (raw page) or an ncu section (details).
struct ValueGroup {
  std::string heading;
  std::vector<LabelledValue> values;
};

/// The values of one kernels[] entry grouped for display. Raw page: the metric set's metrics
/// that the launch has, grouped by MetricSpec::group in set order, labelled by MetricSpec::label.
/// Details page: every value grouped by section in document order. Null values are left out.
std::vector<ValueGroup> value_groups(const ReportView& view, const Json& kernel);

/// The launch's rules, best first: OPT before ERR, WRN, INF, then by estimated speedup
/// (largest first), ties in document order; at most `max_rules`.
std::vector<const Json*> top_rules(const Json& kernel, std::size_t max_rules);

/// One hot line of a kernel entry's `hot_lines` member, as text (hot_lines_text.cpp).
struct HotLineText {
  std::string where;   ///< "kernel.py:11"
  std::string source;  ///< the line's source text
  std::string share;   ///< "39%"
  std::string samples; ///< "3,728"
  bool few_samples = false;
  std::string stalls;  ///< "long scoreboard 52%, LG throttle 10%"
  std::string memory;  ///< "uncoalesced: ...; 128-bit accesses", or empty
  std::string inlined; ///< "tl.max" (library calls folded in), or empty
};

/// The hot lines of `kernel` (a kernels[] entry), hottest first; empty without hot lines.
std::vector<HotLineText> hot_line_texts(const Json& kernel);

/// The prompt sink's "Hot lines" section of `kernel` (a kernels[] entry): a heading, one line per
/// hot line, the notes; empty without hot lines (prompt_sink.cpp).
std::string hot_lines_section(const Json& kernel);

/// What the hot lines leave out or qualify: unattributed library samples, the notes.
std::vector<std::string> hot_line_notes(const Json& kernel);

/// One cause of a kernels[] entry's diagnosis, as text (diagnosis_text.cpp).
struct CauseText {
  std::string category; ///< "uncoalesced_access"
  std::string title;    ///< the cause's sentence, with its line
  std::string estimate; ///< "up to 75% of the time", or "no estimate"
  std::optional<double> estimate_pct;
  std::string source;      ///< "ncu:UncoalescedGlobalAccess", "kprof:launch", ...
  std::string where;       ///< "strided_load.py:13", or empty
  std::string code;        ///< that line's source text when the hot lines hold it, or empty
  std::string launch;      ///< "kernel.py:22": where the kernel is launched, or empty
  std::string launch_code; ///< that line's text, or empty
  std::string fix;         ///< what to change, in the kernel's language, or empty
};

/// The causes of `kernel` (a kernels[] entry), in the document's order (most important first).
std::vector<CauseText> cause_texts(const Json& kernel);

/// kernels[].diagnosis_notes of `kernel`: what its diagnosis could not look at.
std::vector<std::string> diagnosis_notes(const Json& kernel);

/// The diagnosis notes of the kernels' longest launches, each once, in the kernels' order.
std::vector<std::string> report_diagnosis_notes(const std::vector<const ReportKernel*>& kernels);

/// The value of one evidence entry of a cause (a number as format_number() writes it, a text as
/// it is), or "".
std::string evidence_value(const Json& item);

/// "title [up to 75% of the time; ncu:Rule]: `source text`".
std::string cause_line(const CauseText& cause);

/// "What to fix first:" and the first `top` causes, each "N. " cause_line() and its fix, every
/// line after `indent`; then how many more the JSON holds. "" without causes. With a `width`
/// (the table) each cause and fix is wrapped to that many columns under its number; else one
/// line each (the prompt).
std::string fix_first_text(const Json& kernel, std::size_t top, std::string_view indent,
                           std::size_t width = 0);

/// A library kernel under this share of the time is drawn on one line with the others.
inline constexpr double k_minor_library_share = 0.03;

/// Kernels in reading order: the candidate's own, longest first, then the library kernels;
/// library kernels under k_minor_library_share go to `minor_library`.
struct KernelOrder {
  std::vector<const ReportKernel*> shown;
  std::vector<const ReportKernel*> minor_library;
};
KernelOrder kernels_for_reading(const std::vector<ReportKernel>& by_duration);

/// "2 library kernels under 3% of the time each, 0.4% in all: name (1.79 us); ...", or "".
std::string minor_kernels_text(const std::vector<const ReportKernel*>& kernels);

/// `prefix` and `text` broken at spaces into lines of at most `width` columns, the lines after
/// the first indented by `indent`; ends with a line break.
std::string wrapped_text(std::string_view prefix, std::string_view text, std::size_t width,
                         std::size_t indent);

/// Escapes text for HTML (the HTML sink's escape_html).
using HtmlEscape = std::string (*)(std::string_view);

/// `escaped` (text already escaped for HTML) with each `span` between backticks as
/// <code>span</code>, as the prose of causes, fixes and notes quotes commands and code; an odd
/// backtick stays as it is.
std::string html_code_spans(std::string_view escaped);

/// The HTML of a kernel's diagnosis: the ranked causes with their evidence, then its notes.
std::string diagnosis_html(const Json& kernel, const HtmlEscape& escape);

/// "long scoreboard" for ncu's "long_sb"; an unknown key as it is.
std::string stall_reason_text(std::string_view reason);

/// "[OPT, est. 43.7% global]" / "[INF]".
std::string rule_tag(const Json& rule);

/// The first sentence of `text` (up to and including the first ". "), trimmed.
std::string first_sentence(std::string_view text);

/// "61%" (share 0..1, rounded to a whole percent).
std::string share_text(double share);

/// "9.4%", or `missing` when nullopt.
std::string percent_text(std::optional<double> pct, std::string_view missing);

/// A report's `workload` member (a call of many launches) as lines of text ending in a newline:
/// the totals, each distinct kernel's sentence (the first 12) and what the budget left out.
/// Empty without the member.
std::string workload_text(const Json& doc);

/// "GPU: NVIDIA H200 (peak DRAM 4.80 TB/s)" (or "GPU: unknown").
std::string gpu_line(const Json& doc);

/// The report's "truth" in lines (truth_text.cpp): the check, the measured time beside the
/// reference's, the speed of light, ncu against the measurement, the notes; none without it.
std::vector<std::string> truth_lines(const Json& doc);

// ---- text layout shared by every kind ----------------------------------------------------

/// Display columns of UTF-8 text (continuation bytes take no column).
std::size_t display_width(std::string_view text);
/// `text` cut to at most `width` display columns, ending in `ellipsis` (one column) when cut.
std::string fit(std::string_view text, std::size_t width, std::string_view ellipsis = "\u2026");
/// `text` up to its first line break.
std::string first_line(std::string text);
/// Lays out rows of cells as left-aligned columns two spaces apart, without trailing spaces.
std::string columns(const std::vector<std::vector<std::string>>& rows);
/// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);
/// format_number(), or "" when absent.
std::string csv_number(const std::optional<double>& value);
/// A metric value for a person: "%" as short_percent_text, no unit as the number rounded to 3
/// decimals, others via format_with_unit; "-" when absent.
std::string short_value_text(const std::optional<double>& value, std::string_view unit);

/// `doc` with every string, object keys included, passed through printable(Multiline::yes), or
/// nullopt when no string of it needs escaping (then no copy is made). The csv, prompt and
/// table sinks render the escaped copy (make_sink), so a kernel name, path, log line or
/// traceback in a document reaches a terminal or a spreadsheet with its control characters
/// shown as `\xNN`, never acted on.
std::optional<Json> printable_copy(const Json& doc);

// ---- the documents other than the report (DocumentKind) ----------------------------------

/// The text of `doc` in a text format (csv, prompt or table) when it is not a report: the
/// renderer of its kind, or JSON text for a kind this kprof does not know. nullopt for a report
/// (the caller, a sink, renders it).
std::optional<std::string> artefact_text(const Json& doc, Format format);

std::string history_text(const Json& doc, Format format);
std::string convergence_text(const Json& doc, Format format);
std::string diff_text(const Json& diff, Format format);
std::string metric_set_text(const Json& doc, Format format);
std::string round_text(const Json& doc, Format format);
std::string doctor_text(const Json& doc, Format format);

} // namespace kprof::report_detail

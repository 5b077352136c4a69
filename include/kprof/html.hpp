// kprof: the HTML view of a report document and of a run directory (docs/html.md).
//
// One self-contained page: inline CSS, inline SVG charts, a few lines of inline JS that only sort
// the kernel table. Nothing is fetched (a Content-Security-Policy meta tag refuses every request),
// every table is in the HTML so the page reads without JS, in dark and light schemes and on paper.
// Every string taken from a document is escaped with escape_html(), so kernel names holding '<',
// '&', quotes or invalid UTF-8 render as text.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "kprof/error.hpp"
#include "kprof/report.hpp"

namespace kprof {

/// `text` made safe for HTML text and attribute values: & < > " ' become entities, bytes that
/// are not valid UTF-8 and control characters other than tab and newline (C0, DEL, and the C1
/// controls U+0080..U+009F) become U+FFFD. Never throws.
std::string escape_html(std::string_view text);

/// The page of one report document (what `kprof report --format html` prints): header facts,
/// speed-of-light chart, roofline chart (or why it is absent), the sortable kernel table and per
/// kernel its metrics by group, ncu's findings and hot lines (when the document has them).
/// Never throws on a document that passed validate_report().
std::string render_report_html(const Json& doc);

/// What the page of a run directory shows, as plain JSON so the report module can render it
/// without reaching up to the history module:
///   {directory, rows: [render_history json rows, each plus "document": report | null],
///    convergence: to_json(Convergence) | null, diff: diff_reports(first, best) | null,
///    diff_error: string | null}
/// Built by load_run_view() (kprof/run_view.hpp, in the history module).
std::string render_run_html(const Json& run);

} // namespace kprof

// CSV sink: one row per kernel launch of the document. Columns: kernel, id, nvtx_range, grid,
// block, then the metric set's metrics that any launch has (details pages, or a raw page
// without a metric set: every value column), header cells "metric (unit)". RFC 4180 quoting,
// '\n' line ends, numbers via format_number (shortest round trip, locale-proof).
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "kprof/numbers.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

struct CsvColumn {
  std::string key;
  std::string header;
};

void append_cell(std::string& out, std::string_view cell) {
  const bool quote = cell.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!cell.empty() && (cell.front() == ' ' || cell.back() == ' '));
  if (!quote) {
    out += cell;
    return;
  }
  out += '"';
  for (const char c : cell) {
    if (c == '"') {
      out += '"';
    }
    out += c;
  }
  out += '"';
}

void append_row(std::string& out, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    append_cell(out, cells[i]);
  }
  out += '\n';
}

std::string scalar_text(const Json& value) {
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_number()) {
    return format_number(value.get<double>());
  }
  if (value.is_boolean()) {
    return value.get<bool>() ? "true" : "false";
  }
  return {};
}

std::string dims_text(const Json& kernel, std::string_view key) {
  const Json* dims = member(kernel, key);
  if (dims == nullptr || !dims->is_array()) {
    return {};
  }
  std::string text;
  for (const Json& dim : *dims) {
    if (!text.empty()) {
      text += 'x';
    }
    text += scalar_text(dim);
  }
  return text;
}

/// A key of the launches' metrics with the unit of the first launch that has it.
struct LaunchKey {
  std::string key;
  std::string unit;
};

/// Every key of the launches' metrics, in the order of first appearance (of one launch, when
/// they all have the same: a 20,000-launch capture's were made twice for metrics.csv).
std::vector<LaunchKey> launch_keys(const ReportSource& report) {
  std::vector<LaunchKey> keys;
  std::unordered_set<std::string> seen;
  report.for_each_launch(
      [&](const Json& launch) {
        const std::optional<Json> escaped = printable_copy(launch);
        const Json* metrics = member(escaped ? *escaped : launch, "metrics");
        if (metrics == nullptr || !metrics->is_object()) {
          return;
        }
        for (const auto& [key, entry] : metrics->items()) {
          if (seen.insert(key).second) {
            keys.push_back(LaunchKey{key, text_at(entry, "unit")});
          }
        }
      },
      false, report.uniform_metrics() ? 1 : 0);
  return keys;
}

/// The metric columns: on a raw page with a metric set, the set's metrics that some launch has,
/// in the set's order; else every key of the launches' metrics. Header "key (unit)", the unit
/// of the first launch that has the key.
std::vector<CsvColumn> metric_columns(const Json& outline, const ReportSource& report) {
  std::vector<LaunchKey> keys = launch_keys(report);
  const Json* metadata = member(outline, "metadata");
  const bool details = metadata != nullptr && text_at(*metadata, "page") == "details";
  const Json* set = metadata == nullptr ? nullptr : member(*metadata, "metric_set");
  const Json* specs = set == nullptr ? nullptr : member(*set, "metrics");
  if (!details && specs != nullptr && specs->is_array() && !specs->empty()) {
    std::vector<LaunchKey> chosen;
    for (const Json& spec : *specs) {
      const std::string name = text_at(spec, "name");
      const auto found = std::find_if(keys.begin(), keys.end(),
                                      [&name](const LaunchKey& key) { return key.key == name; });
      if (found != keys.end()) {
        chosen.push_back(*found);
      }
    }
    keys = std::move(chosen);
  }
  std::vector<CsvColumn> columns;
  columns.reserve(keys.size());
  for (LaunchKey& key : keys) {
    std::string header = key.key;
    if (!key.unit.empty()) {
      header.append(" (").append(key.unit).append(")");
    }
    columns.push_back(CsvColumn{std::move(key.key), std::move(header)});
  }
  return columns;
}

/// One launch's row.
void append_launch(std::string& out, const Json& kernel, const std::vector<CsvColumn>& columns,
                   std::vector<std::string>& cells) {
  cells.clear();
  cells.push_back(text_at(kernel, "name"));
  const Json* id = member(kernel, "id");
  cells.push_back(id == nullptr ? std::string() : scalar_text(*id));
  cells.push_back(text_at(kernel, "nvtx_range"));
  cells.push_back(dims_text(kernel, "grid"));
  cells.push_back(dims_text(kernel, "block"));
  const Json* metrics = member(kernel, "metrics");
  for (const CsvColumn& column : columns) {
    const Json* entry = metrics == nullptr ? nullptr : member(*metrics, column.key);
    const Json* value = entry == nullptr ? nullptr : member(*entry, "value");
    cells.push_back(value == nullptr ? std::string() : scalar_text(*value));
  }
  append_row(out, cells);
}

class CsvSink final : public Sink {
public:
  [[nodiscard]] Format format() const override { return Format::csv; }

  [[nodiscard]] std::string render(const Json& doc,
                                   const RenderOptions& /*options*/) const override {
    if (std::optional<std::string> text = artefact_text(doc, format())) {
      return std::move(*text); // a document other than a report
    }
    return report_csv_text(HeldReport(doc));
  }
};

} // namespace

std::unique_ptr<Sink> make_csv_sink() {
  return std::make_unique<CsvSink>();
}

} // namespace kprof::report_detail

namespace kprof {

std::string report_csv_text(const ReportSource& report) {
  std::string text;
  write_report_csv(report, [&text](std::string_view piece) { text += piece; });
  return text;
}

void write_report_csv(const ReportSource& report, const TextOut& out) {
  using report_detail::printable_copy;
  constexpr std::size_t k_piece = std::size_t{1} << 20U;
  // The text sinks' edge (make_sink's PrintableSink): every string made printable, here one
  // launch at a time.
  const std::optional<Json> outline = printable_copy(report.outline());
  const std::vector<report_detail::CsvColumn> columns =
      report_detail::metric_columns(outline ? *outline : report.outline(), report);
  std::string text;
  std::vector<std::string> cells{"kernel", "id", "nvtx_range", "grid", "block"};
  for (const report_detail::CsvColumn& column : columns) {
    cells.push_back(column.header);
  }
  report_detail::append_row(text, cells);
  report.for_each_launch(
      [&](const Json& launch) {
        const std::optional<Json> escaped = printable_copy(launch);
        report_detail::append_launch(text, escaped ? *escaped : launch, columns, cells);
        if (text.size() >= k_piece) {
          out(text);
          text.clear();
        }
      },
      false);
  out(text);
}

} // namespace kprof

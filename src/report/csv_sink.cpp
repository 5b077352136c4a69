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

std::string unit_of(const Json& kernels, const std::string& key) {
  for (const Json& kernel : kernels) {
    if (const Json* metrics = member(kernel, "metrics"); metrics != nullptr) {
      if (const Json* entry = member(*metrics, key); entry != nullptr) {
        return text_at(*entry, "unit");
      }
    }
  }
  return {};
}

bool any_kernel_has(const Json& kernels, const std::string& key) {
  return std::any_of(kernels.begin(), kernels.end(), [&](const Json& kernel) {
    const Json* metrics = member(kernel, "metrics");
    return metrics != nullptr && member(*metrics, key) != nullptr;
  });
}

std::vector<CsvColumn> metric_columns(const Json& doc, const Json& kernels) {
  std::vector<std::string> keys;
  const Json* metadata = member(doc, "metadata");
  const bool details = metadata != nullptr && text_at(*metadata, "page") == "details";
  const Json* set = metadata == nullptr ? nullptr : member(*metadata, "metric_set");
  const Json* specs = set == nullptr ? nullptr : member(*set, "metrics");
  if (!details && specs != nullptr && specs->is_array() && !specs->empty()) {
    for (const Json& spec : *specs) {
      std::string name = text_at(spec, "name");
      if (any_kernel_has(kernels, name)) {
        keys.push_back(std::move(name));
      }
    }
  } else {
    std::unordered_set<std::string> seen;
    for (const Json& kernel : kernels) {
      const Json* metrics = member(kernel, "metrics");
      if (metrics == nullptr || !metrics->is_object()) {
        continue;
      }
      for (const auto& [key, entry] : metrics->items()) {
        if (seen.insert(key).second) {
          keys.push_back(key);
        }
      }
    }
  }
  std::vector<CsvColumn> columns;
  columns.reserve(keys.size());
  for (std::string& key : keys) {
    const std::string unit = unit_of(kernels, key);
    std::string header = key;
    if (!unit.empty()) {
      header.append(" (").append(unit).append(")");
    }
    columns.push_back(CsvColumn{std::move(key), std::move(header)});
  }
  return columns;
}

class CsvSink final : public Sink {
public:
  [[nodiscard]] Format format() const override { return Format::csv; }

  [[nodiscard]] std::string render(const Json& doc,
                                   const RenderOptions& /*options*/) const override {
    if (std::optional<std::string> text = artefact_text(doc, format())) {
      return std::move(*text); // a document other than a report
    }
    static const Json k_no_kernels = Json::array();
    const Json* found = member(doc, "kernels");
    const Json& kernels = found != nullptr && found->is_array() ? *found : k_no_kernels;
    const std::vector<CsvColumn> columns = metric_columns(doc, kernels);

    std::string out;
    std::vector<std::string> cells{"kernel", "id", "nvtx_range", "grid", "block"};
    for (const CsvColumn& column : columns) {
      cells.push_back(column.header);
    }
    append_row(out, cells);
    for (const Json& kernel : kernels) {
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
    return out;
  }
};

} // namespace

std::unique_ptr<Sink> make_csv_sink() {
  return std::make_unique<CsvSink>();
}

} // namespace kprof::report_detail

#include "kprof/kernelagent.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "kprof/report.hpp"
#include "report/sinks.hpp"

namespace kprof {
namespace {

/// A cell of the text: numbers rounded and tidied like KernelAgent's prompt, others unchanged.
Json cell(const Json& value, const KernelAgentTextOptions& options) {
  if (value.is_number_float()) {
    const double number = value.get<double>();
    return kernelagent_value(options.round_digits && std::isfinite(number)
                                 ? round_to(number, *options.round_digits)
                                 : number);
  }
  return value;
}

/// Python's json.dumps(value) without indent: ", " between items and ": " after keys.
void append_compact(std::string& out, const Json& value) {
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      out += first ? "" : ", ";
      first = false;
      out += Json(key).dump(-1, ' ', false, Json::error_handler_t::replace);
      out += ": ";
      append_compact(out, item);
    }
    out += '}';
  } else if (value.is_array()) {
    out += '[';
    bool first = true;
    for (const Json& item : value) {
      out += first ? "" : ", ";
      first = false;
      append_compact(out, item);
    }
    out += ']';
  } else {
    out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

} // namespace

Json kernelagent_value(double value) {
  return report_detail::number_json(value);
}

Result<Json> kernelagent_rows(const Json& report) {
  if (auto valid = validate_report(report); !valid) {
    return std::move(valid).error();
  }
  std::vector<std::string> names;
  for (const Json& spec : report["metadata"]["metric_set"]["metrics"]) {
    names.push_back(spec["name"].get<std::string>());
  }
  Json rows = Json::array();
  for (const Json& kernel : report["kernels"]) {
    Json row = Json::object();
    row["Kernel Name"] = kernel["name"];
    const Json& metrics = kernel["metrics"];
    for (const std::string& name : names) {
      if (metrics.contains(name)) {
        row[name] = metrics[name]["value"];
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::string> kernelagent_metrics_text(const Json& rows,
                                             const KernelAgentTextOptions& options) {
  const bool all_rows_are_objects =
      rows.is_array() &&
      std::all_of(rows.begin(), rows.end(), [](const Json& row) { return row.is_object(); });
  if (!all_rows_are_objects) {
    return make_error(ErrorCategory::usage, "the metric rows must be a list of mappings");
  }
  const bool keyed = std::all_of(rows.begin(), rows.end(),
                                 [&](const Json& row) { return row.contains(options.key_by); });
  Json data;
  if (!keyed) {
    data = Json::array();
    for (const Json& row : rows) {
      Json listed = Json::object();
      for (const auto& [key, value] : row.items()) {
        listed[key] = cell(value, options);
      }
      data.push_back(std::move(listed));
    }
  } else {
    data = Json::object();
    for (const Json& row : rows) {
      const Json& key = row[options.key_by];
      const std::string name = key.is_string() ? key.get<std::string>() : key.dump();
      Json record = Json::object();
      for (const auto& [column, value] : row.items()) {
        const bool kept = !options.keep_columns ||
                          std::find(options.keep_columns->begin(), options.keep_columns->end(),
                                    column) != options.keep_columns->end();
        if (column != options.key_by && kept) {
          record[column] = cell(value, options);
        }
      }
      if (!data.contains(name)) {
        data[name] = std::move(record);
      } else if (data[name].is_array()) {
        data[name].push_back(std::move(record));
      } else {
        data[name] = Json::array({data[name], std::move(record)});
      }
    }
  }
  if (options.compact) {
    std::string text;
    append_compact(text, data);
    return text;
  }
  return data.dump(2, ' ', false, Json::error_handler_t::replace);
}

} // namespace kprof

// write_report_json: the JSON sink's text of a report document, written without the document.
//
// A report of every launch of a big capture (`--select all` on 20,000 launches) is 80 MB of JSON
// text; as an nlohmann tree it took 450 MB and most of the command's time. Here the parts that do
// not grow with the launches (metadata, summary, roofline) still come from the tree
// (report_skeleton, shared with build_report), and the two parts that do, `kernels` and the
// KernelAgent `metrics`, are written entry by entry by JsonWriter (json_writer.hpp), which lays
// text out exactly as nlohmann's dump() does; column keys and units are quoted once per column.
// Tests compare the bytes with render(Format::json, build_report(...)) on the recorded fixtures.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kprof/report.hpp"
#include "report/json_writer.hpp"
#include "report/report_parts.hpp"
#include "report/sinks.hpp"

namespace kprof {

namespace {

using report_detail::json_quoted;
using report_detail::JsonWriter;

/// What every launch's entry repeats, quoted once.
struct ColumnText {
  std::size_t column = 0;
  std::string key;     ///< quoted column key
  std::string unit;    ///< quoted unit
  std::string section; ///< quoted section (details pages)
};

std::vector<ColumnText> column_texts(const Capture& capture) {
  const std::vector<std::string> keys = report_detail::column_keys(capture);
  std::vector<ColumnText> out;
  for (std::size_t i = 0; i < capture.columns.size(); ++i) {
    if (keys[i].empty()) {
      continue;
    }
    out.push_back(ColumnText{i, json_quoted(keys[i]), json_quoted(capture.columns[i].unit),
                             json_quoted(capture.columns[i].section)});
  }
  return out;
}

void write_triple(JsonWriter& writer, const std::array<std::int64_t, 3>& values) {
  writer.begin_array();
  for (const std::int64_t value : values) {
    writer.integer(value);
  }
  writer.end_array();
}

void write_rule(JsonWriter& writer, const RuleResult& rule) {
  writer.begin_object();
  writer.key(R"("section")");
  writer.string(rule.section);
  writer.key(R"("name")");
  writer.string(rule.name);
  writer.key(R"("type")");
  writer.string(rule.type);
  writer.key(R"("description")");
  writer.string(rule.description);
  writer.key(R"("speedup_type")");
  writer.string(rule.speedup_type);
  writer.key(R"("estimated_speedup")");
  if (rule.estimated_speedup) {
    writer.number(*rule.estimated_speedup);
  } else {
    writer.null();
  }
  writer.end_object();
}

/// One kernels[] entry, as document.cpp's kernel_json builds it.
void write_kernel(JsonWriter& writer, const Capture& capture, const KernelRecord& record,
                  const std::vector<ColumnText>& columns,
                  const report_detail::DiagnosisContext& diagnosis_context) {
  writer.begin_object();
  writer.key(R"("name")");
  writer.string(record.name);
  writer.key(R"("id")");
  writer.integer(record.id);
  writer.key(R"("nvtx_range")");
  if (record.nvtx_range.empty()) {
    writer.null();
  } else {
    writer.string(record.nvtx_range);
  }
  writer.key(R"("grid")");
  write_triple(writer, record.grid);
  writer.key(R"("block")");
  write_triple(writer, record.block);
  writer.key(R"("device")");
  writer.integer(record.device);
  writer.key(R"("cc")");
  writer.string(record.cc);
  writer.key(R"("metrics")");
  writer.begin_object();
  const bool details = capture.page == PageKind::details;
  for (const ColumnText& column : columns) {
    writer.key(column.key);
    writer.begin_object();
    writer.key(R"("value")");
    writer.value(capture.value(record, column.column));
    writer.key(R"("unit")");
    writer.raw(column.unit);
    if (details) {
      writer.key(R"("section")");
      writer.raw(column.section);
    }
    writer.end_object();
  }
  writer.end_object();
  if (!record.rules.empty()) {
    writer.key(R"("rules")");
    writer.begin_array();
    for (const RuleResult& rule : record.rules) {
      write_rule(writer, rule);
    }
    writer.end_array();
  }
  const report_detail::DiagnosisMembers diagnosis =
      report_detail::diagnosis_members(diagnosis_context, record);
  writer.key(R"("diagnosis")");
  writer.tree(diagnosis.causes);
  writer.key(R"("diagnosis_notes")");
  writer.tree(diagnosis.notes);
  writer.end_object();
}

/// A metric of the set that the capture has, for the KernelAgent records.
struct AgentColumn {
  std::string key; ///< quoted metric name
  std::size_t column = 0;
};

std::vector<AgentColumn> agent_columns(const Capture& capture, const MetricSet& set) {
  std::vector<AgentColumn> out;
  for (const MetricSpec& spec : set.metrics) {
    const std::optional<std::size_t> column = capture.column_index(spec.name);
    if (!column) {
      continue;
    }
    std::string key = json_quoted(spec.name);
    // A name the set repeats keeps its first place (an object key is set once).
    bool seen = false;
    for (const AgentColumn& existing : out) {
      seen = seen || existing.key == key;
    }
    if (!seen) {
      out.push_back(AgentColumn{std::move(key), *column});
    }
  }
  return out;
}

/// One KernelAgent record, as document.cpp's kernel_agent_record builds it.
void write_agent_record(JsonWriter& writer, const Capture& capture, const KernelRecord& record,
                        const std::vector<AgentColumn>& columns) {
  writer.begin_object();
  for (const AgentColumn& column : columns) {
    writer.key(column.key);
    const MetricValue value = capture.value(record, column.column);
    if (value.kind == ValueKind::number) {
      writer.number(report_detail::kernel_agent_number(value.number));
    } else {
      writer.value(value);
    }
  }
  writer.end_object();
}

/// The KernelAgent `metrics` object: per kernel name (first launch's order) its record, or the
/// list of its records when the name has several selected launches.
void write_agent_metrics(JsonWriter& writer, const Capture& capture, const Analysis& analysis,
                         const MetricSet& set) {
  const std::vector<AgentColumn> columns = agent_columns(capture, set);
  writer.begin_object();
  for (const auto& [name, launches] : report_detail::launches_by_name(capture, analysis)) {
    writer.key(json_quoted(name));
    if (launches.size() == 1) {
      write_agent_record(writer, capture, capture.kernels[launches.front()], columns);
      continue;
    }
    writer.begin_array();
    for (const std::size_t index : launches) {
      write_agent_record(writer, capture, capture.kernels[index], columns);
      writer.flush_if_full();
    }
    writer.end_array();
  }
  writer.end_object();
}

} // namespace

void write_report_json(const Capture& capture, const Analysis& analysis, const MetricSet& metrics,
                       const Json& run_metadata, const RenderOptions& options, const TextOut& out,
                       const Json& kept_members) {
  const Json skeleton = report_detail::report_skeleton(capture, analysis, metrics, run_metadata);
  JsonWriter writer(options.compact ? -1 : 2, out);
  writer.begin_object();
  for (const auto& [key, value] : skeleton.items()) {
    writer.key(json_quoted(key));
    if (key == "kernels") {
      const std::vector<ColumnText> columns = column_texts(capture);
      const report_detail::DiagnosisContext diagnosis(capture, analysis.gpu, metrics.name,
                                                      skeleton.at("metadata"));
      writer.begin_array();
      for (const std::size_t index : analysis.selected) {
        write_kernel(writer, capture, capture.kernels[index], columns, diagnosis);
        writer.flush_if_full();
      }
      writer.end_array();
    } else if (key == "metrics") {
      write_agent_metrics(writer, capture, analysis, metrics);
    } else {
      writer.tree(value);
    }
  }
  for (const auto& [key, value] : kept_members.items()) {
    writer.key(json_quoted(key));
    writer.tree(value);
  }
  writer.end_object();
  // The JSON sink ends its text with a line break in both layouts.
  writer.raw("\n");
  writer.flush();
}

} // namespace kprof

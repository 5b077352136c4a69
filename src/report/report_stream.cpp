// write_report_json: the JSON sink's text of a report document, written without the document.
//
// A report of every launch of a big capture (`--select all` on 20,000 launches) is 80 MB of JSON
// text; as an nlohmann tree it took 450 MB and most of the command's time. Here the parts that do
// not grow with the launches (metadata, summary, roofline) still come from the tree
// (report_skeleton, shared with build_report), and the two parts that do, `kernels` and the
// KernelAgent `metrics`, are written entry by entry by JsonWriter, which lays text out exactly as
// nlohmann's dump() does (same indentation, ", " and ": ", "{}" and "[]" for empty containers).
// Scalars are written by nlohmann itself except plain ASCII strings and integers, whose text is
// the same by construction; column keys and units are quoted once per column. Tests compare the
// bytes with render(Format::json, build_report(...)) on the recorded fixtures.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kprof/report.hpp"
#include "report/report_parts.hpp"
#include "report/sinks.hpp"

namespace kprof {

namespace {

constexpr std::size_t k_piece_bytes = std::size_t{1} << 20U;

/// `text` as a JSON string literal, as nlohmann dumps it (invalid UTF-8 becomes U+FFFD).
void append_quoted(std::string& out, std::string_view text) {
  bool plain = true;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20U || byte >= 0x80U || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string json_quoted(std::string_view text) {
  std::string out;
  append_quoted(out, text);
  return out;
}

/// Writes JSON text piece by piece with nlohmann's layout: `indent` spaces per level, or compact
/// when negative. Keys are passed already quoted (json_quoted()).
class JsonWriter {
public:
  JsonWriter(int indent, const TextOut& out)
      : m_pretty(indent >= 0), m_indent(indent >= 0 ? static_cast<std::size_t>(indent) : 0),
        m_out(out) {
    m_buffer.reserve(k_piece_bytes + (k_piece_bytes / 4));
  }

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  /// A member's key; the next call writes its value.
  void key(std::string_view quoted_key) {
    element();
    m_buffer += quoted_key;
    m_buffer += m_pretty ? ": " : ":";
    m_after_key = true;
  }

  /// A value whose JSON text is `text` (a quoted string, a number, null).
  void raw(std::string_view text) {
    value_start();
    m_buffer += text;
  }

  void string(std::string_view text) {
    value_start();
    append_quoted(m_buffer, text);
  }

  void integer(std::int64_t value) {
    value_start();
    fmt::format_int digits(value);
    m_buffer.append(digits.data(), digits.size());
  }

  void null() { raw("null"); }

  /// A number as number_json() stores it: null, an integer, or a double as nlohmann prints it.
  void number(double value) {
    const Json json = report_detail::number_json(value);
    if (json.is_number_integer()) {
      integer(json.get<std::int64_t>());
    } else {
      tree(json);
    }
  }

  void value(const MetricValue& value) {
    switch (value.kind) {
    case ValueKind::number:
      number(value.number);
      return;
    case ValueKind::text:
      string(value.text);
      return;
    case ValueKind::null:
      break;
    }
    null();
  }

  /// Any JSON value, dumped by nlohmann and indented to the current depth.
  void tree(const Json& value) {
    value_start();
    const std::string text = value.dump(m_pretty ? static_cast<int>(m_indent) : -1, ' ', false,
                                        Json::error_handler_t::replace);
    if (!m_pretty || !value.is_structured()) {
      m_buffer += text;
      return;
    }
    // A dumped tree starts at depth 0; every line after its first moves to this depth. A line
    // break inside a dumped string is escaped, so every '\n' is a line of the layout.
    const std::size_t depth = m_stack.size() * m_indent;
    std::size_t from = 0;
    for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', from)) {
      m_buffer.append(text, from, at + 1 - from);
      m_buffer.append(depth, ' ');
      from = at + 1;
    }
    m_buffer += std::string_view(text).substr(from);
  }

  /// Hands the text written so far to `out` when it has grown to a piece.
  void flush_if_full() {
    if (m_buffer.size() >= k_piece_bytes) {
      flush();
    }
  }

  void flush() {
    if (!m_buffer.empty()) {
      m_out(m_buffer);
      m_buffer.clear();
    }
  }

private:
  /// Starts a value: after a key it follows the key, else it is an element of an array.
  void value_start() {
    if (m_after_key) {
      m_after_key = false;
      return;
    }
    element();
  }

  /// Starts an element (member or array value) of the innermost container.
  void element() {
    if (m_stack.empty()) {
      return;
    }
    std::size_t& count = m_stack.back();
    if (count++ > 0) {
      m_buffer += ',';
    }
    if (m_pretty) {
      m_buffer += '\n';
      m_buffer.append(m_stack.size() * m_indent, ' ');
    }
  }

  void open(char bracket) {
    value_start();
    m_buffer += bracket;
    m_stack.push_back(0);
  }

  void close(char bracket) {
    const std::size_t count = m_stack.back();
    m_stack.pop_back();
    if (count > 0 && m_pretty) {
      m_buffer += '\n';
      m_buffer.append(m_stack.size() * m_indent, ' ');
    }
    m_buffer += bracket;
  }

  bool m_pretty;
  std::size_t m_indent;
  const TextOut& m_out;
  std::string m_buffer;
  std::vector<std::size_t> m_stack; ///< elements written so far in each open container
  bool m_after_key = false;
};

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
                  const std::vector<ColumnText>& columns, const LaunchFactReader& facts,
                  std::string_view metric_set) {
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
      report_detail::diagnosis_members(facts, record, capture.page, metric_set);
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
  std::vector<std::pair<std::string_view, std::vector<std::size_t>>> by_name;
  std::unordered_map<std::string_view, std::size_t> position;
  for (const std::size_t index : analysis.selected) {
    const std::string_view name = capture.kernels[index].name;
    const auto [it, inserted] = position.try_emplace(name, by_name.size());
    if (inserted) {
      by_name.emplace_back(name, std::vector<std::size_t>{});
    }
    by_name[it->second].second.push_back(index);
  }
  const std::vector<AgentColumn> columns = agent_columns(capture, set);
  writer.begin_object();
  for (const auto& [name, launches] : by_name) {
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
                       const Json& run_metadata, const RenderOptions& options, const TextOut& out) {
  const Json skeleton = report_detail::report_skeleton(capture, analysis, metrics, run_metadata);
  JsonWriter writer(options.compact ? -1 : 2, out);
  writer.begin_object();
  for (const auto& [key, value] : skeleton.items()) {
    writer.key(json_quoted(key));
    if (key == "kernels") {
      const std::vector<ColumnText> columns = column_texts(capture);
      const LaunchFactReader facts(capture, analysis.gpu);
      writer.begin_array();
      for (const std::size_t index : analysis.selected) {
        write_kernel(writer, capture, capture.kernels[index], columns, facts, metrics.name);
        writer.flush_if_full();
      }
      writer.end_array();
    } else if (key == "metrics") {
      write_agent_metrics(writer, capture, analysis, metrics);
    } else {
      writer.tree(value);
    }
  }
  writer.end_object();
  // The JSON sink ends its text with a line break in both layouts.
  writer.raw("\n");
  writer.flush();
}

} // namespace kprof

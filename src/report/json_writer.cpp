// JsonWriter (json_writer.hpp): the layout of nlohmann's dump(), written piece by piece. Scalars
// are written by nlohmann itself except plain ASCII strings and integers, whose text is the same
// by construction.
#include "report/json_writer.hpp"

#include <fmt/format.h>

#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

constexpr std::size_t k_piece_bytes = std::size_t{1} << 20U;

} // namespace

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

void append_at_depth(std::string& out, const Json& value, int indent, std::size_t depth) {
  const std::string text = value.dump(indent, ' ', false, Json::error_handler_t::replace);
  if (indent < 0 || !value.is_structured()) {
    out += text;
    return;
  }
  // A dumped tree starts at depth 0; every line after its first moves to this depth. A line
  // break inside a dumped string is escaped, so every '\n' is a line of the layout.
  const std::size_t spaces = depth * static_cast<std::size_t>(indent);
  std::size_t from = 0;
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', from)) {
    out.append(text, from, at + 1 - from);
    out.append(spaces, ' ');
    from = at + 1;
  }
  out += std::string_view(text).substr(from);
}

JsonWriter::JsonWriter(int indent, const TextOut& out)
    : m_pretty(indent >= 0), m_indent(indent >= 0 ? static_cast<std::size_t>(indent) : 0),
      m_out(out) {
  m_buffer.reserve(k_piece_bytes + (k_piece_bytes / 4));
}

void JsonWriter::key(std::string_view quoted_key) {
  element();
  m_buffer += quoted_key;
  m_buffer += m_pretty ? ": " : ":";
  m_after_key = true;
}

void JsonWriter::raw(std::string_view text) {
  value_start();
  m_buffer += text;
}

void JsonWriter::string(std::string_view text) {
  value_start();
  append_quoted(m_buffer, text);
}

void JsonWriter::integer(std::int64_t value) {
  value_start();
  fmt::format_int digits(value);
  m_buffer.append(digits.data(), digits.size());
}

void JsonWriter::number(double value) {
  const Json json = number_json(value);
  if (json.is_number_integer()) {
    integer(json.get<std::int64_t>());
  } else {
    tree(json);
  }
}

void JsonWriter::value(const MetricValue& value) {
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

void JsonWriter::tree(const Json& value) {
  value_start();
  append_at_depth(m_buffer, value, m_pretty ? static_cast<int>(m_indent) : -1, m_stack.size());
}

void JsonWriter::flush_if_full() {
  if (m_buffer.size() >= k_piece_bytes) {
    flush();
  }
}

void JsonWriter::flush() {
  if (!m_buffer.empty()) {
    m_out(m_buffer);
    m_buffer.clear();
  }
}

void JsonWriter::value_start() {
  if (m_after_key) {
    m_after_key = false;
    return;
  }
  element();
}

void JsonWriter::element() {
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

void JsonWriter::open(char bracket) {
  value_start();
  m_buffer += bracket;
  m_stack.push_back(0);
}

void JsonWriter::close(char bracket) {
  const std::size_t count = m_stack.back();
  m_stack.pop_back();
  if (count > 0 && m_pretty) {
    m_buffer += '\n';
    m_buffer.append(m_stack.size() * m_indent, ' ');
  }
  m_buffer += bracket;
}

} // namespace kprof::report_detail

// kprof report module, internal: JSON text written piece by piece in nlohmann's layout, for the
// documents too big to hold as a tree (write_report_json, the KernelAgent round file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/report.hpp"

namespace kprof::report_detail {

/// `text` as a JSON string literal, as nlohmann dumps it (invalid UTF-8 becomes U+FFFD).
void append_quoted(std::string& out, std::string_view text);
std::string json_quoted(std::string_view text);

/// Appends value.dump(indent) (invalid UTF-8 as U+FFFD) as it appears at `depth` of a document
/// dumped with `indent`: every line after the first moved `depth` levels in.
void append_at_depth(std::string& out, const Json& value, int indent, std::size_t depth);

/// Writes JSON text piece by piece with nlohmann's layout: `indent` spaces per level, or compact
/// when negative (same indentation, ", " and ": " or "," and ":", "{}" and "[]" for empty
/// containers). Keys are passed already quoted (json_quoted()). The text goes to `out` in pieces
/// of about 1 MiB (flush_if_full) and at flush().
class JsonWriter {
public:
  JsonWriter(int indent, const TextOut& out);

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  /// A member's key; the next call writes its value.
  void key(std::string_view quoted_key);
  /// A value whose JSON text is `text` (a quoted string, a number, null, or a value laid out
  /// for this depth by append_at_depth).
  void raw(std::string_view text);
  void string(std::string_view text);
  void integer(std::int64_t value);
  void null() { raw("null"); }
  /// A number as number_json() stores it: null, an integer, or a double as nlohmann prints it.
  void number(double value);
  void value(const MetricValue& value);
  /// Any JSON value, dumped by nlohmann and indented to the current depth.
  void tree(const Json& value);

  /// The depth of the next value (the open containers).
  [[nodiscard]] std::size_t depth() const { return m_stack.size(); }

  /// Hands the text written so far to `out` when it has grown to a piece.
  void flush_if_full();
  void flush();

private:
  /// Starts a value: after a key it follows the key, else it is an element of an array.
  void value_start();
  /// Starts an element (member or array value) of the innermost container.
  void element();
  void open(char bracket);
  void close(char bracket);

  bool m_pretty;
  std::size_t m_indent;
  const TextOut& m_out;
  std::string m_buffer;
  std::vector<std::size_t> m_stack; ///< elements written so far in each open container
  bool m_after_key = false;
};

} // namespace kprof::report_detail

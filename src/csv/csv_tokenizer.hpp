// kprof (private to src/csv): an incremental tokenizer for ncu's CSV mixed with other text.
//
// ncu quotes every CSV field, so a line that starts with '"' is a CSV record and any other line
// is text (ncu's `==PROF==` lines, the profiled program's stdout, blank lines). Records follow
// RFC 4180: fields may hold commas, doubled quotes and newlines. Input arrives in chunks of any
// size; a record that straddles two chunks is carried over, and scanning resumes where it
// stopped, so the work is linear in the input whatever the chunk size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::csv {

/// Receives what the tokenizer finds, in input order. The views are valid only during the call.
class LineSink {
public:
  LineSink() = default;
  LineSink(const LineSink&) = default;
  LineSink(LineSink&&) = default;
  LineSink& operator=(const LineSink&) = default;
  LineSink& operator=(LineSink&&) = default;
  virtual ~LineSink() = default;

  /// A CSV record starting on physical line `line` (1-based); fields are unquoted and unescaped.
  /// Return false to stop tokenizing.
  virtual bool on_record(std::size_t line, std::span<const std::string_view> fields) = 0;

  /// A line that is not CSV, without its line terminator. Return false to stop tokenizing.
  virtual bool on_text(std::size_t line, std::string_view text) = 0;
};

/// Why tokenizing failed: the line it concerns and a one-line reason.
struct TokenizerError {
  enum class Reason : std::uint8_t { binary, unterminated_quote };
  Reason reason = Reason::binary;
  std::size_t line = 0;
  std::string message;
};

/// Splits a byte stream into CSV records and text lines (see the file comment).
class CsvTokenizer {
public:
  explicit CsvTokenizer(LineSink& sink) : m_sink(&sink) {}

  /// Tokenizes the next piece of input. Returns false when the sink asked to stop or the input is
  /// not text (a NUL byte: error() says where); nothing more may be fed then.
  bool feed(std::string_view chunk);

  /// Ends the input: delivers a last line that has no terminator. Returns false on an unterminated
  /// quoted field (error() says where it started) or when the sink asked to stop.
  bool finish();

  /// Set when feed() or finish() failed because of the input.
  [[nodiscard]] const std::optional<TokenizerError>& error() const { return m_error; }

  /// Physical lines begun so far (the line number of the next line to start).
  [[nodiscard]] std::size_t line() const { return m_line; }

  /// Bytes fed so far.
  [[nodiscard]] std::uint64_t bytes() const { return m_bytes; }

private:
  enum class Mode : std::uint8_t { line_start, text, unquoted, quoted };

  bool scan(const char* data, std::size_t size);
  bool emit_record(const char* record, std::size_t size);
  bool emit_text(const char* text, std::size_t size);
  void mark_complex() {
    if (m_complex_fields.empty() || m_complex_fields.back() != m_ends.size()) {
      m_complex_fields.push_back(m_ends.size());
    }
  }

  LineSink* m_sink;
  Mode m_mode = Mode::line_start;
  std::size_t m_line = 1;
  std::uint64_t m_bytes = 0;
  bool m_stopped = false;
  std::optional<TokenizerError> m_error;

  // The line in progress. Offsets are relative to its first byte.
  std::string m_pending;   ///< its bytes from earlier chunks (empty when it began in this one)
  std::size_t m_start = 0; ///< where it began in the current chunk (0 when carried over)
  std::vector<std::size_t> m_ends; ///< end offset of each closed field of the record
  std::size_t m_field_begin = 0;   ///< offset of the open field's first byte
  bool m_field_quoted = false;     ///< the open field began with a quote
  /// Indexes of the record's fields that need unescaping (doubled or stray quotes), ascending.
  std::vector<std::size_t> m_complex_fields;

  // Reused for every record.
  struct Piece {
    std::size_t offset = 0;
    std::size_t size = 0;
  };
  std::vector<std::string_view> m_fields;
  std::string m_unescaped; ///< unescaped text of the record's complex fields
  std::vector<Piece> m_complex_pieces;
};

} // namespace kprof::csv

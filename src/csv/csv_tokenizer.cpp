// Design note. The tokenizer is a four-state machine (line start, text line, inside a quoted
// part, outside one) that keeps its state between feed() calls. Fields are recorded as offsets
// from the start of their line, so a line that straddles chunks only needs its bytes carried
// over (m_pending), never rescanned. Lines that lie wholly inside a chunk are handed to the sink
// as views into the caller's buffer: the common case copies nothing. A field is "simple" when it
// is unquoted or exactly one quoted run ("abc"); anything else (doubled quotes, text after a
// closing quote) is unescaped into a scratch buffer with the usual RFC 4180 toggle rule.
#include "csv/csv_tokenizer.hpp"

#include <cstring>

namespace kprof::csv {
namespace {

std::size_t count_newlines(const char* data, std::size_t size) {
  std::size_t count = 0;
  const char* end = data + size;
  const char* p = data;
  while (p < end) {
    const void* hit = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (hit == nullptr) {
      break;
    }
    ++count;
    p = static_cast<const char*>(hit) + 1;
  }
  return count;
}

void unescape(const char* data, std::size_t begin, std::size_t end, std::string& out) {
  bool in_quotes = false;
  for (std::size_t i = begin; i < end; ++i) {
    const char c = data[i];
    if (c == '"') {
      if (in_quotes && i + 1 < end && data[i + 1] == '"') {
        out += '"';
        ++i;
      } else {
        in_quotes = !in_quotes;
      }
    } else {
      out += c;
    }
  }
}

} // namespace

bool CsvTokenizer::feed(std::string_view chunk) {
  if (m_stopped) {
    return false;
  }
  m_bytes += chunk.size();
  // Everything before a NUL byte is tokenized first, so that the first problem in the input is
  // the one reported, whatever the chunk size.
  const void* nul = std::memchr(chunk.data(), '\0', chunk.size());
  const std::size_t usable =
      nul == nullptr ? chunk.size()
                     : static_cast<std::size_t>(static_cast<const char*>(nul) - chunk.data());
  if (!scan(chunk.data(), usable)) {
    m_stopped = true;
    return false;
  }
  if (nul != nullptr) {
    const std::size_t line = m_line + count_newlines(m_pending.data(), m_pending.size());
    m_error =
        TokenizerError{TokenizerError::Reason::binary, line, "binary data (a NUL byte), not text"};
    m_stopped = true;
    return false;
  }
  return true;
}

// Above the tree's cognitive-complexity cap: the RFC 4180 state machine, kept in one loop for speed
// (bench/) and fuzzed (tests/fuzz). NOLINTNEXTLINE(readability-function-cognitive-complexity)
bool CsvTokenizer::scan(const char* data, std::size_t size) {
  std::size_t p = 0;
  // Offset of chunk position `pos` from the start of the line in progress.
  const auto rel = [&](std::size_t pos) { return m_pending.size() + pos - m_start; };
  // The bytes of the line in progress up to chunk position `end`, carried-over part included.
  const auto line_bytes = [&](std::size_t end) -> std::string_view {
    if (m_pending.empty()) {
      return {data + m_start, end - m_start};
    }
    m_pending.append(data + m_start, end - m_start);
    return m_pending;
  };
  // Fields are short; a plain loop beats memchr's call overhead here.
  const auto find_quote = [&](std::size_t from) {
    while (from < size && data[from] != '"') {
      ++from;
    }
    return from;
  };

  while (p < size) {
    switch (m_mode) {
    case Mode::line_start:
      m_start = p;
      if (data[p] == '"') {
        m_mode = Mode::quoted;
        m_ends.clear();
        m_field_begin = 0;
        m_field_quoted = true;
        m_complex_fields.clear();
        ++p;
      } else {
        m_mode = Mode::text;
      }
      break;

    case Mode::text: {
      const void* hit = std::memchr(data + p, '\n', size - p);
      if (hit == nullptr) {
        p = size;
        break;
      }
      const auto end = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
      const std::string_view text = line_bytes(end);
      const bool go_on = emit_text(text.data(), text.size());
      m_pending.clear();
      ++m_line;
      m_mode = Mode::line_start;
      p = end + 1;
      if (!go_on) {
        return false;
      }
      break;
    }

    case Mode::quoted:
      p = find_quote(p);
      if (p < size) {
        ++p;
        m_mode = Mode::unquoted;
      }
      break;

    case Mode::unquoted: {
      // The hot loop: members in locals, so they can live in registers across push_back.
      const std::size_t base = m_pending.size() - m_start; // rel(p) == p + base (mod 2^64)
      std::size_t field_begin = m_field_begin;
      bool field_quoted = m_field_quoted;
      bool record_done = false;
      while (p < size) {
        const char c = data[p];
        if (c == ',') {
          m_ends.push_back(p + base);
          ++p;
          field_begin = p + base;
          field_quoted = false;
          // Fast path for ncu's `"value",`: skip the quoted run without leaving this loop.
          if (p < size && data[p] == '"') {
            field_quoted = true;
            const std::size_t close = find_quote(p + 1);
            if (close == size) {
              p = size;
              m_mode = Mode::quoted;
              break;
            }
            p = close + 1;
          }
        } else if (c == '"') {
          if (p + base == field_begin) {
            field_quoted = true;
          } else {
            mark_complex(); // a doubled quote, or a quote inside an unquoted field
          }
          ++p;
          m_mode = Mode::quoted;
          break;
        } else if (c == '\n') {
          record_done = true;
          break;
        } else {
          if (field_quoted) {
            mark_complex(); // text after a closing quote (or a '\r' before the newline)
          }
          ++p;
        }
      }
      m_field_begin = field_begin;
      m_field_quoted = field_quoted;
      if (!record_done) {
        break;
      }
      std::size_t end = rel(p);
      const char before = p > m_start ? data[p - 1] : (m_pending.empty() ? '\0' : m_pending.back());
      if (before == '\r' && end > m_field_begin) {
        --end;
      }
      m_ends.push_back(end);
      const std::string_view record = line_bytes(p);
      const bool go_on = emit_record(record.data(), record.size());
      m_pending.clear();
      m_mode = Mode::line_start;
      ++p;
      if (!go_on) {
        return false;
      }
      break;
    }
    }
  }
  // Carry the unfinished line over to the next chunk.
  if (m_mode != Mode::line_start) {
    m_pending.append(data + m_start, size - m_start);
  }
  m_start = 0;
  return true;
}

bool CsvTokenizer::emit_text(const char* text, std::size_t size) {
  if (size > 0 && text[size - 1] == '\r') {
    --size;
  }
  return m_sink->on_text(m_line, std::string_view(text, size));
}

bool CsvTokenizer::emit_record(const char* record, std::size_t size) {
  const std::size_t line = m_line;
  // Most fields are empty, plain, or one quoted run: a view, quotes stripped.
  m_fields.clear();
  std::size_t begin = 0;
  for (const std::size_t end : m_ends) {
    if (end - begin >= 2 && record[begin] == '"') {
      m_fields.emplace_back(record + begin + 1, end - begin - 2);
    } else {
      m_fields.emplace_back(record + begin, end - begin);
    }
    begin = end + 1;
  }
  // The others (ncu's NVTX column has doubled quotes) are unescaped into m_unescaped, all of them
  // before any view into it is taken, since it may grow.
  if (!m_complex_fields.empty()) {
    m_unescaped.clear();
    m_complex_pieces.clear();
    for (const std::size_t index : m_complex_fields) {
      const std::size_t field_begin = index == 0 ? 0 : m_ends[index - 1] + 1;
      const std::size_t offset = m_unescaped.size();
      unescape(record, field_begin, m_ends[index], m_unescaped);
      m_complex_pieces.push_back(Piece{offset, m_unescaped.size() - offset});
    }
    for (std::size_t i = 0; i < m_complex_fields.size(); ++i) {
      const Piece& piece = m_complex_pieces[i];
      m_fields[m_complex_fields[i]] =
          std::string_view(m_unescaped.data() + piece.offset, piece.size);
    }
  }
  m_line += 1 + count_newlines(record, size);
  return m_sink->on_record(line, m_fields);
}

bool CsvTokenizer::finish() {
  if (m_stopped) {
    return false;
  }
  switch (m_mode) {
  case Mode::line_start:
    return true;
  case Mode::text: {
    const bool go_on = emit_text(m_pending.data(), m_pending.size());
    m_pending.clear();
    m_mode = Mode::line_start;
    ++m_line;
    m_stopped = !go_on;
    return go_on;
  }
  case Mode::unquoted: {
    std::size_t end = m_pending.size();
    if (!m_pending.empty() && m_pending.back() == '\r' && end > m_field_begin) {
      --end;
    }
    m_ends.push_back(end);
    const bool go_on = emit_record(m_pending.data(), m_pending.size());
    m_pending.clear();
    m_mode = Mode::line_start;
    m_stopped = !go_on;
    return go_on;
  }
  case Mode::quoted:
    m_error = TokenizerError{TokenizerError::Reason::unterminated_quote, m_line,
                             "the input ends inside a quoted field (truncated output?)"};
    m_stopped = true;
    return false;
  }
  return true;
}

} // namespace kprof::csv

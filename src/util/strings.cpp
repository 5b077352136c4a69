#include "kprof/strings.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace kprof {

namespace {
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
} // namespace

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_blank(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    lines.push_back(line);
    if (eol == std::string_view::npos) {
      break;
    }
    text.remove_prefix(eol + 1);
  }
  return lines;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return lower(x) == lower(y); });
}

namespace {

/// The length of the valid UTF-8 sequence at the start of `text` (1 to 4), or 0 when its first
/// byte does not start one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&text](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80U) {
    return 1;
  }
  std::size_t length = 0;
  unsigned char low = 0x80U; // the range of the second byte
  unsigned char high = 0xBFU;
  if (lead >= 0xC2U && lead <= 0xDFU) {
    length = 2;
  } else if (lead >= 0xE0U && lead <= 0xEFU) {
    length = 3;
    low = lead == 0xE0U ? 0xA0U : 0x80U;
    high = lead == 0xEDU ? 0x9FU : 0xBFU;
  } else if (lead >= 0xF0U && lead <= 0xF4U) {
    length = 4;
    low = lead == 0xF0U ? 0x90U : 0x80U;
    high = lead == 0xF4U ? 0x8FU : 0xBFU;
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) {
    return 0;
  }
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80U || byte(i) > 0xBFU) {
      return 0;
    }
  }
  return length;
}

/// What printable() does with the character (or stray byte) at the start of `text`.
struct Piece {
  std::size_t length = 1;       ///< bytes it covers
  std::optional<unsigned> code; ///< the value to write as \xNN; nullopt: keep the bytes
};

Piece next_piece(std::string_view text, Multiline multiline) {
  const auto lead = static_cast<unsigned char>(text.front());
  const std::size_t length = utf8_sequence_length(text);
  if (length == 0) {
    return Piece{1, lead}; // not UTF-8: the byte itself
  }
  if (length == 1) {
    const bool kept_break = multiline == Multiline::yes && (lead == '\n' || lead == '\t');
    if ((lead < 0x20U && !kept_break) || lead == 0x7FU) {
      return Piece{1, lead};
    }
    return Piece{1, std::nullopt};
  }
  if (length == 2 && lead == 0xC2U && static_cast<unsigned char>(text[1]) <= 0x9FU) {
    return Piece{2, static_cast<unsigned char>(text[1])}; // U+0080..U+009F: a C1 control
  }
  return Piece{length, std::nullopt};
}

bool is_crlf(std::string_view text, Multiline multiline) {
  return multiline == Multiline::yes && text.size() >= 2 && text[0] == '\r' && text[1] == '\n';
}

} // namespace

bool is_printable(std::string_view text, Multiline multiline) {
  while (!text.empty()) {
    // Printable ASCII, nearly all of what kprof shows, in a tight loop.
    std::size_t ascii = 0;
    while (ascii < text.size() && static_cast<unsigned char>(text[ascii]) >= 0x20U &&
           static_cast<unsigned char>(text[ascii]) < 0x7FU) {
      ++ascii;
    }
    text.remove_prefix(ascii);
    if (text.empty()) {
      break;
    }
    const Piece piece = next_piece(text, multiline);
    if (piece.code) {
      return false;
    }
    text.remove_prefix(piece.length);
  }
  return true;
}

std::string printable(std::string_view text, Multiline multiline) {
  if (is_printable(text, multiline)) {
    return std::string(text);
  }
  static constexpr std::array<char, 16> k_hex = {'0', '1', '2', '3', '4', '5', '6', '7',
                                                 '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
  std::string out;
  out.reserve(text.size() + 16);
  while (!text.empty()) {
    if (is_crlf(text, multiline)) {
      out += '\n';
      text.remove_prefix(2);
      continue;
    }
    const Piece piece = next_piece(text, multiline);
    if (piece.code) {
      out += "\\x";
      out += k_hex[(*piece.code >> 4U) & 0xFU];
      out += k_hex[*piece.code & 0xFU];
    } else {
      out.append(text.substr(0, piece.length));
    }
    text.remove_prefix(piece.length);
  }
  return out;
}

} // namespace kprof

// Locale-proof number parsing and printing. Everything goes through std::from_chars and
// std::to_chars so that a user's LC_NUMERIC can never change what kprof reads or writes.
#include "kprof/numbers.hpp"
#include "kprof/strings.hpp"

#include "kprof/error.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace kprof {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

char to_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (to_lower(a[i]) != to_lower(b[i])) {
      return false;
    }
  }
  return true;
}

/// Appends the shortest round-trip text of `value` in `format` to `out`.
void append_chars(std::string& out, double value, std::chars_format format) {
  std::array<char, 400> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, format);
  KPROF_ASSERT(result.ec == std::errc{});
  out.append(buffer.data(), result.ptr);
}

/// The common case, without from_chars (which GCC 12 implements through strtod and a locale
/// switch): digits with separators and an optional fraction, at most 15 digits in all. Such a
/// mantissa and 10^fraction_digits are exact doubles, so one division is correctly rounded.
/// nullopt when the text needs the general path (or is not a number).
std::optional<double> parse_plain_decimal(std::string_view body) {
  static constexpr std::array<double, 16> k_powers{1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  std::uint64_t mantissa = 0;
  std::size_t digits = 0;
  std::size_t fraction_digits = 0;
  std::size_t i = 0;
  const std::size_t n = body.size();
  for (; i < n; ++i) {
    const char c = body[i];
    if (is_digit(c)) {
      mantissa = mantissa * 10 + static_cast<std::uint64_t>(c - '0');
      if (++digits > 15) {
        return std::nullopt;
      }
    } else if (c == ',') {
      if (i == 0 || !is_digit(body[i - 1]) || i + 1 >= n || !is_digit(body[i + 1])) {
        return std::nullopt;
      }
    } else {
      break;
    }
  }
  if (i < n && body[i] == '.') {
    for (++i; i < n && is_digit(body[i]); ++i) {
      mantissa = mantissa * 10 + static_cast<std::uint64_t>(body[i] - '0');
      ++fraction_digits;
      if (++digits > 15) {
        return std::nullopt;
      }
    }
  }
  if (i != n || digits == 0) {
    return std::nullopt;
  }
  return static_cast<double>(mantissa) / k_powers[fraction_digits];
}

} // namespace

std::optional<double> parse_ncu_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) {
    return std::nullopt;
  }
  bool negative = false;
  std::string_view body = text;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (const auto fast = parse_plain_decimal(body)) {
    return negative ? -*fast : *fast;
  }
  if (equals_ignore_case(body, "nan")) {
    return negative ? -std::numeric_limits<double>::quiet_NaN()
                    : std::numeric_limits<double>::quiet_NaN();
  }
  if (equals_ignore_case(body, "inf") || equals_ignore_case(body, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }

  // Validate the shape and copy it without separators: digits (',' only between digits),
  // optional fraction, optional exponent. At least one mantissa digit.
  std::array<char, 128>
      small; // NOLINT(cppcoreguidelines-pro-type-member-init): written before read
  std::string large;
  char* out = small.data();
  if (body.size() + 1 > small.size()) {
    large.resize(body.size() + 1);
    out = large.data();
  }
  char* const begin = out;
  if (negative) {
    *out++ = '-';
  }
  std::size_t i = 0;
  std::size_t mantissa_digits = 0;
  while (i < body.size() && (is_digit(body[i]) || body[i] == ',')) {
    if (body[i] == ',') {
      if (i == 0 || !is_digit(body[i - 1]) || i + 1 >= body.size() || !is_digit(body[i + 1])) {
        return std::nullopt;
      }
    } else {
      *out++ = body[i];
      ++mantissa_digits;
    }
    ++i;
  }
  if (i < body.size() && body[i] == '.') {
    *out++ = body[i++];
    while (i < body.size() && is_digit(body[i])) {
      *out++ = body[i++];
      ++mantissa_digits;
    }
  }
  if (mantissa_digits == 0) {
    return std::nullopt;
  }
  bool exponent_negative = false;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    *out++ = body[i++];
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) {
      exponent_negative = body[i] == '-';
      *out++ = body[i++];
    }
    std::size_t exponent_digits = 0;
    while (i < body.size() && is_digit(body[i])) {
      *out++ = body[i++];
      ++exponent_digits;
    }
    if (exponent_digits == 0) {
      return std::nullopt;
    }
  }
  if (i != body.size()) {
    return std::nullopt;
  }

  double value = 0.0;
  const auto result = std::from_chars(begin, out, value, std::chars_format::general);
  if (result.ec == std::errc::result_out_of_range) {
    // Syntactically a number, just beyond double: saturate like strtod does.
    const double magnitude = exponent_negative ? 0.0 : std::numeric_limits<double>::infinity();
    return negative ? -magnitude : magnitude;
  }
  if (result.ec != std::errc{} || result.ptr != out) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') {
      return std::nullopt;
    }
  }
  if (text.empty()) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (result.ec != std::errc{} || result.ptr != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::string format_number(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  if (value == 0.0) {
    return "0"; // also for -0.0
  }
  std::string out;
  const double magnitude = std::fabs(value);
  // Plain decimal notation where people expect it (integers print without ".0" and without an
  // exponent up to 1e15); the shortest form elsewhere. Both round-trip exactly.
  if (magnitude >= 1e-4 && magnitude < 1e15) {
    append_chars(out, value, std::chars_format::fixed);
  } else {
    append_chars(out, value, std::chars_format{});
  }
  return out;
}

std::string format_fixed(double value, int decimals) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  if (decimals < 0) {
    decimals = 0;
  }
  if (decimals > 40) {
    decimals = 40;
  }
  std::array<char, 400> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                    std::chars_format::fixed, decimals);
  KPROF_ASSERT(result.ec == std::errc{});
  return std::string(buffer.data(), result.ptr);
}

double round_to(double value, int digits) {
  if (!std::isfinite(value)) {
    return value;
  }
  if (digits < 0) {
    const double scale = std::pow(10.0, -digits);
    return std::nearbyint(value / scale) * scale;
  }
  // Correctly rounded decimal text, read back: the same answer as Python's round(v, digits).
  const std::string text = format_fixed(value, digits);
  double rounded = value;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  return rounded;
}

namespace {

struct Scale {
  double factor;
  std::string_view unit;
};

/// "16.78 MB": picks the largest scale not above |value| (the first one otherwise); values that
/// need no scaling print as integers when they are integers.
std::string format_scaled(double value, const Scale* scales, std::size_t count,
                          std::string_view separator, std::string_view suffix = {}) {
  const double magnitude = std::fabs(value);
  std::size_t chosen = 0;
  for (std::size_t i = 1; i < count; ++i) {
    // 999.996 KB rounds to "1000.00 KB": compare against the rounding threshold.
    if (magnitude >= scales[i].factor * 0.999995) {
      chosen = i;
    }
  }
  const double scaled = value / scales[chosen].factor;
  std::string out;
  if (chosen == 0 && scaled == std::floor(scaled)) {
    out = format_number(scaled);
  } else {
    out = format_fixed(scaled, 2);
  }
  out += separator;
  out += scales[chosen].unit;
  out += suffix;
  return out;
}

} // namespace

std::string format_with_unit(double value, std::string_view unit) {
  if (!std::isfinite(value)) {
    std::string out = format_number(value);
    if (!unit.empty()) {
      out += ' ';
      out += unit;
    }
    return out;
  }
  if (unit == "byte" || unit == "B") {
    static constexpr std::array<Scale, 5> k_scales{
        {{1.0, "B"}, {1e3, "KB"}, {1e6, "MB"}, {1e9, "GB"}, {1e12, "TB"}}};
    return format_scaled(value, k_scales.data(), k_scales.size(), " ");
  }
  if (unit == "byte/s" || unit == "byte/second" || unit == "B/s") {
    static constexpr std::array<Scale, 5> k_scales{
        {{1.0, "B/s"}, {1e3, "KB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"}}};
    return format_scaled(value, k_scales.data(), k_scales.size(), " ");
  }
  if (unit == "ns" || unit == "nsecond") {
    static constexpr std::array<Scale, 4> k_scales{
        {{1.0, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}}};
    return format_scaled(value, k_scales.data(), k_scales.size(), " ");
  }
  if (unit == "hz" || unit == "Hz") {
    static constexpr std::array<Scale, 4> k_scales{
        {{1.0, "Hz"}, {1e3, "kHz"}, {1e6, "MHz"}, {1e9, "GHz"}}};
    return format_scaled(value, k_scales.data(), k_scales.size(), " ");
  }
  if (unit == "cycle" || unit == "inst") {
    // "125.95K cycle"
    static constexpr std::array<Scale, 4> k_scales{{{1.0, ""}, {1e3, "K"}, {1e6, "M"}, {1e9, "G"}}};
    std::string suffix(" ");
    suffix += unit;
    return format_scaled(value, k_scales.data(), k_scales.size(), "", suffix);
  }
  if (unit == "%") {
    std::string out = format_fixed(value, 2);
    out += " %";
    return out;
  }
  std::string out = format_number(value);
  if (!unit.empty()) {
    out += ' ';
    out += unit;
  }
  return out;
}

} // namespace kprof

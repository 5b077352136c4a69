// ncu's value formats (see ncu_values.hpp).
#include "csv/ncu_values.hpp"

#include <fmt/format.h>

#include "kprof/numbers.hpp"

namespace kprof::csv {

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  while (!text.empty() && text.back() == ' ') {
    text.remove_suffix(1);
  }
  return text;
}

bool is_null_text(std::string_view text) {
  return text.empty() || text == "n/a" || text == "no data" || text == "N/A";
}

std::optional<std::int64_t> parse_grouped_int(std::string_view text) {
  text = trim_spaces(text);
  if (text.find(',') == std::string_view::npos) {
    return parse_int(text);
  }
  std::string digits;
  digits.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ',') {
      const bool between_digits = i > 0 && i + 1 < text.size() && text[i - 1] >= '0' &&
                                  text[i - 1] <= '9' && text[i + 1] >= '0' && text[i + 1] <= '9';
      if (!between_digits) {
        return std::nullopt;
      }
    } else {
      digits += text[i];
    }
  }
  return parse_int(digits);
}

std::optional<std::array<std::int64_t, 3>> parse_dim3(std::string_view text) {
  text = trim_spaces(text);
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') {
    return std::nullopt;
  }
  text = text.substr(1, text.size() - 2);
  // ncu separates components with ", "; a bare ',' may then only be a thousands separator.
  const std::string_view separator = text.find(", ") != std::string_view::npos ? ", " : ",";
  std::array<std::int64_t, 3> dims{0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t at = text.find(separator);
    if ((i < 2) != (at != std::string_view::npos)) {
      return std::nullopt;
    }
    const auto value = parse_grouped_int(text.substr(0, at));
    if (!value) {
      return std::nullopt;
    }
    dims[i] = *value;
    text = at == std::string_view::npos ? std::string_view{} : text.substr(at + separator.size());
  }
  return dims;
}

// Each entry is Domain:Range followed by six ':'-fields (PL_Type..Msg); the range name is what
// lies between, colons included.
std::vector<std::string> parse_nvtx_stack(std::string_view text) {
  std::vector<std::string> stack;
  std::size_t at = 0;
  while (true) {
    const std::size_t open = text.find('"', at);
    if (open == std::string_view::npos) {
      break;
    }
    const std::size_t close = text.find('"', open + 1);
    if (close == std::string_view::npos) {
      break;
    }
    const std::string_view entry = text.substr(open + 1, close - open - 1);
    at = close + 1;
    std::vector<std::size_t> colons;
    for (std::size_t i = 0; i < entry.size(); ++i) {
      if (entry[i] == ':') {
        colons.push_back(i);
      }
    }
    if (colons.size() >= 7) {
      const std::size_t begin = colons.front() + 1;
      const std::size_t end = colons[colons.size() - 6];
      stack.emplace_back(entry.substr(begin, end - begin));
    } else if (!colons.empty()) {
      stack.emplace_back(entry.substr(colons.front() + 1));
    } else if (!entry.empty()) {
      stack.emplace_back(entry);
    }
  }
  return stack;
}

// `ncu --csv` prints base units (byte, ns, hz, byte/s), but `ncu --import ... --csv` scales
// them (Mbyte, us, Gbyte/s, Kbyte/block). Values are stored in base units so that every capture
// means the same thing.
BaseUnit normalise_unit(std::string_view unit) {
  struct Prefixed {
    std::string_view printed;
    std::string_view base;
    int exponent;
  };
  // Whole units.
  static constexpr std::array<Prefixed, 16> k_whole{{
      {"nsecond", "ns", 0},
      {"usecond", "ns", 3},
      {"us", "ns", 3},
      {"msecond", "ns", 6},
      {"ms", "ns", 6},
      {"second", "ns", 9},
      {"s", "ns", 9},
      {"Khz", "hz", 3},
      {"khz", "hz", 3},
      {"KHz", "hz", 3},
      {"Mhz", "hz", 6},
      {"MHz", "hz", 6},
      {"Ghz", "hz", 9},
      {"GHz", "hz", 9},
      {"Hz", "hz", 0},
      {"hz", "hz", 0},
  }};
  for (const Prefixed& entry : k_whole) {
    if (unit == entry.printed) {
      return {std::string(entry.base), entry.exponent};
    }
  }
  // Byte counts, alone or over something ("Gbyte/s", "Kbyte/block").
  static constexpr std::array<Prefixed, 5> k_bytes{{
      {"Kbyte", "byte", 3},
      {"Mbyte", "byte", 6},
      {"Gbyte", "byte", 9},
      {"Tbyte", "byte", 12},
      {"Pbyte", "byte", 15},
  }};
  const std::size_t slash = unit.find('/');
  const std::string_view head = unit.substr(0, slash);
  std::string_view tail = slash == std::string_view::npos ? std::string_view{} : unit.substr(slash);
  if (tail == "/second") {
    tail = "/s";
  }
  for (const Prefixed& entry : k_bytes) {
    if (head == entry.printed) {
      return {std::string(entry.base) + std::string(tail), entry.exponent};
    }
  }
  if (head == "byte" && !tail.empty()) {
    return {"byte" + std::string(tail), 0}; // "byte/second" -> "byte/s"
  }
  return {std::string(unit), 0};
}

std::optional<double> parse_scaled(std::string_view text, int exponent) {
  if (exponent == 0) {
    return parse_ncu_number(text);
  }
  text = trim_spaces(text);
  const bool has_exponent = text.find_first_of("eE") != std::string_view::npos;
  if (!has_exponent && !text.empty() && text.back() >= '0' && text.back() <= '9') {
    return parse_ncu_number(fmt::format("{}e{}", text, exponent));
  }
  const auto value = parse_ncu_number(text);
  if (!value) {
    return std::nullopt;
  }
  double scale = 1.0;
  for (int i = 0; i < exponent; ++i) {
    scale *= 10.0;
  }
  return *value * scale;
}

FieldValue parse_metric_value(std::string_view field, int exponent) {
  if (is_null_text(field)) {
    return {};
  }
  if (const auto number = parse_scaled(field, exponent)) {
    return {ValueKind::number, *number};
  }
  // Instance values: "1,024 (1,024)" -> the value before the parenthesis.
  if (const std::size_t paren = field.find(" (");
      paren != std::string_view::npos && field.back() == ')') {
    const std::string_view head = trim_spaces(field.substr(0, paren));
    if (is_null_text(head)) {
      return {};
    }
    if (const auto number = parse_scaled(head, exponent)) {
      return {ValueKind::number, *number};
    }
  }
  return {ValueKind::text, 0.0};
}

} // namespace kprof::csv

#include "history/text.hpp"

#include <algorithm>
#include <cmath>

#include "kprof/numbers.hpp"

namespace kprof::history {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') {
      quoted += '"';
    }
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::string csv_number(const std::optional<double>& value) {
  return value ? format_number(*value) : std::string();
}

std::string short_percent(const std::optional<double>& value) {
  if (!value) {
    return "-";
  }
  return format_fixed(*value, std::fabs(*value) < 10 ? 1 : 0) + "%";
}

std::string short_value(const std::optional<double>& value, std::string_view unit) {
  if (!value) {
    return "-";
  }
  if (unit == "%") {
    return short_percent(value);
  }
  if (unit.empty()) {
    return format_number(round_to(*value, 3));
  }
  return format_with_unit(*value, unit);
}

std::string columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line.append(widths[i] - row[i].size() + 2, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line;
    out += '\n';
  }
  return out;
}

} // namespace kprof::history

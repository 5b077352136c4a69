// The words and numbers of the diagnosis's titles and evidence.
#include "diagnosis/text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "kprof/numbers.hpp"

namespace kprof::diagnosis {

std::string pct(double value) {
  return format_fixed(value, value < 10 ? 2 : 1) + "%";
}

std::string pct0(double value) {
  return format_fixed(value, 0) + "%";
}

std::string count(double value) {
  std::string digits = format_fixed(std::round(value), 0);
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) {
    digits.erase(0, 1);
  }
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string counted(double value, std::string_view thing) {
  return fmt::format("{} {}{}", count(value), thing, std::round(value) == 1 ? "" : "s");
}

std::string_view basename_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string where(const UserLine& line) {
  return fmt::format("{}:{}", basename_of(line.file), line.line);
}

std::string first_sentence(std::string_view text) {
  const std::size_t end = text.find(". ");
  return std::string(end == std::string_view::npos ? text : text.substr(0, end + 1));
}

} // namespace kprof::diagnosis

// The one rule for impossible values (kprof/analysis.hpp, docs/diagnosis.md): a negative
// duration, percentage, count, size, throughput, rate or frequency refuses the input it is in.
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analysis/facts.hpp"
#include "kprof/analysis.hpp"
#include "kprof/numbers.hpp"

namespace kprof {
namespace {

std::string_view quantity_word(analysis::Unit unit) {
  switch (unit) {
  case analysis::Unit::time_ns:
    return "a duration";
  case analysis::Unit::percent:
    return "a percentage";
  case analysis::Unit::bytes:
  case analysis::Unit::bytes_per_block:
    return "a byte count";
  case analysis::Unit::bytes_per_s:
    return "a throughput";
  case analysis::Unit::count:
  case analysis::Unit::as_printed:
    return "a count";
  case analysis::Unit::per_cycle:
    return "a rate";
  case analysis::Unit::hertz:
    return "a frequency";
  }
  return "this quantity";
}

} // namespace

std::optional<std::string_view> quantity_of(const Column& column) {
  std::optional<analysis::Unit> unit = analysis::fact_unit(column);
  if (!unit) {
    unit = analysis::launch_fact_unit(column);
  }
  return unit ? std::optional<std::string_view>(quantity_word(*unit)) : std::nullopt;
}

Result<void> check_not_negative(std::string_view where, double value, std::string_view unit,
                                std::string_view quantity) {
  if (!(value < 0)) {
    return {};
  }
  return make_error(ErrorCategory::malformed_input,
                    fmt::format("'{}' is {}{}{}: {} cannot be negative, so ncu did not measure "
                                "it (the file was edited or damaged)",
                                where, format_number(value), unit.empty() ? "" : " ", unit,
                                quantity));
}

Result<void> check_capture_values(const Capture& capture,
                                  const std::vector<std::size_t>& launches) {
  struct Checked {
    std::size_t column;
    std::string_view quantity;
  };
  std::vector<Checked> checked;
  for (std::size_t column = 0; column < capture.columns.size(); ++column) {
    if (const auto quantity = quantity_of(capture.columns[column])) {
      checked.push_back({column, *quantity});
    }
  }
  for (const std::size_t index : launches) {
    const KernelRecord& launch = capture.kernels[index];
    for (const Checked& check : checked) {
      if (check.column >= launch.cells.size()) {
        continue;
      }
      const Cell& cell = launch.cells[check.column];
      if (cell.kind != ValueKind::number) {
        continue;
      }
      const Column& column = capture.columns[check.column];
      if (auto valid = check_not_negative(column.name, cell.number, column.unit, check.quantity);
          !valid) {
        return valid.error().with_context(fmt::format("launch ID {} ({})", launch.id, launch.name));
      }
    }
  }
  return {};
}

} // namespace kprof

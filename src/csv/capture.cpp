#include "kprof/capture.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include <fmt/format.h>

#include "csv/ncu_reader_internal.hpp"
#include "kprof/error.hpp"

namespace kprof {

namespace {
constexpr std::string_view k_display_name_column = "device__attribute_display_name";
constexpr std::string_view k_replay_passes_column = "profiler__replayer_passes";
constexpr std::array<std::string_view, 2> k_run_fact_columns{k_display_name_column,
                                                             k_replay_passes_column};
} // namespace

void Capture::index_columns() {
  m_index.clear();
  m_index.reserve(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    m_index.try_emplace(columns[i].name, i); // the first of equal names wins
  }
}

std::optional<std::size_t> Capture::column_index(std::string_view name) const {
  if (m_index.size() != columns.size() || m_index.empty()) {
    // Not indexed (a Capture built by hand): search.
    const auto found = std::find_if(columns.begin(), columns.end(),
                                    [&](const Column& column) { return column.name == name; });
    if (found == columns.end()) {
      return std::nullopt;
    }
    return static_cast<std::size_t>(found - columns.begin());
  }
  const auto found = m_index.find(std::string(name));
  if (found == m_index.end()) {
    return std::nullopt;
  }
  return found->second;
}

MetricValue Capture::value(const KernelRecord& kernel, std::size_t column) const {
  KPROF_ASSERT(column < columns.size());
  MetricValue result;
  result.unit = columns[column].unit;
  if (column >= kernel.cells.size()) {
    return result;
  }
  const Cell& cell = kernel.cells[column];
  result.kind = cell.kind;
  if (cell.kind == ValueKind::number) {
    result.number = cell.number;
  } else if (cell.kind == ValueKind::text) {
    KPROF_ASSERT(cell.text < text_pool.size());
    result.text = text_pool[cell.text];
  }
  return result;
}

std::optional<double> Capture::number(const KernelRecord& kernel, std::string_view name) const {
  const auto column = column_index(name);
  if (!column || *column >= kernel.cells.size()) {
    return std::nullopt;
  }
  const Cell& cell = kernel.cells[*column];
  if (cell.kind != ValueKind::number) {
    return std::nullopt;
  }
  return cell.number;
}

std::optional<double> Capture::replay_passes(const KernelRecord& kernel) const {
  return number(kernel, k_replay_passes_column);
}

std::span<const std::string_view> Capture::run_fact_columns() {
  return k_run_fact_columns;
}

std::optional<std::string> Capture::device_name() const {
  const auto column = column_index(k_display_name_column);
  if (!column) {
    return std::nullopt;
  }
  for (const KernelRecord& kernel : kernels) {
    const MetricValue value = this->value(kernel, *column);
    if (value.kind == ValueKind::text && !value.text.empty()) {
      return std::string(value.text);
    }
  }
  return std::nullopt;
}

} // namespace kprof

namespace kprof::csv {
namespace {

bool same_number(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool same_rule(const RuleResult& a, const RuleResult& b) {
  const bool same_speedup =
      a.estimated_speedup.has_value() == b.estimated_speedup.has_value() &&
      (!a.estimated_speedup || same_number(*a.estimated_speedup, *b.estimated_speedup));
  return a.section == b.section && a.name == b.name && a.type == b.type &&
         a.description == b.description && a.speedup_type == b.speedup_type && same_speedup;
}

std::string kernel_difference(const Capture& a, const Capture& b, std::size_t k) {
  const KernelRecord& x = a.kernels[k];
  const KernelRecord& y = b.kernels[k];
  if (x.id != y.id || x.process_id != y.process_id || x.process_name != y.process_name ||
      x.name != y.name || x.nvtx_range != y.nvtx_range || x.nvtx_stack != y.nvtx_stack ||
      x.grid != y.grid || x.block != y.block || x.device != y.device || x.cc != y.cc ||
      x.context != y.context || x.stream != y.stream) {
    return fmt::format("kernel {}: identity fields differ", k);
  }
  if (x.cells.size() != y.cells.size()) {
    return fmt::format("kernel {}: {} vs {} cells", k, x.cells.size(), y.cells.size());
  }
  for (std::size_t c = 0; c < x.cells.size(); ++c) {
    const MetricValue u = a.value(x, c);
    const MetricValue v = b.value(y, c);
    if (u.kind != v.kind || !same_number(u.number, v.number) || u.text != v.text) {
      return fmt::format("kernel {}: column {} ({}) differs", k, c, a.columns[c].name);
    }
  }
  if (x.rules.size() != y.rules.size() ||
      !std::equal(x.rules.begin(), x.rules.end(), y.rules.begin(), same_rule)) {
    return fmt::format("kernel {}: rule results differ", k);
  }
  return {};
}

} // namespace

std::string capture_difference(const Capture& a, const Capture& b) {
  if (a.page != b.page) {
    return "page kinds differ";
  }
  if (a.columns.size() != b.columns.size()) {
    return fmt::format("{} vs {} columns", a.columns.size(), b.columns.size());
  }
  for (std::size_t c = 0; c < a.columns.size(); ++c) {
    const Column& x = a.columns[c];
    const Column& y = b.columns[c];
    if (x.name != y.name || x.unit != y.unit || x.section != y.section) {
      return fmt::format("column {} differs: {} vs {}", c, x.name, y.name);
    }
  }
  if (a.kernels.size() != b.kernels.size()) {
    return fmt::format("{} vs {} kernels", a.kernels.size(), b.kernels.size());
  }
  for (std::size_t k = 0; k < a.kernels.size(); ++k) {
    if (std::string difference = kernel_difference(a, b, k); !difference.empty()) {
      return difference;
    }
  }
  if (a.ncu_lines != b.ncu_lines) {
    return "ncu lines differ";
  }
  if (a.foreign_lines != b.foreign_lines) {
    return fmt::format("{} vs {} foreign lines", a.foreign_lines, b.foreign_lines);
  }
  return {};
}

} // namespace kprof::csv

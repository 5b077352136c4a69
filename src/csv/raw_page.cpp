// The raw page (see raw_page.hpp).
#include "csv/raw_page.hpp"

#include <fmt/format.h>

#include "csv/ncu_values.hpp"

namespace kprof::csv {

bool RawPageReader::start(std::size_t /*line*/, std::span<const std::string_view> header) {
  set_header(header);
  for (std::size_t i = 0; i < header.size(); ++i) {
    const Role role = identity_role(header[i]);
    if (role == Role::ignored) {
      continue;
    }
    if (role != Role::metric) {
      add_identity(i, role);
      continue;
    }
    if (!keep(header[i])) {
      continue;
    }
    m_metrics.push_back(MetricColumn{i, capture().columns.size(), 0});
    capture().columns.push_back(Column{std::string(header[i]), {}, {}});
  }
  m_expect_units = true;
  return true;
}

bool RawPageReader::on_record(std::size_t line, std::span<const std::string_view> fields) {
  if (m_expect_units) {
    m_expect_units = false;
    if (!fields.empty() && fields[0].empty()) {
      return read_units(line, fields);
    }
    return read_row(line, fields);
  }
  if (!fields.empty() && fields[0] == "ID") {
    // A repeated header is followed by its units row again.
    m_expect_units = true;
    return check_repeated_header(line, fields);
  }
  return read_row(line, fields);
}

bool RawPageReader::read_units(std::size_t line, std::span<const std::string_view> fields) {
  if (fields.size() != header_size()) {
    return fail(line, fmt::format("the units row has {} fields, the header {}", fields.size(),
                                  header_size()));
  }
  for (MetricColumn& metric : m_metrics) {
    BaseUnit base = normalise_unit(fields[metric.index]);
    capture().columns[metric.column].unit = std::move(base.unit);
    metric.exponent = base.exponent;
  }
  return true;
}

bool RawPageReader::read_row(std::size_t line, std::span<const std::string_view> fields) {
  if (fields.size() != header_size()) {
    if (fields.size() < header_size()) {
      return fail(line, fmt::format("the row has {} fields, the header {} (truncated output?)",
                                    fields.size(), header_size()));
    }
    return fail(line, fmt::format("the row has {} fields, more than the header's {}", fields.size(),
                                  header_size()));
  }
  KernelRecord kernel;
  if (!read_identity(line, fields, kernel)) {
    return false;
  }
  kernel.cells.resize(capture().columns.size());
  for (const MetricColumn& metric : m_metrics) {
    kernel.cells[metric.column] = make_cell(fields[metric.index], metric.exponent);
  }
  capture().kernels.push_back(std::move(kernel));
  return true;
}

} // namespace kprof::csv

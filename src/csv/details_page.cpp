// The details page (see details_page.hpp).
#include "csv/details_page.hpp"

#include <fmt/format.h>

#include "csv/ncu_values.hpp"
#include "kprof/numbers.hpp"

namespace kprof::csv {
namespace {

Role details_role(std::string_view name) {
  static const std::array<std::pair<std::string_view, Role>, 9> k_details{{
      {"Section Name", Role::section_name},
      {"Metric Name", Role::metric_name},
      {"Metric Unit", Role::metric_unit},
      {"Metric Value", Role::metric_value},
      {"Rule Name", Role::rule_name},
      {"Rule Type", Role::rule_type},
      {"Rule Description", Role::rule_description},
      {"Estimated Speedup Type", Role::speedup_type},
      {"Estimated Speedup", Role::speedup},
  }};
  for (const auto& [label, role] : k_details) {
    if (name == label) {
      return role;
    }
  }
  return identity_role(name);
}

bool is_identity(Role role) {
  return role != Role::ignored && role != Role::metric && role < Role::section_name;
}

} // namespace

bool DetailsPageReader::start(std::size_t /*line*/, std::span<const std::string_view> header) {
  set_header(header);
  for (std::size_t i = 0; i < header.size(); ++i) {
    const Role role = details_role(header[i]);
    // The details page has no other columns; ignore what a later ncu may add.
    if (role == Role::ignored || role == Role::metric) {
      continue;
    }
    if (is_identity(role)) {
      add_identity(i, role);
    }
    m_index[static_cast<std::size_t>(role)] = i;
  }
  m_min_fields = m_index[static_cast<std::size_t>(Role::metric_value)] + 1;
  return true;
}

bool DetailsPageReader::on_record(std::size_t line, std::span<const std::string_view> fields) {
  if (!fields.empty() && fields[0] == "ID") {
    return check_repeated_header(line, fields);
  }
  return read_row(line, fields);
}

std::string_view DetailsPageReader::field(std::span<const std::string_view> fields,
                                          Role role) const {
  const std::size_t at = m_index[static_cast<std::size_t>(role)];
  return at < fields.size() ? fields[at] : std::string_view{};
}

bool DetailsPageReader::read_row(std::size_t line, std::span<const std::string_view> fields) {
  if (fields.size() > header_size()) {
    return fail(line, fmt::format("the row has {} fields, more than the header's {}", fields.size(),
                                  header_size()));
  }
  if (fields.size() < m_min_fields) {
    return fail(line, fmt::format("the row has {} fields, a details row needs at least {} "
                                  "(truncated output?)",
                                  fields.size(), m_min_fields));
  }
  const std::string_view id_text = field(fields, Role::id);
  const auto id = parse_grouped_int(id_text);
  if (!id) {
    return fail(line, fmt::format("the kernel ID {} is not a number", shown(id_text)));
  }
  auto [found, inserted] = m_kernel_by_id.try_emplace(*id, capture().kernels.size());
  if (inserted) {
    KernelRecord kernel;
    if (!read_identity(line, fields, kernel)) {
      return false;
    }
    capture().kernels.push_back(std::move(kernel));
  }
  KernelRecord& kernel = capture().kernels[found->second];

  const std::string_view section = field(fields, Role::section_name);
  const std::string_view label = field(fields, Role::metric_name);
  const std::string_view rule = field(fields, Role::rule_name);
  if (!label.empty()) {
    BaseUnit base = normalise_unit(field(fields, Role::metric_unit));
    const std::size_t column = column_of(section, label, std::move(base.unit));
    if (column != k_none) {
      if (kernel.cells.size() <= column) {
        kernel.cells.resize(capture().columns.size());
      }
      kernel.cells[column] = make_cell(field(fields, Role::metric_value), base.exponent);
    }
  } else if (!rule.empty()) {
    RuleResult result;
    result.section = std::string(section);
    result.name = std::string(rule);
    result.type = std::string(field(fields, Role::rule_type));
    result.description = std::string(field(fields, Role::rule_description));
    result.speedup_type = std::string(field(fields, Role::speedup_type));
    const std::string_view speedup = field(fields, Role::speedup);
    if (!is_null_text(trim_spaces(speedup))) {
      result.estimated_speedup = parse_ncu_number(speedup);
    }
    kernel.rules.push_back(std::move(result));
  }
  return true;
}

/// The Capture column of (section, label), created on first sight; k_none when not kept.
std::size_t DetailsPageReader::column_of(std::string_view section, std::string_view label,
                                         std::string unit) {
  std::string key;
  key.reserve(section.size() + 1 + label.size());
  key.append(section).append(1, '\x1f').append(label);
  if (const auto found = m_columns.find(key); found != m_columns.end()) {
    return found->second;
  }
  auto [sections, inserted] = m_label_sections.try_emplace(std::string(label), 0);
  ++sections->second;
  std::size_t column = k_none;
  const std::string qualified = fmt::format("{}/{}", section, label);
  if (!projects_details_page() || keep(label) || keep(qualified)) {
    column = capture().columns.size();
    capture().columns.push_back(Column{std::string(label), std::move(unit), std::string(section)});
  }
  m_columns.emplace(std::move(key), column);
  return column;
}

void DetailsPageReader::finish() {
  for (Column& column : capture().columns) {
    const auto found = m_label_sections.find(column.name);
    if (found != m_label_sections.end() && found->second > 1) {
      column.name = fmt::format("{}/{}", column.section, column.name);
    }
  }
  for (KernelRecord& kernel : capture().kernels) {
    kernel.cells.resize(capture().columns.size());
  }
}

} // namespace kprof::csv

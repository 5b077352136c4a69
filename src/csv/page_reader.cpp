// What the raw-page and details-page readers share (see page_reader.hpp).
#include "csv/page_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "csv/ncu_values.hpp"

namespace kprof::csv {
namespace {

bool contains(std::span<const std::string_view> fields, std::string_view wanted) {
  return std::find(fields.begin(), fields.end(), wanted) != fields.end();
}

} // namespace

Role identity_role(std::string_view name) {
  static const std::array<std::pair<std::string_view, Role>, 11> k_identity{{
      {"ID", Role::id},
      {"Process ID", Role::process_id},
      {"Process Name", Role::process_name},
      {"Host Name", Role::ignored},
      {"Kernel Name", Role::kernel_name},
      {"Context", Role::context},
      {"Stream", Role::stream},
      {"Block Size", Role::block},
      {"Grid Size", Role::grid},
      {"Device", Role::device},
      {"CC", Role::cc},
  }};
  for (const auto& [label, role] : k_identity) {
    if (name == label) {
      return role;
    }
  }
  if (name.find("Push/Pop_Range") != std::string_view::npos) {
    return Role::nvtx;
  }
  if (name.find("Start/Stop_Range") != std::string_view::npos) {
    return Role::ignored;
  }
  return Role::metric;
}

bool is_header(std::span<const std::string_view> fields) {
  return fields.size() >= 2 && fields[0] == "ID" && fields[1] == "Process ID" &&
         contains(fields, "Kernel Name");
}

bool is_details_header(std::span<const std::string_view> fields) {
  return contains(fields, "Section Name") && contains(fields, "Metric Name") &&
         contains(fields, "Metric Value");
}

std::string shown(std::string_view value) {
  std::string out(value.substr(0, 60));
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  if (value.size() > 60) {
    out += "...";
  }
  return fmt::format("\"{}\"", out);
}

bool PageReader::fail(std::size_t line, std::string_view what) {
  m_error = make_error(ErrorCategory::malformed_input,
                       fmt::format("{}: line {}: {}", m_capture->source, line, what));
  return false;
}

void PageReader::set_header(std::span<const std::string_view> header) {
  m_header.assign(header.begin(), header.end());
}

bool PageReader::check_repeated_header(std::size_t line, std::span<const std::string_view> fields) {
  if (!std::equal(fields.begin(), fields.end(), m_header.begin(), m_header.end())) {
    return fail(line, "a second header row that differs from the first");
  }
  return true;
}

bool PageReader::read_identity(std::size_t line, std::span<const std::string_view> fields,
                               KernelRecord& kernel) {
  for (const auto& [index, role] : m_identity) {
    if (index >= fields.size()) {
      continue;
    }
    const std::string_view field = fields[index];
    switch (role) {
    case Role::id: {
      const auto id = parse_grouped_int(field);
      if (!id) {
        return fail(line, fmt::format("the kernel ID {} is not a number", shown(field)));
      }
      kernel.id = *id;
      break;
    }
    case Role::process_id:
      kernel.process_id = parse_grouped_int(field).value_or(-1);
      break;
    case Role::process_name:
      kernel.process_name = std::string(field);
      break;
    case Role::kernel_name:
      kernel.name = std::string(field);
      break;
    case Role::context:
      kernel.context = parse_grouped_int(field).value_or(-1);
      break;
    case Role::stream:
      kernel.stream = parse_grouped_int(field).value_or(-1);
      break;
    case Role::device:
      kernel.device = static_cast<int>(parse_grouped_int(field).value_or(-1));
      break;
    case Role::cc:
      kernel.cc = std::string(field);
      break;
    case Role::block:
    case Role::grid: {
      const auto dims = parse_dim3(field);
      if (!dims) {
        return fail(line,
                    fmt::format("the {} {} is not \"(x, y, z)\"",
                                role == Role::grid ? "grid size" : "block size", shown(field)));
      }
      (role == Role::grid ? kernel.grid : kernel.block) = *dims;
      break;
    }
    case Role::nvtx:
      kernel.nvtx_stack = parse_nvtx_stack(field);
      kernel.nvtx_range = kernel.nvtx_stack.empty() ? std::string() : kernel.nvtx_stack.back();
      break;
    default:
      break;
    }
  }
  return true;
}

Cell PageReader::make_cell(std::string_view field, int exponent) {
  const FieldValue value = parse_metric_value(field, exponent);
  Cell cell;
  cell.kind = value.kind;
  if (value.kind == ValueKind::number) {
    cell.number = value.number;
  } else if (value.kind == ValueKind::text) {
    cell.text = intern(field);
  }
  return cell;
}

std::uint32_t PageReader::intern(std::string_view text) {
  if (const auto found = m_pool_index.find(text); found != m_pool_index.end()) {
    return found->second;
  }
  KPROF_ASSERT(m_capture->text_pool.size() < std::numeric_limits<std::uint32_t>::max());
  const auto index = static_cast<std::uint32_t>(m_capture->text_pool.size());
  m_capture->text_pool.emplace_back(text);
  m_pool_index.emplace(std::string(text), index);
  return index;
}

} // namespace kprof::csv

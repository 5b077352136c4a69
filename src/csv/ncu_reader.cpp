// Design note: reading ncu's CSV.
//
// ncu's output is a CSV table with other text around it: its own `==PROF==` lines, the profiled
// program's stdout when both went to the terminal, blank lines, and in our recordings a final
// `rc=N`. The tokenizer (csv_tokenizer.hpp) separates CSV records from text lines; this file
// gives them meaning with a small state machine: before the header, expecting the units row
// (raw page), and rows.
//
// The header decides everything once: each column gets a role (an identity field of
// KernelRecord, a metric, or ignored) and, for metrics, the index of its Capture column or
// "dropped" when ReadOptions::keep_column refuses it. Each data row then visits only the
// planned columns, so a projection to 40 of 2,240 columns parses 40 values per row, and memory
// holds only kept cells. The same reader serves parse_ncu_csv (one chunk) and
// read_ncu_csv_file (1 MiB reads); tests check that the chunk size changes nothing.
//
// The details page is long-form: one row per (kernel, section, metric) and one per rule result,
// rows cut short after "Metric Value". Columns are discovered as rows arrive, keyed by
// (section, label); labels that occur in several sections are renamed "Section/Label" at the end.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "csv/csv_tokenizer.hpp"
#include "csv/ncu_reader_internal.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/numbers.hpp"

namespace kprof {
namespace csv {
namespace {

constexpr std::size_t k_none = std::numeric_limits<std::size_t>::max();

enum class Role : std::uint8_t {
  ignored,
  id,
  process_id,
  process_name,
  kernel_name,
  context,
  stream,
  block,
  grid,
  device,
  cc,
  nvtx,
  metric,
  // details page only
  section_name,
  metric_name,
  metric_unit,
  metric_value,
  rule_name,
  rule_type,
  rule_description,
  speedup_type,
  speedup,
};

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

bool contains(std::span<const std::string_view> fields, std::string_view wanted) {
  return std::find(fields.begin(), fields.end(), wanted) != fields.end();
}

bool is_header(std::span<const std::string_view> fields) {
  return fields.size() >= 2 && fields[0] == "ID" && fields[1] == "Process ID" &&
         contains(fields, "Kernel Name");
}

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t'; });
}

/// `==PROF==`, `==WARNING==`, `==ERROR==` and their kin.
bool is_ncu_line(std::string_view text) {
  if (text.size() < 5 || !text.starts_with("==")) {
    return false;
  }
  const std::size_t close = text.find("==", 2);
  if (close == std::string_view::npos || close == 2) {
    return false;
  }
  return std::all_of(text.begin() + 2, text.begin() + static_cast<std::ptrdiff_t>(close),
                     [](char c) { return c >= 'A' && c <= 'Z'; });
}

/// The capture script's `rc=N` line.
bool is_rc_line(std::string_view text) {
  if (!text.starts_with("rc=")) {
    return false;
  }
  return parse_int(text.substr(3)).has_value();
}

/// A value quoted for a one-line message: newlines flattened, long values cut.
std::string shown(std::string_view value) {
  std::string out(value.substr(0, 60));
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  if (value.size() > 60) {
    out += "...";
  }
  return fmt::format("\"{}\"", out);
}

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  while (!text.empty() && text.back() == ' ') {
    text.remove_suffix(1);
  }
  return text;
}

/// An integer as ncu prints it, thousands separators allowed ("1,024").
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

/// "(128, 1, 1)" -> {128, 1, 1}.
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

/// The NVTX push/pop column: `884  "<default domain>:kprof:none:...:none" ` with one quoted
/// entry per range on the stack, outermost first. Each entry is Domain:Range followed by six
/// ':'-fields (PL_Type..Msg); the range name is what lies between, colons included.
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

bool is_null_text(std::string_view text) {
  return text.empty() || text == "n/a" || text == "no data" || text == "N/A";
}

/// A unit in ncu's base form and the power of ten that takes a value there.
struct BaseUnit {
  std::string unit;
  int exponent = 0;
};

/// `ncu --csv` prints base units (byte, ns, hz, byte/s), but `ncu --import ... --csv` scales
/// them (Mbyte, us, Gbyte/s, Kbyte/block). Values are stored in base units so that every
/// capture means the same thing; this maps a printed unit to its base form.
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

/// parse_ncu_number, then times 10^exponent, applied to the decimal text so that "16.781824"
/// Mbyte becomes exactly 16781824 byte.
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

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept {
    return std::hash<std::string_view>{}(text);
  }
};

/// One column of the header the rows are read through.
struct PlanItem {
  std::size_t index = 0; ///< position in the row
  Role role = Role::ignored;
  std::size_t column = k_none; ///< Capture column of a kept metric
  int exponent = 0;            ///< power of ten from the printed unit to the base unit
};

class NcuCsvReader final : public LineSink {
public:
  NcuCsvReader(const ReadOptions& options, std::string_view source) : m_options(options) {
    m_capture.source = std::string(source);
  }

  bool on_text(std::size_t /*line*/, std::string_view text) override {
    if (is_blank(text)) {
      return true;
    }
    if (is_ncu_line(text)) {
      if (text.find("No kernels were profiled") != std::string_view::npos) {
        m_saw_no_kernels = true;
      }
      m_capture.ncu_lines.emplace_back(text);
      return true;
    }
    if (!is_rc_line(text)) {
      ++m_capture.foreign_lines;
    }
    return true;
  }

  bool on_record(std::size_t line, std::span<const std::string_view> fields) override {
    switch (m_state) {
    case State::before_header:
      if (is_header(fields)) {
        return start_table(line, fields);
      }
      ++m_capture.foreign_lines;
      return true;
    case State::expect_units:
      m_state = State::rows;
      if (!fields.empty() && fields[0].empty()) {
        return read_units(line, fields);
      }
      return read_raw_row(line, fields);
    case State::rows:
      if (!fields.empty() && fields[0] == "ID") {
        return repeated_header(line, fields);
      }
      return m_capture.page == PageKind::raw ? read_raw_row(line, fields)
                                             : read_details_row(line, fields);
    }
    return true;
  }

  /// The outcome once the tokenizer has seen all input (or stopped).
  Result<Capture> finish(const CsvTokenizer& tokenizer) {
    if (m_error) {
      return std::move(*m_error);
    }
    if (const auto& error = tokenizer.error()) {
      std::string message =
          fmt::format("{}: line {}: {}", m_capture.source, error->line, error->message);
      if (error->reason == TokenizerError::Reason::binary) {
        message += " (an .ncu-rep report must first be converted with `ncu --import`)";
      }
      return make_error(ErrorCategory::malformed_input, std::move(message));
    }
    if (m_state == State::before_header) {
      if (m_saw_no_kernels) {
        return make_error(ErrorCategory::no_kernels,
                          fmt::format("{}: ncu profiled no kernels (it said \"No kernels were "
                                      "profiled\"; check the NVTX and kernel filters)",
                                      m_capture.source));
      }
      if (tokenizer.bytes() == 0) {
        return make_error(
            ErrorCategory::malformed_input,
            fmt::format("{}: not ncu CSV output: the input is empty", m_capture.source));
      }
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("{}: not ncu CSV output: no header row with ID and Kernel "
                                    "Name in {} lines",
                                    m_capture.source, tokenizer.line() - 1));
    }
    if (m_capture.kernels.empty()) {
      return make_error(ErrorCategory::no_kernels,
                        fmt::format("{}: line {}: ncu printed the table header but no kernel row",
                                    m_capture.source, m_header_line));
    }
    if (m_capture.page == PageKind::details) {
      finish_details();
    }
    m_capture.index_columns();
    return std::move(m_capture);
  }

private:
  enum class State : std::uint8_t { before_header, expect_units, rows };

  bool fail(std::size_t line, std::string_view what) {
    m_error = make_error(ErrorCategory::malformed_input,
                         fmt::format("{}: line {}: {}", m_capture.source, line, what));
    return false;
  }

  bool keep(std::string_view name) const {
    return !m_options.keep_column || m_options.keep_column(name);
  }

  bool start_table(std::size_t line, std::span<const std::string_view> fields) {
    m_header_line = line;
    m_header.assign(fields.begin(), fields.end());
    const bool details = contains(fields, "Section Name") && contains(fields, "Metric Name") &&
                         contains(fields, "Metric Value");
    m_capture.page = details ? PageKind::details : PageKind::raw;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const Role role = details ? details_role(fields[i]) : identity_role(fields[i]);
      if (role == Role::ignored) {
        continue;
      }
      if (details && role == Role::metric) {
        continue; // the details page has no other columns; ignore what a later ncu may add
      }
      PlanItem item{i, role, k_none};
      if (role == Role::metric) {
        if (!keep(fields[i])) {
          continue;
        }
        item.column = m_capture.columns.size();
        m_capture.columns.push_back(Column{std::string(fields[i]), {}, {}});
      }
      m_plan.push_back(item);
      m_details_index[static_cast<std::size_t>(role)] = i;
    }
    m_state = details ? State::rows : State::expect_units;
    if (details) {
      const std::size_t value_at = m_details_index[static_cast<std::size_t>(Role::metric_value)];
      m_details_min_fields = value_at + 1;
    }
    return true;
  }

  bool read_units(std::size_t line, std::span<const std::string_view> fields) {
    if (fields.size() != m_header.size()) {
      return fail(line, fmt::format("the units row has {} fields, the header {}", fields.size(),
                                    m_header.size()));
    }
    for (PlanItem& item : m_plan) {
      if (item.role == Role::metric) {
        BaseUnit base = normalise_unit(fields[item.index]);
        m_capture.columns[item.column].unit = std::move(base.unit);
        item.exponent = base.exponent;
      }
    }
    return true;
  }

  bool repeated_header(std::size_t line, std::span<const std::string_view> fields) {
    if (!std::equal(fields.begin(), fields.end(), m_header.begin(), m_header.end())) {
      return fail(line, "a second header row that differs from the first");
    }
    if (m_capture.page == PageKind::raw) {
      m_state = State::expect_units;
    }
    return true;
  }

  /// Identity fields shared by both pages. False (with m_error set) when ID, grid or block is
  /// not a number.
  bool read_identity(std::size_t line, std::span<const std::string_view> fields,
                     KernelRecord& kernel) {
    for (const PlanItem& item : m_plan) {
      if (item.index >= fields.size()) {
        continue;
      }
      const std::string_view field = fields[item.index];
      switch (item.role) {
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
          return fail(line, fmt::format("the {} {} is not \"(x, y, z)\"",
                                        item.role == Role::grid ? "grid size" : "block size",
                                        shown(field)));
        }
        (item.role == Role::grid ? kernel.grid : kernel.block) = *dims;
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

  bool read_raw_row(std::size_t line, std::span<const std::string_view> fields) {
    if (fields.size() != m_header.size()) {
      if (fields.size() < m_header.size()) {
        return fail(line, fmt::format("the row has {} fields, the header {} (truncated output?)",
                                      fields.size(), m_header.size()));
      }
      return fail(line, fmt::format("the row has {} fields, more than the header's {}",
                                    fields.size(), m_header.size()));
    }
    KernelRecord kernel;
    if (!read_identity(line, fields, kernel)) {
      return false;
    }
    kernel.cells.resize(m_capture.columns.size());
    for (const PlanItem& item : m_plan) {
      if (item.role == Role::metric) {
        kernel.cells[item.column] = parse_cell(fields[item.index], item.exponent);
      }
    }
    m_capture.kernels.push_back(std::move(kernel));
    return true;
  }

  std::string_view details_field(std::span<const std::string_view> fields, Role role) const {
    const std::size_t at = m_details_index[static_cast<std::size_t>(role)];
    return at < fields.size() ? fields[at] : std::string_view{};
  }

  bool read_details_row(std::size_t line, std::span<const std::string_view> fields) {
    if (fields.size() > m_header.size()) {
      return fail(line, fmt::format("the row has {} fields, more than the header's {}",
                                    fields.size(), m_header.size()));
    }
    if (fields.size() < m_details_min_fields) {
      return fail(line, fmt::format("the row has {} fields, a details row needs at least {} "
                                    "(truncated output?)",
                                    fields.size(), m_details_min_fields));
    }
    const std::string_view id_text = details_field(fields, Role::id);
    const auto id = parse_grouped_int(id_text);
    if (!id) {
      return fail(line, fmt::format("the kernel ID {} is not a number", shown(id_text)));
    }
    auto [found, inserted] = m_kernel_by_id.try_emplace(*id, m_capture.kernels.size());
    if (inserted) {
      KernelRecord kernel;
      if (!read_identity(line, fields, kernel)) {
        return false;
      }
      m_capture.kernels.push_back(std::move(kernel));
    }
    KernelRecord& kernel = m_capture.kernels[found->second];

    const std::string_view section = details_field(fields, Role::section_name);
    const std::string_view label = details_field(fields, Role::metric_name);
    const std::string_view rule = details_field(fields, Role::rule_name);
    if (!label.empty()) {
      BaseUnit base = normalise_unit(details_field(fields, Role::metric_unit));
      const std::size_t column = details_column(section, label, std::move(base.unit));
      if (column != k_none) {
        if (kernel.cells.size() <= column) {
          kernel.cells.resize(m_capture.columns.size());
        }
        kernel.cells[column] = parse_cell(details_field(fields, Role::metric_value), base.exponent);
      }
    } else if (!rule.empty()) {
      RuleResult result;
      result.section = std::string(section);
      result.name = std::string(rule);
      result.type = std::string(details_field(fields, Role::rule_type));
      result.description = std::string(details_field(fields, Role::rule_description));
      result.speedup_type = std::string(details_field(fields, Role::speedup_type));
      const std::string_view speedup = details_field(fields, Role::speedup);
      if (!is_null_text(trim_spaces(speedup))) {
        result.estimated_speedup = parse_ncu_number(speedup);
      }
      kernel.rules.push_back(std::move(result));
    }
    return true;
  }

  /// The Capture column of (section, label), created on first sight; k_none when not kept.
  std::size_t details_column(std::string_view section, std::string_view label, std::string unit) {
    std::string key;
    key.reserve(section.size() + 1 + label.size());
    key.append(section).append(1, '\x1f').append(label);
    if (const auto found = m_details_columns.find(key); found != m_details_columns.end()) {
      return found->second;
    }
    auto [sections, inserted] = m_label_sections.try_emplace(std::string(label), 0);
    ++sections->second;
    std::size_t column = k_none;
    const std::string qualified = fmt::format("{}/{}", section, label);
    if (keep(label) || keep(qualified)) {
      column = m_capture.columns.size();
      m_capture.columns.push_back(
          Column{std::string(label), std::move(unit), std::string(section)});
    }
    m_details_columns.emplace(std::move(key), column);
    return column;
  }

  void finish_details() {
    for (Column& column : m_capture.columns) {
      const auto found = m_label_sections.find(column.name);
      if (found != m_label_sections.end() && found->second > 1) {
        column.name = fmt::format("{}/{}", column.section, column.name);
      }
    }
    for (KernelRecord& kernel : m_capture.kernels) {
      kernel.cells.resize(m_capture.columns.size());
    }
  }

  Cell parse_cell(std::string_view field, int exponent) {
    Cell cell;
    if (is_null_text(field)) {
      return cell;
    }
    if (const auto number = parse_scaled(field, exponent)) {
      cell.kind = ValueKind::number;
      cell.number = *number;
      return cell;
    }
    // Instance values: "1,024 (1,024)" -> the value before the parenthesis.
    if (const std::size_t paren = field.find(" (");
        paren != std::string_view::npos && field.back() == ')') {
      const std::string_view head = trim_spaces(field.substr(0, paren));
      if (is_null_text(head)) {
        return cell;
      }
      if (const auto number = parse_scaled(head, exponent)) {
        cell.kind = ValueKind::number;
        cell.number = *number;
        return cell;
      }
    }
    cell.kind = ValueKind::text;
    cell.text = intern(field);
    return cell;
  }

  std::uint32_t intern(std::string_view text) {
    if (const auto found = m_pool_index.find(text); found != m_pool_index.end()) {
      return found->second;
    }
    KPROF_ASSERT(m_capture.text_pool.size() < std::numeric_limits<std::uint32_t>::max());
    const auto index = static_cast<std::uint32_t>(m_capture.text_pool.size());
    m_capture.text_pool.emplace_back(text);
    m_pool_index.emplace(std::string(text), index);
    return index;
  }

  const ReadOptions& m_options;
  Capture m_capture;
  std::optional<Error> m_error;
  State m_state = State::before_header;
  bool m_saw_no_kernels = false;
  std::size_t m_header_line = 0;
  std::vector<std::string> m_header;
  std::vector<PlanItem> m_plan;
  std::array<std::size_t, static_cast<std::size_t>(Role::speedup) + 1> m_details_index{[] {
    std::array<std::size_t, static_cast<std::size_t>(Role::speedup) + 1> none{};
    none.fill(k_none);
    return none;
  }()};
  std::size_t m_details_min_fields = 0;
  std::unordered_map<std::int64_t, std::size_t> m_kernel_by_id;
  std::unordered_map<std::string, std::size_t> m_details_columns;
  std::unordered_map<std::string, std::size_t> m_label_sections;
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> m_pool_index;
};

/// RAII owner of a file descriptor.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : m_fd(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  FileDescriptor(FileDescriptor&&) = delete;
  FileDescriptor& operator=(FileDescriptor&&) = delete;
  ~FileDescriptor() {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  [[nodiscard]] int get() const { return m_fd; }
  [[nodiscard]] bool valid() const { return m_fd >= 0; }

private:
  int m_fd;
};

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

} // namespace

Result<Capture> parse_ncu_csv_chunked(std::string_view text, const ReadOptions& options,
                                      std::string_view source, std::size_t chunk_size) {
  NcuCsvReader reader(options, source);
  CsvTokenizer tokenizer(reader);
  if (chunk_size == 0) {
    chunk_size = std::max<std::size_t>(text.size(), 1);
  }
  bool go_on = true;
  for (std::size_t at = 0; go_on && at < text.size(); at += chunk_size) {
    go_on = tokenizer.feed(text.substr(at, chunk_size));
  }
  if (go_on) {
    tokenizer.finish();
  }
  return reader.finish(tokenizer);
}

Result<Capture> read_ncu_csv_file_chunked(const std::filesystem::path& path,
                                          const ReadOptions& options, std::size_t chunk_size) {
  KPROF_ASSERT(chunk_size > 0);
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{}: cannot open: {}", path.string(), errno_text(errno)));
  }
  NcuCsvReader reader(options, path.string());
  CsvTokenizer tokenizer(reader);
  std::string buffer(chunk_size, '\0');
  bool go_on = true;
  while (go_on) {
    const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("{}: cannot read: {}", path.string(), errno_text(errno)));
    }
    if (got == 0) {
      tokenizer.finish();
      break;
    }
    go_on = tokenizer.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  }
  return reader.finish(tokenizer);
}

} // namespace csv

Result<Capture> parse_ncu_csv(std::string_view text, const ReadOptions& options,
                              std::string_view source) {
  return csv::parse_ncu_csv_chunked(text, options, source, 0);
}

Result<Capture> read_ncu_csv_file(const std::filesystem::path& path, const ReadOptions& options) {
  return csv::read_ncu_csv_file_chunked(path, options, csv::k_default_chunk_size);
}

bool looks_like_ncu_report(const std::filesystem::path& path) {
  if (path.extension() == ".ncu-rep") {
    return true;
  }
  const csv::FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return false;
  }
  std::array<char, 4096> head{};
  std::size_t have = 0;
  while (have < head.size()) {
    const ssize_t got = ::read(fd.get(), head.data() + have, head.size() - have);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;
    }
    have += static_cast<std::size_t>(got);
  }
  // Nsight Compute reports start with "NVR\0" (seen on reports written by ncu 2025.3.1); any
  // other binary file is malformed input, not a report that needs ncu.
  constexpr std::string_view k_report_magic{"NVR\0", 4};
  return have >= k_report_magic.size() &&
         std::string_view(head.data(), k_report_magic.size()) == k_report_magic;
}

} // namespace kprof

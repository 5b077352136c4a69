// Design note: reading ncu's source page (`--page source --print-source cuda,sass --csv`).
//
// The page is a run of blocks, one per (launch, source file): a "File Path" record, a
// "Function Name" record, a header, then rows. The header is repeated for every block and its
// columns are found by name, never by position (ncu adds columns between versions, and the two
// "Source" columns are told apart only by order: the first is the CUDA/Python text, the second
// the SASS). A row with a line number is the total of that source line; a row with an empty line
// number is one SASS instruction (or `...` for elided ones), kept under the line row before it
// (the diagnosis reads which instructions a line runs and what they wait for). The same
// tokenizer as the raw and details pages splits records from text; the only text ncu prints here
// is its own `==WARNING==` lines (for a kernel without line info, that is all there is). A block
// cut short (no header, fewer fields than its header) is malformed input, never a guess.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "csv/csv_tokenizer.hpp"
#include "csv/ncu_reader_internal.hpp"
#include "csv/ncu_values.hpp"
#include "csv/page_reader.hpp"
#include "kprof/source_page.hpp"

namespace kprof {

LineCounters& LineCounters::operator+=(const LineCounters& other) {
  samples += other.samples;
  samples_not_issued += other.samples_not_issued;
  instructions_executed += other.instructions_executed;
  thread_instructions_executed += other.thread_instructions_executed;
  l2_sectors += other.l2_sectors;
  l2_sectors_ideal += other.l2_sectors_ideal;
  l2_sectors_excessive += other.l2_sectors_excessive;
  shared_wavefronts += other.shared_wavefronts;
  shared_wavefronts_ideal += other.shared_wavefronts_ideal;
  shared_wavefronts_excessive += other.shared_wavefronts_excessive;
  if (access_size_bits != other.access_size_bits) {
    access_size_bits = 0;
  }
  for (const auto& stall : other.stalls) {
    auto same = std::find_if(stalls.begin(), stalls.end(),
                             [&](const auto& mine) { return mine.first == stall.first; });
    if (same == stalls.end()) {
      stalls.push_back(stall);
    } else {
      same->second += stall.second;
    }
  }
  return *this;
}

namespace csv {
namespace {

constexpr std::string_view k_line_no = "Line No";
constexpr std::string_view k_all_samples = "Warp Stall Sampling (All Samples)";
constexpr std::string_view k_stall_prefix = "stall_";
constexpr std::string_view k_not_issued_suffix = " (Not Issued)";

/// Where one block's header put the columns kprof reads (k_none: absent).
struct SourceColumns {
  std::size_t count = 0; ///< fields in the header
  std::size_t line_no = k_none;
  std::size_t source = k_none; ///< the first "Source": the source text
  std::size_t sass = k_none;   ///< the second "Source": the SASS text
  std::size_t address = k_none;
  std::size_t samples = k_none;
  std::size_t samples_not_issued = k_none;
  std::size_t instructions_executed = k_none;
  std::size_t thread_instructions_executed = k_none;
  std::size_t l2_sectors = k_none;
  std::size_t l2_sectors_ideal = k_none;
  std::size_t l2_sectors_excessive = k_none;
  std::size_t shared_wavefronts = k_none;
  std::size_t shared_wavefronts_ideal = k_none;
  std::size_t shared_wavefronts_excessive = k_none;
  std::size_t access_size = k_none;
  std::vector<std::pair<std::size_t, std::string>> stalls; ///< column, reason
};

/// The counter a header name stands for, or nullptr.
std::size_t* counter_column(SourceColumns& columns, std::string_view name) {
  const std::array<std::pair<std::string_view, std::size_t*>, 14> names{{
      {k_all_samples, &columns.samples},
      {"Warp Stall Sampling (Not-issued Samples)", &columns.samples_not_issued},
      {"Instructions Executed", &columns.instructions_executed},
      {"Thread Instructions Executed", &columns.thread_instructions_executed},
      {"Address", &columns.address},
      {"L2 Theoretical Sectors Global", &columns.l2_sectors},
      {"L2 Theoretical Sectors Global Ideal", &columns.l2_sectors_ideal},
      {"L2 Theoretical Sectors Global Excessive", &columns.l2_sectors_excessive},
      {"L1 Wavefronts Shared", &columns.shared_wavefronts},
      {"L1 Wavefronts Shared Ideal", &columns.shared_wavefronts_ideal},
      {"L1 Wavefronts Shared Excessive", &columns.shared_wavefronts_excessive},
      {"Access Size", &columns.access_size},
      {k_line_no, &columns.line_no},
      {"Source", &columns.source},
  }};
  for (const auto& [known, column] : names) {
    if (name == known) {
      return column;
    }
  }
  return nullptr;
}

bool is_stall_column(std::string_view name) {
  return name.starts_with(k_stall_prefix) && !name.ends_with(k_not_issued_suffix);
}

SourceColumns find_columns(std::span<const std::string_view> header) {
  SourceColumns columns;
  columns.count = header.size();
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string_view name = trim_spaces(header[i]);
    if (std::size_t* column = counter_column(columns, name)) {
      if (*column == k_none) {
        *column = i;
      } else if (column == &columns.source && columns.sass == k_none) {
        columns.sass = i; // the second "Source" is the SASS
      }
    } else if (is_stall_column(name)) {
      columns.stalls.emplace_back(i, std::string(name.substr(k_stall_prefix.size())));
    }
  }
  return columns;
}

/// A counter as ncu prints it; `-`, empty and anything unreadable count 0.
double counter_value(std::span<const std::string_view> fields, std::size_t column) {
  if (column == k_none || column >= fields.size()) {
    return 0;
  }
  const FieldValue value = parse_metric_value(trim_spaces(fields[column]), 0);
  return value.kind == ValueKind::number ? value.number : 0;
}

/// "128(2)": 128-bit accesses by two instructions. Several sizes ("32(2),64(2)") or none: 0.
double access_size_value(std::string_view field) {
  field = trim_spaces(field);
  if (field.find("),") != std::string_view::npos) {
    return 0;
  }
  const auto size = parse_grouped_int(trim_spaces(field.substr(0, field.find('('))));
  return size ? static_cast<double>(*size) : 0;
}

LineCounters read_counters(std::span<const std::string_view> fields, const SourceColumns& columns) {
  LineCounters counters;
  counters.samples = counter_value(fields, columns.samples);
  counters.samples_not_issued = counter_value(fields, columns.samples_not_issued);
  counters.instructions_executed = counter_value(fields, columns.instructions_executed);
  counters.thread_instructions_executed =
      counter_value(fields, columns.thread_instructions_executed);
  counters.l2_sectors = counter_value(fields, columns.l2_sectors);
  counters.l2_sectors_ideal = counter_value(fields, columns.l2_sectors_ideal);
  counters.l2_sectors_excessive = counter_value(fields, columns.l2_sectors_excessive);
  counters.shared_wavefronts = counter_value(fields, columns.shared_wavefronts);
  counters.shared_wavefronts_ideal = counter_value(fields, columns.shared_wavefronts_ideal);
  counters.shared_wavefronts_excessive = counter_value(fields, columns.shared_wavefronts_excessive);
  if (columns.access_size != k_none) {
    counters.access_size_bits = access_size_value(fields[columns.access_size]);
  }
  for (const auto& [column, reason] : columns.stalls) {
    if (const double count = counter_value(fields, column); count != 0) {
      counters.stalls.emplace_back(reason, count);
    }
  }
  return counters;
}

/// "0x7f45037b3220"; nullopt for `...` and anything else that is not a hex address.
std::optional<std::uint64_t> hex_address(std::string_view field) {
  field = trim_spaces(field);
  if (!field.starts_with("0x") || field.size() == 2) {
    return std::nullopt;
  }
  field.remove_prefix(2);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value, 16);
  if (error != std::errc() || end != field.data() + field.size()) {
    return std::nullopt;
  }
  return value;
}

/// The SASS text with its runs of spaces made one ("@!P0  LDG.E R4" -> "@!P0 LDG.E R4").
std::string collapse_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == ' ' && !out.empty() && out.back() == ' ') {
      continue;
    }
    out += c;
  }
  return out;
}

/// ncu's warnings and errors; its other `==PROF==` chatter is not kept.
bool is_ncu_message(std::string_view text) {
  return text.starts_with("==WARNING==") || text.starts_with("==ERROR==");
}

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

/// Builds a SourcePage from what the tokenizer finds; stops at the first structural error.
class SourcePageReader final : public LineSink {
public:
  explicit SourcePageReader(std::string_view origin) : m_origin(origin) {}

  bool on_text(std::size_t line, std::string_view text) override {
    if (is_ncu_message(text)) {
      m_page.messages.emplace_back(text);
      return true;
    }
    if (is_blank(text) || text.starts_with("==")) {
      return true;
    }
    return fail(line, fmt::format("not ncu's source page: {}", shown(text)));
  }

  bool on_record(std::size_t line, std::span<const std::string_view> fields) override {
    const std::string_view first = fields.empty() ? "" : trim_spaces(fields.front());
    if (first == "File Path") {
      return start_block(line, fields);
    }
    if (first == "Function Name") {
      return set_function(line, fields);
    }
    if (m_page.blocks.empty()) {
      return fail(line, "a record before any \"File Path\"");
    }
    if (!m_has_header) {
      return set_header(line, fields);
    }
    return add_row(line, fields);
  }

  Result<SourcePage> finish(const CsvTokenizer& tokenizer) {
    if (m_error) {
      return std::move(*m_error);
    }
    if (const auto& error = tokenizer.error()) {
      std::string message = fmt::format("{}: line {}: {}", m_origin, error->line, error->message);
      if (error->reason == TokenizerError::Reason::binary) {
        message += " (an .ncu-rep report must first be exported with `ncu --import R --page "
                   "source --csv`)";
      }
      return make_error(ErrorCategory::malformed_input, std::move(message));
    }
    if (!m_page.blocks.empty() && !m_has_header) {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("{}: the block of {} (line {}) ends before its header",
                                    m_origin, m_page.blocks.back().file, m_block_line));
    }
    return std::move(m_page);
  }

private:
  bool fail(std::size_t line, std::string reason) {
    m_error = make_error(ErrorCategory::malformed_input,
                         fmt::format("{}: line {}: {}", m_origin, line, reason));
    return false;
  }

  bool start_block(std::size_t line, std::span<const std::string_view> fields) {
    if (!m_page.blocks.empty() && !m_has_header) {
      return fail(line, fmt::format("the block of {} (line {}) has no header",
                                    m_page.blocks.back().file, m_block_line));
    }
    if (fields.size() < 2 || trim_spaces(fields[1]).empty()) {
      return fail(line, "\"File Path\" without a path");
    }
    m_page.blocks.push_back(SourceBlock{std::string(fields[1]), {}, {}});
    m_has_header = false;
    m_block_line = line;
    return true;
  }

  bool set_function(std::size_t line, std::span<const std::string_view> fields) {
    if (m_page.blocks.empty() || m_has_header) {
      return fail(line, "\"Function Name\" outside a block's opening");
    }
    m_page.blocks.back().function = fields.size() < 2 ? "" : std::string(fields[1]);
    return true;
  }

  /// The first record of a block after its opening must be the header.
  bool set_header(std::size_t line, std::span<const std::string_view> fields) {
    m_columns = find_columns(fields);
    if (m_columns.line_no == k_none || m_columns.samples == k_none) {
      return fail(line, fmt::format(R"(the block of {} has no header ("{}", "{}", ...))",
                                    m_page.blocks.back().file, k_line_no, k_all_samples));
    }
    m_has_header = true;
    return true;
  }

  bool add_row(std::size_t line, std::span<const std::string_view> fields) {
    if (fields.size() > m_columns.count && m_columns.source != k_none &&
        m_columns.line_no < m_columns.source) {
      fields = rejoin_source(fields);
    }
    if (fields.size() != m_columns.count) {
      return fail(line,
                  fmt::format("{} fields where the header has {}", fields.size(), m_columns.count));
    }
    const std::string_view number = trim_spaces(fields[m_columns.line_no]);
    if (number.empty()) {
      add_instruction(fields);
      return true;
    }
    const auto line_no = parse_grouped_int(number);
    if (!line_no || *line_no <= 0 || *line_no > std::numeric_limits<int>::max()) {
      return fail(line, fmt::format("\"Line No\" is not a line number: {}", shown(number)));
    }
    SourceLine source_line;
    source_line.line = static_cast<int>(*line_no);
    if (m_columns.source != k_none) {
      source_line.text = std::string(trim_spaces(fields[m_columns.source]));
    }
    source_line.counters = read_counters(fields, m_columns);
    m_page.blocks.back().lines.push_back(std::move(source_line));
    return true;
  }

  /// A SASS row: kept under the block's last line row, once per address. `...` rows, rows before
  /// any line row and rows whose address is not hex add nothing.
  void add_instruction(std::span<const std::string_view> fields) {
    std::vector<SourceLine>& lines = m_page.blocks.back().lines;
    if (lines.empty() || m_columns.address == k_none) {
      return;
    }
    const std::optional<std::uint64_t> address = hex_address(fields[m_columns.address]);
    if (!address) {
      return;
    }
    std::vector<SassInstruction>& instructions = lines.back().instructions;
    if (std::any_of(instructions.begin(), instructions.end(),
                    [&](const SassInstruction& seen) { return seen.address == *address; })) {
      return;
    }
    SassInstruction instruction;
    instruction.address = *address;
    if (m_columns.sass != k_none) {
      instruction.text = collapse_spaces(trim_spaces(fields[m_columns.sass]));
    }
    instruction.counters = read_counters(fields, m_columns);
    instructions.push_back(std::move(instruction));
  }

  /// ncu prints the source text without escaping its quotes: `"s = "a,b""` reaches us as more
  /// fields than the header has. The extra ones are the source text cut at its commas; joined
  /// back, the row reads right (the text loses its quotes, as `float("inf")` always does).
  std::span<const std::string_view> rejoin_source(std::span<const std::string_view> fields) {
    const std::size_t extra = fields.size() - m_columns.count;
    m_joined_text.clear();
    for (std::size_t i = m_columns.source; i <= m_columns.source + extra; ++i) {
      m_joined_text += (i == m_columns.source ? "" : ",");
      m_joined_text += fields[i];
    }
    m_joined.assign(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(m_columns.source));
    m_joined.emplace_back(m_joined_text);
    m_joined.insert(m_joined.end(),
                    fields.begin() + static_cast<std::ptrdiff_t>(m_columns.source + extra + 1),
                    fields.end());
    return m_joined;
  }

  std::string m_origin;
  std::string m_joined_text;
  std::vector<std::string_view> m_joined;
  SourcePage m_page;
  SourceColumns m_columns;
  bool m_has_header = false;
  std::size_t m_block_line = 0;
  std::optional<Error> m_error;
};

/// True when `block` cannot belong to the launch whose blocks so far are `launch` (the rule of
/// split_source_by_launch).
bool starts_new_launch(const std::vector<SourceBlock>& launch, const SourceBlock& block) {
  if (launch.empty()) {
    return false;
  }
  if (block.function != launch.back().function || block.file < launch.back().file) {
    return true;
  }
  return std::any_of(launch.begin(), launch.end(),
                     [&](const SourceBlock& seen) { return seen.file == block.file; });
}

std::vector<std::vector<SourceBlock>> group_by_launch(const std::vector<SourceBlock>& blocks) {
  std::vector<std::vector<SourceBlock>> groups;
  for (const SourceBlock& block : blocks) {
    if (groups.empty() || starts_new_launch(groups.back(), block)) {
      groups.emplace_back();
    }
    groups.back().push_back(block);
  }
  return groups;
}

/// Reads `fd` to its end through the tokenizer. False with `error` set when reading failed.
bool feed_fd(int fd, CsvTokenizer& tokenizer, std::string_view origin,
             std::optional<Error>& error) {
  std::string buffer(k_default_chunk_size, '\0');
  while (true) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      error = make_error(ErrorCategory::input_not_found,
                         fmt::format("{}: cannot read: {}", origin, errno_text(errno)));
      return false;
    }
    if (got == 0 || !tokenizer.feed({buffer.data(), static_cast<std::size_t>(got)})) {
      return true;
    }
  }
}

} // namespace
} // namespace csv

Result<SourcePage> parse_source_page(std::string_view text, std::string_view origin) {
  csv::SourcePageReader reader(origin);
  csv::CsvTokenizer tokenizer(reader);
  if (tokenizer.feed(text)) {
    tokenizer.finish();
  }
  return reader.finish(tokenizer);
}

Result<SourcePage> read_source_page(const std::filesystem::path& path) {
  auto fd = csv::open_regular_file(path);
  if (!fd) {
    return std::move(fd).error();
  }
  const std::string origin = path.string();
  csv::SourcePageReader reader(origin);
  csv::CsvTokenizer tokenizer(reader);
  std::optional<Error> read_error;
  if (!csv::feed_fd(fd->get(), tokenizer, origin, read_error)) {
    return std::move(*read_error);
  }
  tokenizer.finish(); // does nothing after a stop
  return reader.finish(tokenizer);
}

Result<std::vector<std::vector<SourceBlock>>>
split_source_by_launch(const SourcePage& page, const std::vector<std::string>& launch_names) {
  std::vector<std::vector<SourceBlock>> launches(launch_names.size());
  std::size_t next = 0;
  for (auto& group : csv::group_by_launch(page.blocks)) {
    const std::string& function = group.front().function;
    while (next < launch_names.size() && launch_names[next] != function) {
      ++next; // a launch without line info has no blocks
    }
    if (next == launch_names.size()) {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("the source page's blocks of {} ({}) match none of the {} "
                                    "profiled launches left",
                                    function, group.front().file, launch_names.size()));
    }
    launches[next++] = std::move(group);
  }
  return launches;
}

} // namespace kprof

// Design note: reading ncu's CSV.
//
// ncu's output is a CSV table with other text around it: its own `==PROF==` lines, the profiled
// program's stdout when both went to the terminal, blank lines, and in our recordings a final
// `rc=N`. The tokenizer (csv_tokenizer.hpp) separates CSV records from text lines; this file
// gives them meaning: text lines are sorted into ncu's lines and foreign ones, records before the
// header are foreign, the header picks the page reader (raw_page.hpp, details_page.hpp), and
// every later record goes to it. The same stream serves parse_ncu_csv (one chunk) and the file
// reading in ncu_file.cpp (1 MiB reads); tests check that the chunk size changes nothing.
#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "csv/csv_tokenizer.hpp"
#include "csv/details_page.hpp"
#include "csv/ncu_reader_internal.hpp"
#include "csv/raw_page.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/numbers.hpp"

namespace kprof {
namespace csv {
namespace {

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

/// Sorts what the tokenizer finds and hands the table to the page reader.
class NcuCsvReader final : public LineSink {
public:
  NcuCsvReader(const ReadOptions& options, std::string_view source) : m_options(&options) {
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
    if (m_page) {
      return m_page->on_record(line, fields);
    }
    if (!is_header(fields)) {
      ++m_capture.foreign_lines;
      return true;
    }
    m_header_line = line;
    if (is_details_header(fields)) {
      m_capture.page = PageKind::details;
      m_page = std::make_unique<DetailsPageReader>(m_capture, *m_options);
    } else {
      m_capture.page = PageKind::raw;
      m_page = std::make_unique<RawPageReader>(m_capture, *m_options);
    }
    return m_page->start(line, fields);
  }

  /// The outcome once the tokenizer has seen all input (or stopped).
  Result<Capture> finish(const CsvTokenizer& tokenizer) {
    if (m_page && m_page->error()) {
      return std::move(*m_page->error());
    }
    if (const auto& error = tokenizer.error()) {
      std::string message =
          fmt::format("{}: line {}: {}", m_capture.source, error->line, error->message);
      if (error->reason == TokenizerError::Reason::binary) {
        message += " (an .ncu-rep report must first be converted with `ncu --import`)";
      }
      return make_error(ErrorCategory::malformed_input, std::move(message));
    }
    if (!m_page) {
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
    m_page->finish();
    m_capture.index_columns();
    return std::move(m_capture);
  }

private:
  const ReadOptions* m_options;
  Capture m_capture;
  std::unique_ptr<PageReader> m_page; ///< set once the header is found
  bool m_saw_no_kernels = false;
  std::size_t m_header_line = 0;
};

} // namespace

class NcuCsvStream::State {
public:
  State(const ReadOptions& options, std::string_view source)
      : reader(options, source), tokenizer(reader) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  State(State&&) = delete;
  State& operator=(State&&) = delete;
  ~State() = default;

  NcuCsvReader reader;
  CsvTokenizer tokenizer;
  bool stopped = false;
};

NcuCsvStream::NcuCsvStream(const ReadOptions& options, std::string_view source)
    : m_state(std::make_unique<State>(options, source)) {}
NcuCsvStream::NcuCsvStream(NcuCsvStream&&) noexcept = default;
NcuCsvStream& NcuCsvStream::operator=(NcuCsvStream&&) noexcept = default;
NcuCsvStream::~NcuCsvStream() = default;

bool NcuCsvStream::feed(std::string_view chunk) {
  KPROF_ASSERT(!m_state->stopped);
  if (!m_state->tokenizer.feed(chunk)) {
    m_state->stopped = true;
  }
  return !m_state->stopped;
}

Result<Capture> NcuCsvStream::finish() {
  if (!m_state->stopped) {
    m_state->tokenizer.finish();
    m_state->stopped = true;
  }
  return m_state->reader.finish(m_state->tokenizer);
}

Result<Capture> parse_ncu_csv_chunked(std::string_view text, const ReadOptions& options,
                                      std::string_view source, std::size_t chunk_size) {
  NcuCsvStream stream(options, source);
  if (chunk_size == 0) {
    chunk_size = std::max<std::size_t>(text.size(), 1);
  }
  bool go_on = true;
  for (std::size_t at = 0; go_on && at < text.size(); at += chunk_size) {
    go_on = stream.feed(text.substr(at, chunk_size));
  }
  return stream.finish();
}

} // namespace csv

Result<Capture> parse_ncu_csv(std::string_view text, const ReadOptions& options,
                              std::string_view source) {
  return csv::parse_ncu_csv_chunked(text, options, source, 0);
}

ReadOptions keep_columns_named(std::vector<std::string> names) {
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept {
      return std::hash<std::string_view>{}(text);
    }
  };
  using Names = std::unordered_set<std::string, Hash, std::equal_to<>>;
  auto wanted = std::make_shared<const Names>(std::make_move_iterator(names.begin()),
                                              std::make_move_iterator(names.end()));
  ReadOptions options;
  options.keep_column = [wanted](std::string_view name) { return wanted->contains(name); };
  return options;
}

} // namespace kprof

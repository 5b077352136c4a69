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
#include <optional>
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

/// How many bytes from the start of the input are looked at for a text encoding ncu never
/// writes, before any reaches the tokenizer.
constexpr std::size_t k_head_bytes = 64;

/// A text encoding that is not UTF-8, as iconv names it, and how it was recognised.
struct ForeignEncoding {
  std::string_view iconv_name; ///< "UTF-16" (with a byte-order mark), "UTF-16LE", ...
  std::string_view family;     ///< "UTF-16" or "UTF-32"
  std::string_view how;        ///< "little-endian, with a byte-order mark"
};

/// Whether every `width`-byte unit of `head` (whole units only, at least two) has its one
/// non-NUL byte at `at`: ASCII text in UTF-16 or UTF-32 without a byte-order mark.
bool nul_pattern(std::string_view head, std::size_t width, std::size_t at) {
  const std::size_t units = head.size() / width;
  if (units < 2) {
    return false;
  }
  for (std::size_t unit = 0; unit < units; ++unit) {
    for (std::size_t byte = 0; byte < width; ++byte) {
      if ((head[unit * width + byte] == '\0') == (byte == at)) {
        return false;
      }
    }
  }
  return true;
}

/// UTF-16 or UTF-32 text at the start of `head`, known by its byte-order mark or, without one,
/// by the NUL bytes of its ASCII characters (a Windows editor or PowerShell's `>` saves ncu's
/// CSV so). nullopt for anything else: binary data stays the tokenizer's to refuse.
std::optional<ForeignEncoding> foreign_encoding(std::string_view head) {
  using namespace std::string_view_literals;
  if (head.starts_with("\xFF\xFE\0\0"sv)) {
    return ForeignEncoding{"UTF-32", "UTF-32", "little-endian, with a byte-order mark"};
  }
  if (head.starts_with("\0\0\xFE\xFF"sv)) {
    return ForeignEncoding{"UTF-32", "UTF-32", "big-endian, with a byte-order mark"};
  }
  if (head.starts_with("\xFF\xFE"sv)) {
    return ForeignEncoding{"UTF-16", "UTF-16", "little-endian, with a byte-order mark"};
  }
  if (head.starts_with("\xFE\xFF"sv)) {
    return ForeignEncoding{"UTF-16", "UTF-16", "big-endian, with a byte-order mark"};
  }
  if (nul_pattern(head, 4, 0)) {
    return ForeignEncoding{"UTF-32LE", "UTF-32", "little-endian, without a byte-order mark"};
  }
  if (nul_pattern(head, 4, 3)) {
    return ForeignEncoding{"UTF-32BE", "UTF-32", "big-endian, without a byte-order mark"};
  }
  if (nul_pattern(head, 2, 0)) {
    return ForeignEncoding{"UTF-16LE", "UTF-16", "little-endian, without a byte-order mark"};
  }
  if (nul_pattern(head, 2, 1)) {
    return ForeignEncoding{"UTF-16BE", "UTF-16", "big-endian, without a byte-order mark"};
  }
  return std::nullopt;
}

Error foreign_encoding_error(std::string_view source, const ForeignEncoding& encoding) {
  const std::string convert =
      source == k_stdin_source
          ? fmt::format("pipe it through `iconv -f {} -t UTF-8` first", encoding.iconv_name)
          : fmt::format("convert it with `iconv -f {} -t UTF-8 {} > converted.csv` and read that",
                        encoding.iconv_name, source);
  return make_error(ErrorCategory::malformed_input,
                    fmt::format("{} is {} text ({}), but ncu writes UTF-8: {}", source,
                                encoding.family, encoding.how, convert));
}

} // namespace

class NcuCsvStream::State {
public:
  State(const ReadOptions& options, std::string_view source_name)
      : reader(options, source_name), tokenizer(reader), source(source_name) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  State(State&&) = delete;
  State& operator=(State&&) = delete;
  ~State() = default;

  /// Hands the held head to the tokenizer, or stops at a foreign encoding. False when reading
  /// stopped.
  bool release_head() {
    head_released = true;
    if (auto encoding = foreign_encoding(head)) {
      encoding_error = foreign_encoding_error(source, *encoding);
      stopped = true;
    } else if (!head.empty() && !tokenizer.feed(head)) {
      stopped = true;
    }
    head.clear();
    return !stopped;
  }

  NcuCsvReader reader;
  CsvTokenizer tokenizer;
  std::string source;
  /// The first k_head_bytes of the input, held back until its encoding is known.
  std::string head;
  bool head_released = false;
  std::optional<Error> encoding_error;
  bool stopped = false;
};

NcuCsvStream::NcuCsvStream(const ReadOptions& options, std::string_view source)
    : m_state(std::make_unique<State>(options, source)) {}
NcuCsvStream::NcuCsvStream(NcuCsvStream&&) noexcept = default;
NcuCsvStream& NcuCsvStream::operator=(NcuCsvStream&&) noexcept = default;
NcuCsvStream::~NcuCsvStream() = default;

bool NcuCsvStream::feed(std::string_view chunk) {
  KPROF_ASSERT(!m_state->stopped);
  State& state = *m_state;
  if (!state.head_released) {
    const std::size_t take = std::min(chunk.size(), k_head_bytes - state.head.size());
    state.head.append(chunk.substr(0, take));
    chunk.remove_prefix(take);
    if (state.head.size() < k_head_bytes || !state.release_head()) {
      return !state.stopped;
    }
  }
  if (!chunk.empty() && !state.tokenizer.feed(chunk)) {
    state.stopped = true;
  }
  return !state.stopped;
}

Result<Capture> NcuCsvStream::finish() {
  State& state = *m_state;
  if (!state.stopped && !state.head_released) {
    (void)state.release_head(); // input shorter than the head
  }
  if (state.encoding_error) {
    return *state.encoding_error;
  }
  if (!state.stopped) {
    state.tokenizer.finish();
    state.stopped = true;
  }
  return state.reader.finish(state.tokenizer);
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

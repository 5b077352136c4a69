// kprof (private to src/csv): what the raw-page and details-page readers share.
//
// ncu prints one of two pages. Both start with the same identity columns (ID, Kernel Name, NVTX,
// grid, block, device, ...); after that they differ: the raw page is wide (one row per launch,
// one column per metric, a units row under the header), the details page is long (one row per
// launch, section and metric, plus one per rule result). NcuCsvReader (ncu_reader.cpp) finds the
// header, picks the page reader and hands it every later record; a PageReader builds the Capture.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/ncu_output.hpp"

namespace kprof::csv {

inline constexpr std::size_t k_none = std::numeric_limits<std::size_t>::max();

/// What a header column means.
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
inline constexpr std::size_t k_role_count = static_cast<std::size_t>(Role::speedup) + 1;

/// The role of a raw-page header name: an identity field, ignored, or a metric.
Role identity_role(std::string_view name);

/// True when `fields` is ncu's header row (ID, Process ID, ..., Kernel Name, ...).
bool is_header(std::span<const std::string_view> fields);

/// True when the header is the details page's (it has Section Name, Metric Name, Metric Value).
bool is_details_header(std::span<const std::string_view> fields);

/// A value quoted for a one-line message: newlines flattened, long values cut.
std::string shown(std::string_view value);

/// Reads the records that follow a header into a Capture. One per page kind.
class PageReader {
public:
  /// `capture` and `options` must outlive the reader; `capture.source` names the input.
  PageReader(Capture& capture, const ReadOptions& options)
      : m_capture(&capture), m_options(&options) {}
  PageReader(const PageReader&) = delete;
  PageReader& operator=(const PageReader&) = delete;
  PageReader(PageReader&&) = delete;
  PageReader& operator=(PageReader&&) = delete;
  virtual ~PageReader() = default;

  /// The header row (physical line `line`); sets up the columns. False (error() set) to stop.
  virtual bool start(std::size_t line, std::span<const std::string_view> header) = 0;

  /// A record after the header: units row, data row or a repeated header. False (error() set)
  /// to stop.
  virtual bool on_record(std::size_t line, std::span<const std::string_view> fields) = 0;

  /// Called once after the last record when no error occurred and kernels were read.
  virtual void finish() {}

  /// The first error, once a call returned false.
  std::optional<Error>& error() { return m_error; }

protected:
  /// Sets error() to malformed_input "SOURCE: line N: what" and returns false.
  bool fail(std::size_t line, std::string_view what);

  /// Whether ReadOptions keeps a metric column called `name`.
  [[nodiscard]] bool keep(std::string_view name) const {
    return !m_options->keep_column || m_options->keep_column(name);
  }

  /// Whether keep() applies to the details page (ReadOptions::project_details_page).
  [[nodiscard]] bool projects_details_page() const { return m_options->project_details_page; }

  /// A stored cell for a metric field (text interned in the capture's pool).
  Cell make_cell(std::string_view field, int exponent);

  /// Remembers the header and which of its columns are identity fields.
  void set_header(std::span<const std::string_view> header);

  /// Marks header column `index` as identity field `role`.
  void add_identity(std::size_t index, Role role) { m_identity.emplace_back(index, role); }

  /// A header printed again (ncu repeats it, e.g. after a process's output): fine when equal to
  /// the first one, malformed otherwise.
  bool check_repeated_header(std::size_t line, std::span<const std::string_view> fields);

  /// Identity fields shared by both pages. False (with error() set) when ID, grid or block is not
  /// a number.
  bool read_identity(std::size_t line, std::span<const std::string_view> fields,
                     KernelRecord& kernel);

  [[nodiscard]] Capture& capture() { return *m_capture; }
  [[nodiscard]] std::size_t header_size() const { return m_header.size(); }

private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept {
      return std::hash<std::string_view>{}(text);
    }
  };

  std::uint32_t intern(std::string_view text);

  Capture* m_capture;
  const ReadOptions* m_options;
  std::optional<Error> m_error;
  std::vector<std::string> m_header;
  std::vector<std::pair<std::size_t, Role>> m_identity;
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> m_pool_index;
};

} // namespace kprof::csv

// kprof: what one ncu output holds, as read by the CSV reader (src/csv).
//
// A Capture is columnar: the column names and units are stored once, each kernel record holds
// one compact Cell per kept column, and text values live in a pool owned by the Capture. That
// keeps a 20,000-row `--set full` file small enough to read in bounded memory.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kprof {

/// Which ncu page the output came from.
enum class PageKind { raw, details };

/// What a metric value is: missing (`n/a`, empty, `no data`), a number, or text (`PolicySpread`).
/// `nan` in ncu output is a number (NaN).
enum class ValueKind : std::uint8_t { null, number, text };

/// One metric column. Raw page: `name` is the metric name (`dram__bytes_read.sum`) and
/// `section` is empty. Details page: `name` is ncu's label ("Duration") and `section` the
/// section ("GPU Speed Of Light Throughput").
struct Column {
  std::string name;
  std::string unit;
  std::string section;
};

/// One stored value; `text` indexes Capture::text_pool when kind == text.
struct Cell {
  double number = 0.0;
  std::uint32_t text = 0;
  ValueKind kind = ValueKind::null;
};

/// A resolved view of one value; string_views point into the owning Capture.
struct MetricValue {
  ValueKind kind = ValueKind::null;
  double number = 0.0;
  std::string_view text;
  std::string_view unit;
};

/// One NCU rule result from the details page (e.g. SOLBottleneck, OPT, "Memory is more ...").
struct RuleResult {
  std::string section;                     ///< section identifier ("SpeedOfLight")
  std::string name;                        ///< rule name ("SOLBottleneck")
  std::string type;                        ///< "OPT", "WRN", "INF" or "ERR", as printed
  std::string description;                 ///< the rule's text
  std::string speedup_type;                ///< "global", "local" or empty
  std::optional<double> estimated_speedup; ///< percent, when ncu gave one
};

/// One profiled kernel launch (one raw-page row, or one ID's rows on the details page).
struct KernelRecord {
  std::int64_t id = -1; ///< ncu's "ID" column
  std::int64_t process_id = -1;
  std::string process_name;
  std::string name; ///< "Kernel Name", as printed
  /// Innermost NVTX push/pop range of the launch, domain prefix removed: "kprof:cand0".
  /// Empty when ncu printed no NVTX column or the launch was in no range.
  std::string nvtx_range;
  /// Every push/pop range on the stack, outermost first (nested ranges give several).
  std::vector<std::string> nvtx_stack;
  std::array<std::int64_t, 3> grid{0, 0, 0};
  std::array<std::int64_t, 3> block{0, 0, 0};
  int device = -1;
  std::string cc; ///< compute capability as printed ("9.0")
  std::int64_t context = -1;
  std::int64_t stream = -1;
  std::vector<Cell> cells;       ///< one per Capture::columns entry, same order
  std::vector<RuleResult> rules; ///< details page only
};

/// Everything read from one ncu output.
class Capture {
public:
  PageKind page = PageKind::raw;
  std::vector<Column> columns;
  std::vector<KernelRecord> kernels;
  std::vector<std::string> text_pool;
  /// ncu's own lines (`==PROF==`, `==WARNING==`, `==ERROR==`), in order, without trailing newline.
  std::vector<std::string> ncu_lines;
  /// Lines that were neither ncu's nor CSV (the profiled program's stdout, when mixed in).
  std::size_t foreign_lines = 0;
  /// Where the data came from (a path or "<memory>"), for messages.
  std::string source;

  /// Index of the column named `name` (raw page: metric name; details page: label, or
  /// "Section/Label" when a label is not unique). nullopt when absent.
  [[nodiscard]] std::optional<std::size_t> column_index(std::string_view name) const;

  /// The value of column `column` for `kernel`.
  [[nodiscard]] MetricValue value(const KernelRecord& kernel, std::size_t column) const;

  /// The number stored for metric `name`, or nullopt when the column is absent, null or text.
  [[nodiscard]] std::optional<double> number(const KernelRecord& kernel,
                                             std::string_view name) const;

  /// Rebuilds the name index; the reader calls it once columns are final.
  void index_columns();

  /// The GPU's display name (device__attribute_display_name) when the capture has it.
  [[nodiscard]] std::optional<std::string> device_name() const;

  /// The replay passes ncu needed for `kernel` (profiler__replayer_passes), when present.
  [[nodiscard]] std::optional<double> replay_passes(const KernelRecord& kernel) const;

  /// The raw-page columns the two accessors above read (device__attribute_display_name,
  /// profiler__replayer_passes), for projections that must keep them.
  [[nodiscard]] static std::span<const std::string_view> run_fact_columns();

private:
  std::unordered_map<std::string, std::size_t> m_index;
};

} // namespace kprof

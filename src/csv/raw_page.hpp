// kprof (private to src/csv): the raw page (`ncu --csv --page raw`), one row per launch.
//
// The header decides everything once: each column gets a role (an identity field, a metric, or
// ignored) and, for metrics, the index of its Capture column or nothing when
// ReadOptions::keep_column refuses it. Each data row then visits only the planned columns, so a
// projection to 40 of 2,240 columns parses 40 values per row, and memory holds only kept cells.
// The units row under the header gives each kept column its unit, normalised to base units.
#pragma once

#include "csv/page_reader.hpp"

namespace kprof::csv {

class RawPageReader final : public PageReader {
public:
  using PageReader::PageReader;

  bool start(std::size_t line, std::span<const std::string_view> header) override;
  bool on_record(std::size_t line, std::span<const std::string_view> fields) override;

private:
  /// A kept metric column: its position in the row, its Capture column, and the power of ten
  /// from the printed unit to the base unit.
  struct MetricColumn {
    std::size_t index = 0;
    std::size_t column = 0;
    int exponent = 0;
  };

  bool read_units(std::size_t line, std::span<const std::string_view> fields);
  bool read_row(std::size_t line, std::span<const std::string_view> fields);

  std::vector<MetricColumn> m_metrics;
  bool m_expect_units = true;
};

} // namespace kprof::csv

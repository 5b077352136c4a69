// kprof (private to src/csv): the details page (`ncu --csv --page details`), long-form.
//
// One row per (launch, section, metric) and one per rule result, rows cut short after "Metric
// Value". A launch's rows share its ID; they become one KernelRecord. Columns are discovered as
// rows arrive, keyed by (section, label): ReadOptions::keep_column is asked with the label and,
// when that is refused, with "Section/Label". Labels that occur in several sections are renamed
// "Section/Label" at the end, so every column name is unique.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "csv/page_reader.hpp"

namespace kprof::csv {

class DetailsPageReader final : public PageReader {
public:
  using PageReader::PageReader;

  bool start(std::size_t line, std::span<const std::string_view> header) override;
  bool on_record(std::size_t line, std::span<const std::string_view> fields) override;
  void finish() override;

private:
  [[nodiscard]] std::string_view field(std::span<const std::string_view> fields, Role role) const;
  bool read_row(std::size_t line, std::span<const std::string_view> fields);
  std::size_t column_of(std::string_view section, std::string_view label, std::string unit);

  std::array<std::size_t, k_role_count> m_index{[] {
    std::array<std::size_t, k_role_count> none{};
    none.fill(k_none);
    return none;
  }()};
  std::size_t m_min_fields = 0;
  std::unordered_map<std::int64_t, std::size_t> m_kernel_by_id;
  std::unordered_map<std::string, std::size_t> m_columns; ///< "section\x1flabel" -> column
  std::unordered_map<std::string, std::size_t> m_label_sections;
};

} // namespace kprof::csv

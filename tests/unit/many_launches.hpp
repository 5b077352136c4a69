// A capture of many launches for the tests of what must not grow with them (kprof mcp's report,
// the history's row): the data row of a recorded capture repeated.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/files.hpp"

namespace kprof::testing {

/// Writes `file`: recorded curated_nvtx_vadd.csv (ncu 2025.3.1, H200) with its data row repeated
/// `launches` times, IDs 0..launches-1 (about 2.4 KB of CSV and 7 KB of report.json a launch).
inline void write_many_launches(const std::filesystem::path& file, int launches) {
  const Result<std::string> text = read_file(std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" /
                                             "2025.3.1" / "curated_nvtx_vadd.csv");
  KPROF_ASSERT(text.ok());
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text->size()) {
    const std::size_t end = text->find('\n', start);
    lines.push_back(text->substr(start, end - start));
    start = end == std::string::npos ? text->size() : end + 1;
  }
  const auto row = std::find_if(lines.begin(), lines.end(),
                                [](const std::string& line) { return line.starts_with("\"0\","); });
  KPROF_ASSERT(row != lines.end());
  std::string out;
  for (auto line = lines.begin(); line != row; ++line) {
    out += *line + "\n";
  }
  const std::string rest = row->substr(3); // after "0"
  for (int id = 0; id < launches; ++id) {
    out += "\"" + std::to_string(id) + "\"" + rest + "\n";
  }
  KPROF_ASSERT(write_file_atomic(file, out).ok());
}

} // namespace kprof::testing

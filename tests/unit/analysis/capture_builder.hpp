// Test helper: Captures built by hand, as the CSV reader would fill them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/capture.hpp"
#include "kprof/ncu_output.hpp"

namespace kprof::test {

/// One launch: its name, NVTX range, and values by column name (numbers or text).
struct Launch {
  std::string name;
  std::map<std::string, double> numbers;
  std::string nvtx_range;
  std::map<std::string, std::string> texts;
};

/// A capture with `columns`, one record per launch (cells left null where a launch has no value).
inline Capture make_capture(PageKind page, std::vector<Column> columns,
                            const std::vector<Launch>& launches) {
  Capture capture;
  capture.page = page;
  capture.columns = std::move(columns);
  capture.source = "<hand-built>";
  std::int64_t id = 0;
  for (const Launch& launch : launches) {
    KernelRecord record;
    record.id = id++;
    record.name = launch.name;
    record.nvtx_range = launch.nvtx_range;
    if (!launch.nvtx_range.empty()) {
      record.nvtx_stack = {launch.nvtx_range};
    }
    record.cells.resize(capture.columns.size());
    for (std::size_t column = 0; column < capture.columns.size(); ++column) {
      const std::string& name = capture.columns[column].name;
      if (auto number = launch.numbers.find(name); number != launch.numbers.end()) {
        record.cells[column].kind = ValueKind::number;
        record.cells[column].number = number->second;
      } else if (auto text = launch.texts.find(name); text != launch.texts.end()) {
        record.cells[column].kind = ValueKind::text;
        record.cells[column].text = static_cast<std::uint32_t>(capture.text_pool.size());
        capture.text_pool.push_back(text->second);
      }
    }
    capture.kernels.push_back(std::move(record));
  }
  capture.index_columns();
  return capture;
}

/// A raw-page capture whose columns are every metric any launch names (base units), plus
/// device__attribute_display_name = `device` when `device` is not empty.
inline Capture make_raw_capture(std::vector<Launch> launches,
                                const std::string& device = "NVIDIA H200") {
  std::vector<Column> columns;
  auto add_column = [&columns](const std::string& name) {
    for (const Column& column : columns) {
      if (column.name == name) {
        return;
      }
    }
    columns.push_back({name, "", ""});
  };
  for (Launch& launch : launches) {
    if (!device.empty()) {
      launch.texts["device__attribute_display_name"] = device;
    }
    for (const auto& [name, value] : launch.numbers) {
      add_column(name);
    }
    for (const auto& [name, value] : launch.texts) {
      add_column(name);
    }
  }
  return make_capture(PageKind::raw, std::move(columns), launches);
}

/// The recorded H200 output `file` (tests/fixtures/ncu/2025.3.1/), read with the real reader.
inline std::filesystem::path fixture(const std::string& file) {
  return std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / file;
}

inline Capture read_fixture(const std::string& file) {
  auto capture = read_ncu_csv_file(fixture(file));
  if (!capture) {
    ADD_FAILURE() << "reading " << file << ": " << capture.error().message;
    return {};
  }
  return std::move(capture).value();
}

/// Index of the first launch named `name` (fails the test when there is none).
inline std::size_t launch_named(const Capture& capture, const std::string& name) {
  for (std::size_t i = 0; i < capture.kernels.size(); ++i) {
    if (capture.kernels[i].name == name) {
      return i;
    }
  }
  ADD_FAILURE() << "no launch named " << name;
  return 0;
}

} // namespace kprof::test

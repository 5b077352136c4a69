// kprof bench: writes a large raw-page `--set full` CSV by replicating a recorded data row.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "csv/csv_tokenizer.hpp"

namespace kprof::bench {

/// The recorded `--set full` output the big file is made of.
inline std::filesystem::path default_template() {
  return std::filesystem::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / "set_full_vadd.csv";
}

/// KernelAgent's 29 metrics as kprof's default set lists them (18 of them are in `--set full`).
inline const std::vector<std::string>& projection_29() {
  static const std::vector<std::string> k_names{
      "gpu__time_duration.sum",
      "sm__cycles_active.avg",
      "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "dram__bytes.sum.per_second",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
      "l1tex__t_sector_hit_rate.pct",
      "l1tex__throughput.avg.pct_of_peak_sustained_active",
      "lts__t_sector_hit_rate.pct",
      "lts__throughput.avg.pct_of_peak_sustained_active",
      "sm__inst_executed.sum",
      "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "launch__registers_per_thread",
      "launch__shared_mem_per_block_allocated",
      "launch__occupancy_limit_blocks",
      "launch__occupancy_limit_registers",
      "launch__occupancy_limit_shared_mem",
      "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
      "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct",
      "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct",
      "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct",
      "smsp__warp_issue_stalled_barrier_per_warp_active.pct",
      "smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct",
  };
  return k_names;
}

namespace detail {

class RowCollector final : public csv::LineSink {
public:
  bool on_record(std::size_t /*line*/, std::span<const std::string_view> fields) override {
    records.emplace_back(fields.begin(), fields.end());
    return true;
  }
  bool on_text(std::size_t /*line*/, std::string_view text) override {
    if (records.empty() && text.starts_with("==PROF==")) {
      preamble.emplace_back(text);
    }
    return true;
  }
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> preamble;
};

inline void append_quoted(std::string& out, std::string_view field) {
  out += '"';
  for (const char c : field) {
    if (c == '"') {
      out += '"';
    }
    out += c;
  }
  out += '"';
}

inline void append_row(std::string& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    append_quoted(out, fields[i]);
  }
  out += '\n';
}

} // namespace detail

/// Writes `rows` kernel rows made from the template's data row (IDs 0..rows-1, five kernel
/// names, NVTX ranges kprof:cand0..3) and sets `bytes` to the file size. Returns an empty string
/// on success, else what went wrong.
inline std::string write_big_csv(const std::filesystem::path& out_path, std::size_t rows,
                                 const std::filesystem::path& template_path, std::size_t& bytes) {
  std::ifstream in(template_path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in && !in.eof()) {
    return "cannot read " + template_path.string();
  }
  detail::RowCollector collector;
  csv::CsvTokenizer tokenizer(collector);
  if (!tokenizer.feed(text) || !tokenizer.finish() || collector.records.size() < 3) {
    return "the template is not a raw-page CSV with a data row";
  }
  const std::vector<std::string>& header = collector.records[0];
  std::vector<std::string> row = collector.records[2];
  std::size_t name_at = 0;
  std::size_t nvtx_at = header.size();
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "Kernel Name") {
      name_at = i;
    } else if (header[i].find("Push/Pop_Range") != std::string::npos) {
      nvtx_at = i;
    }
  }
  if (name_at == 0 || nvtx_at >= name_at) {
    return "the template lacks the Kernel Name or NVTX column";
  }
  // Everything after the kernel name is the same in every row: quote it once.
  std::string tail;
  for (std::size_t i = name_at + 1; i < row.size(); ++i) {
    tail += ',';
    detail::append_quoted(tail, row[i]);
  }
  tail += '\n';

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(out_path.c_str(), "wb"),
                                                       &std::fclose);
  if (!file) {
    return "cannot create " + out_path.string();
  }
  std::string chunk;
  for (const std::string& line : collector.preamble) {
    chunk += line;
    chunk += '\n';
  }
  detail::append_row(chunk, header);
  detail::append_row(chunk, collector.records[1]);
  static constexpr std::string_view k_names[] = {"add_kernel", "partial_sum_kernel", "scale_kernel",
                                                 "softmax_kernel", "matmul_kernel"};
  bytes = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    row[0] = std::to_string(r);
    row[nvtx_at] = "1311  \"<default domain>:kprof:cand" + std::to_string(r % 4) +
                   ":none:none:none:none:none:none\" ";
    for (std::size_t i = 0; i < name_at; ++i) {
      detail::append_quoted(chunk, row[i]);
      chunk += ',';
    }
    detail::append_quoted(chunk, k_names[r % 5]);
    chunk += tail;
    if (chunk.size() > (std::size_t{1} << 20)) {
      if (std::fwrite(chunk.data(), 1, chunk.size(), file.get()) != chunk.size()) {
        return "cannot write " + out_path.string();
      }
      bytes += chunk.size();
      chunk.clear();
    }
  }
  chunk += "==PROF== Disconnected from process 1311\n";
  if (std::fwrite(chunk.data(), 1, chunk.size(), file.get()) != chunk.size() ||
      std::fclose(file.release()) != 0) {
    return "cannot write " + out_path.string();
  }
  bytes += chunk.size();
  return {};
}

} // namespace kprof::bench

// The report's hot lines: the source page's blocks matched to the report's launches, Triton's
// inlined library lines folded back with the PTX of the compiled kernels (docs/hot-lines.md).
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/report.hpp"
#include "kprof/report_view.hpp"
#include "report/report_parts.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

/// The PTX of each (user file, kernel name), looked up once per report.
class PtxLookup {
public:
  explicit PtxLookup(fs::path cache) : m_cache(std::move(cache)) {}

  const std::vector<std::string>& ptx_of(const std::string& user_file, const std::string& kernel) {
    auto key = std::make_pair(user_file, kernel);
    if (auto found = m_found.find(key); found != m_found.end()) {
      return found->second;
    }
    std::error_code ec;
    auto not_before = fs::last_write_time(user_file, ec);
    if (ec) {
      // The kernel file is gone or elsewhere (a capture from another machine): no cache entry
      // can be shown to be of the source the page shows.
      return m_found.emplace(std::move(key), std::vector<std::string>{}).first->second;
    }
    return m_found
        .emplace(std::move(key), find_triton_ptx(m_cache, {kernel}, user_file, not_before))
        .first->second;
  }

  /// The lines of `user_file` as it is on disk ([0] is line 1), read once; empty when it cannot
  /// be read. Only used where PTX was found for it, which shows that the file has not changed
  /// since Triton compiled it.
  const std::vector<std::string>& lines_of(const std::string& user_file) {
    if (auto found = m_lines.find(user_file); found != m_lines.end()) {
      return found->second;
    }
    std::vector<std::string> lines;
    if (auto text = read_file(user_file)) {
      std::size_t start = 0;
      while (start < text->size()) {
        const auto end = text->find('\n', start);
        lines.push_back(text->substr(start, end == std::string::npos ? end : end - start));
        start = end == std::string::npos ? text->size() : end + 1;
      }
    }
    return m_lines.emplace(user_file, std::move(lines)).first->second;
  }

private:
  fs::path m_cache;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> m_found;
  std::map<std::string, std::vector<std::string>> m_lines;
};

KernelHotLines fold_launch(const std::vector<SourceBlock>& blocks, const std::string& kernel,
                           PtxLookup& lookup, const HotLineOptions& options) {
  InlineMap inline_map;
  std::set<std::string> user_files;
  for (const SourceBlock& block : blocks) {
    if (is_triton_library_file(block.file)) {
      continue;
    }
    user_files.insert(block.file);
    for (const SourceLine& line : block.lines) {
      inline_map.add_user_source(block.file, line.line, line.text);
    }
  }
  std::map<std::string, const std::vector<std::string>*> file_lines;
  for (const std::string& file : user_files) {
    const std::vector<std::string>& ptx = lookup.ptx_of(file, kernel);
    for (const std::string& text : ptx) {
      inline_map.add_ptx(text);
    }
    if (!ptx.empty()) {
      // A line whose samples all come from inlined library code has no text on the page; the
      // file, unchanged since the compile, names the callee and gives the text.
      const std::vector<std::string>& lines = lookup.lines_of(file);
      file_lines[file] = &lines;
      for (std::size_t i = 0; i < lines.size(); ++i) {
        inline_map.add_user_source(file, static_cast<int>(i + 1), lines[i]);
      }
    }
  }
  KernelHotLines hot = fold_hot_lines(blocks, inline_map, options);
  for (HotLine& line : hot.lines) {
    const auto found = file_lines.find(line.file);
    if (line.text.empty() && found != file_lines.end() && line.line >= 1 &&
        static_cast<std::size_t>(line.line) <= found->second->size()) {
      line.text = (*found->second)[static_cast<std::size_t>(line.line - 1)];
    }
  }
  return hot;
}

/// Every user line with samples, in file and line order, for the HTML source view.
Json heat_json(const KernelHotLines& hot) {
  std::vector<const HotLine*> lines;
  lines.reserve(hot.lines.size());
  for (const HotLine& line : hot.lines) {
    lines.push_back(&line);
  }
  std::sort(lines.begin(), lines.end(), [](const HotLine* a, const HotLine* b) {
    return std::tie(a->file, a->line) < std::tie(b->file, b->line);
  });
  Json heat = Json::array();
  for (const HotLine* line : lines) {
    heat.push_back({{"file", line->file},
                    {"line", line->line},
                    {"source", line->text},
                    {"share", line->share}});
  }
  return heat;
}

} // namespace

Result<void> attach_hot_lines(Json& report, const Capture& capture, const SourcePage& page,
                              const fs::path& triton_cache, const HotLineOptions& options) {
  std::vector<std::string> names;
  names.reserve(capture.kernels.size());
  std::map<std::int64_t, std::size_t> launch_of_id;
  for (std::size_t i = 0; i < capture.kernels.size(); ++i) {
    names.push_back(capture.kernels[i].name);
    launch_of_id.emplace(capture.kernels[i].id, i);
  }
  auto launches = split_source_by_launch(page, names);
  if (!launches) {
    return std::move(launches).error();
  }
  Json* kernels = report.contains("kernels") ? &report["kernels"] : nullptr;
  if (kernels == nullptr || !kernels->is_array()) {
    return {};
  }
  PtxLookup lookup(triton_cache);
  // The diagnosis is written again with what the page adds (the lines, the instructions).
  std::string metric_set;
  const Json* metadata = json_read::member(report, "metadata");
  if (metadata != nullptr) {
    if (const Json* set = json_read::member(*metadata, "metric_set")) {
      metric_set = json_read::text_at(*set, "name");
    }
  }
  const report_detail::DiagnosisContext context(capture, gpu_spec_of(capture), metric_set,
                                                metadata != nullptr ? *metadata : Json::object());
  for (Json& entry : *kernels) {
    const Json* id = entry.contains("id") ? &entry["id"] : nullptr;
    if (id == nullptr || !id->is_number_integer()) {
      continue;
    }
    const auto found = launch_of_id.find(id->get<std::int64_t>());
    if (found == launch_of_id.end() || found->second >= launches->size()) {
      continue;
    }
    const std::vector<SourceBlock>& blocks = (*launches)[found->second];
    const KernelRecord& launch = capture.kernels[found->second];
    const KernelHotLines hot = fold_launch(blocks, launch.name, lookup, options);
    report_detail::DiagnosisMembers diagnosis =
        report_detail::diagnosis_members(context, launch, &blocks, &hot);
    entry["diagnosis"] = std::move(diagnosis.causes);
    entry["diagnosis_notes"] = std::move(diagnosis.notes);
    if (blocks.empty()) {
      continue; // no line info: the diagnosis says so; no hot lines
    }
    entry["hot_lines"] = hot_lines_to_json(hot, options);
    entry["hot_lines"]["heat"] = heat_json(hot);
  }
  return {};
}

} // namespace kprof

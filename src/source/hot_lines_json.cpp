// The `hot_lines` member of a report's kernel entry, and the per-line diff of two of them.
// Key order is fixed here (ordered_json), and every number goes through number_json so that an
// integral count prints as an integer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "kprof/hot_lines.hpp"
#include "kprof/numbers.hpp"
#include "kprof/strings.hpp"

namespace kprof {
namespace {

constexpr int k_share_digits = 4;

Json share_json(double part, double whole) {
  return number_json(whole > 0 ? round_to(part / whole, k_share_digits) : 0.0);
}

Json text_or_null(const std::string& text) {
  return text.empty() ? Json(nullptr) : Json(text);
}

Json stalls_json(const LineCounters& counters, std::size_t top) {
  auto stalls = counters.stalls;
  std::stable_sort(stalls.begin(), stalls.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  Json out = Json::array();
  for (std::size_t i = 0; i < stalls.size() && i < top; ++i) {
    Json stall = Json::object();
    stall["reason"] = stalls[i].first;
    stall["samples"] = number_json(stalls[i].second);
    stall["share"] = share_json(stalls[i].second, counters.samples);
    out.push_back(std::move(stall));
  }
  return out;
}

Json memory_json(const LineCounters& counters) {
  Json memory = Json::object();
  memory["l2_sectors"] = number_json(counters.l2_sectors);
  memory["l2_sectors_excessive"] = number_json(counters.l2_sectors_excessive);
  memory["shared_wavefronts_excessive"] = number_json(counters.shared_wavefronts_excessive);
  memory["access_size_bits"] = number_json(counters.access_size_bits);
  return memory;
}

Json parts_json(const std::vector<InlinedPart>& parts) {
  Json out = Json::array();
  for (const InlinedPart& part : parts) {
    Json entry = Json::object();
    entry["callee"] = text_or_null(part.callee);
    entry["file"] = part.file;
    entry["line"] = part.line;
    entry["source"] = part.text;
    entry["samples"] = number_json(part.samples);
    out.push_back(std::move(entry));
  }
  return out;
}

Json line_json(const HotLine& line, const HotLineOptions& options) {
  Json out = Json::object();
  out["file"] = line.file;
  out["line"] = line.line;
  out["source"] = line.text;
  out["samples"] = number_json(line.counters.samples);
  out["share"] = number_json(round_to(line.share, k_share_digits));
  out["few_samples"] = line.few_samples;
  out["instructions_executed"] = number_json(line.counters.instructions_executed);
  out["stalls"] = stalls_json(line.counters, options.top_stalls);
  out["memory"] = memory_json(line.counters);
  out["inlined"] = parts_json(line.inlined);
  return out;
}

// --- diff ------------------------------------------------------------------------------------

/// Whitespace runs collapsed to one space, ends trimmed.
std::string normalised(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : trim(text)) {
    const bool blank = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (blank && !space) {
      out += ' ';
    } else if (!blank) {
      out += c;
    }
    space = blank;
  }
  return out;
}

double number_or_zero(const Json& entry, const char* key) {
  const auto found = entry.find(key);
  return found != entry.end() && found->is_number() ? found->get<double>() : 0.0;
}

/// One line of one side of the diff.
struct DiffLine {
  std::string source; ///< as printed
  std::string key;    ///< normalised
  double line = 0;
  double share = 0;
  double samples = 0;
  bool matched = false;
};

std::vector<DiffLine> diff_lines(const Json& hot) {
  std::vector<DiffLine> lines;
  if (!hot.is_object() || !hot.contains("lines") || !hot["lines"].is_array()) {
    return lines;
  }
  for (const Json& entry : hot["lines"]) {
    if (!entry.is_object() || !entry.contains("source") || !entry["source"].is_string()) {
      continue;
    }
    DiffLine line;
    line.source = entry["source"].get<std::string>();
    line.key = normalised(line.source);
    line.line = number_or_zero(entry, "line");
    line.share = number_or_zero(entry, "share");
    line.samples = number_or_zero(entry, "samples");
    lines.push_back(std::move(line));
  }
  return lines;
}

Json side_json(const DiffLine* line) {
  if (line == nullptr) {
    return Json(nullptr);
  }
  Json side = Json::object();
  side["line"] = number_json(line->line);
  side["share"] = number_json(line->share);
  side["samples"] = number_json(line->samples);
  return side;
}

Json diff_row(const DiffLine* before, const DiffLine* after) {
  Json row = Json::object();
  row["source"] = after != nullptr ? after->source : before->source;
  row["before"] = side_json(before);
  row["after"] = side_json(after);
  return row;
}

} // namespace

Json hot_lines_to_json(const KernelHotLines& hot, const HotLineOptions& options) {
  Json out = Json::object();
  out["samples"] = number_json(hot.samples);
  out["few_samples"] = hot.few_samples;
  Json lines = Json::array();
  for (std::size_t i = 0; i < hot.lines.size() && i < options.top; ++i) {
    lines.push_back(line_json(hot.lines[i], options));
  }
  out["lines"] = std::move(lines);
  out["unattributed"] = parts_json(hot.unattributed);
  out["notes"] = hot.notes;
  return out;
}

Json diff_hot_lines(const Json& before, const Json& after) {
  std::vector<DiffLine> old_lines = diff_lines(before);
  std::vector<DiffLine> new_lines = diff_lines(after);
  std::vector<std::pair<double, Json>> rows; // the larger share, the row
  for (const DiffLine& old_line : old_lines) {
    auto match = std::find_if(new_lines.begin(), new_lines.end(), [&](const DiffLine& line) {
      return !line.matched && line.key == old_line.key;
    });
    const DiffLine* new_line = match != new_lines.end() ? &*match : nullptr;
    if (match != new_lines.end()) {
      match->matched = true;
    }
    const double share = std::max(old_line.share, new_line != nullptr ? new_line->share : 0.0);
    rows.emplace_back(share, diff_row(&old_line, new_line));
  }
  for (const DiffLine& new_line : new_lines) {
    if (!new_line.matched) {
      rows.emplace_back(new_line.share, diff_row(nullptr, &new_line));
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  Json out = Json::array();
  for (auto& row : rows) {
    out.push_back(std::move(row.second));
  }
  return out;
}

} // namespace kprof

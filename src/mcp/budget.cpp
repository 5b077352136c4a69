// The prompt text of a report within a token budget (include/kprof/mcp.hpp).
//
// The text is always the prompt sink's rendering of a document: when the whole document does not
// fit, a copy loses what an optimizer needs least, one step at a time, and is rendered again. So
// whatever is left reads exactly as `--format prompt` would print it, and a diagnosis or section
// that a later kprof adds to the prompt survives the cuts it does not know about. The order:
// NCU findings beyond three per kernel; metric groups beyond three, then beyond one; findings
// beyond one and hot lines beyond three; every metric group, finding and hot line note and hot
// lines beyond the top one; then whole kernels, the shortest first; last, lines from the end.
// The copy is the document's outline (report_outline: one launch per kernel name, what the
// prompt draws), so a report of 150,000 launches is trimmed in the memory of a few.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kprof/mcp.hpp"
#include "kprof/report.hpp"
#include "kprof/report_view.hpp"

namespace kprof {
namespace {

constexpr std::size_t k_bytes_per_token = 3;
constexpr std::size_t k_min_budget = 50;

/// Removes the elements of array `array` for which `drop` is true.
void erase_if(Json& array, const std::function<bool(const Json&)>& drop) {
  if (!array.is_array()) {
    return;
  }
  Json kept = Json::array();
  for (Json& item : array) {
    if (!drop(item)) {
      kept.push_back(std::move(item));
    }
  }
  array = std::move(kept);
}

bool is_duration_key(std::string_view key) {
  return key == "Duration" || key.ends_with("/Duration") || key == "gpu__time_duration.sum";
}

/// Keeps the first `groups` value groups the prompt shows per kernel: metric-set groups on a
/// raw page (metadata.metric_set.metrics), ncu sections on a details page (kernels[].metrics,
/// the duration kept, which picks each kernel's longest launch).
void keep_value_groups(Json& doc, std::size_t groups, bool details_page) {
  if (!details_page) {
    Json* metric_set = doc.contains("metadata") && doc["metadata"].is_object() &&
                               doc["metadata"].contains("metric_set") &&
                               doc["metadata"]["metric_set"].is_object()
                           ? &doc["metadata"]["metric_set"]
                           : nullptr;
    if (metric_set == nullptr || !metric_set->contains("metrics")) {
      return;
    }
    std::vector<std::string> seen;
    erase_if((*metric_set)["metrics"], [&](const Json& metric) {
      std::string group = json_read::text_at(metric, "group", "Other");
      if (group.empty()) {
        group = "Other";
      }
      if (std::find(seen.begin(), seen.end(), group) == seen.end()) {
        seen.push_back(group);
      }
      return std::find(seen.begin(), seen.end(), group) - seen.begin() >=
             static_cast<std::ptrdiff_t>(groups);
    });
    return;
  }
  if (!doc.contains("kernels") || !doc["kernels"].is_array()) {
    return;
  }
  for (Json& kernel : doc["kernels"]) {
    if (!kernel.is_object() || !kernel.contains("metrics") || !kernel["metrics"].is_object()) {
      continue;
    }
    std::vector<std::string> seen;
    Json kept = Json::object();
    for (const auto& [key, entry] : kernel["metrics"].items()) {
      const std::string section = json_read::text_at(entry, "section");
      if (std::find(seen.begin(), seen.end(), section) == seen.end()) {
        seen.push_back(section);
      }
      const auto position = std::find(seen.begin(), seen.end(), section) - seen.begin();
      if (position < static_cast<std::ptrdiff_t>(groups) || is_duration_key(key)) {
        kept[key] = entry;
      }
    }
    kernel["metrics"] = std::move(kept);
  }
}

/// At most `lines` hot lines per kernel; without `notes`, no unattributed lines and notes.
void keep_hot_lines(Json& doc, std::size_t lines, bool notes) {
  if (!doc.contains("kernels") || !doc["kernels"].is_array()) {
    return;
  }
  for (Json& kernel : doc["kernels"]) {
    if (!kernel.is_object() || !kernel.contains("hot_lines") || !kernel["hot_lines"].is_object()) {
      continue;
    }
    Json& hot = kernel["hot_lines"];
    if (hot.contains("lines") && hot["lines"].is_array() && hot["lines"].size() > lines) {
      Json kept = Json::array();
      for (std::size_t i = 0; i < lines; ++i) {
        kept.push_back(std::move(hot["lines"][i]));
      }
      hot["lines"] = std::move(kept);
    }
    if (!notes) {
      hot["unattributed"] = Json::array();
      hot["notes"] = Json::array();
    }
  }
}

/// Removes kernel `name` from kernels[], summary.kernels and roofline.
void drop_kernel(Json& doc, const std::string& name) {
  const auto named = [&](const Json& entry) { return json_read::text_at(entry, "name") == name; };
  if (doc.contains("kernels")) {
    erase_if(doc["kernels"], named);
  }
  if (doc.contains("summary") && doc["summary"].is_object() && doc["summary"].contains("kernels")) {
    erase_if(doc["summary"]["kernels"], named);
  }
  if (doc.contains("roofline") && doc["roofline"].is_object()) {
    doc["roofline"].erase(name);
  }
}

/// `text` cut at a line end so that it and `tail` fit `bytes`.
std::string cut_lines(const std::string& text, std::size_t bytes) {
  if (text.size() <= bytes) {
    return text;
  }
  const std::size_t end = text.rfind('\n', bytes == 0 ? 0 : bytes - 1);
  if (end == std::string::npos) {
    // One long line: cut it at a UTF-8 character boundary.
    std::size_t cut = bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
      --cut;
    }
    return text.substr(0, cut) + "\n";
  }
  return text.substr(0, end + 1);
}

class Trimmer {
public:
  Trimmer(const Json& report, std::size_t budget, std::string_view more)
      : m_original(report), m_budget(std::max(budget, k_min_budget)), m_more(more) {}

  std::string run() {
    const std::string whole = render(Format::prompt, m_original, m_options);
    if (fits(whole, "")) {
      return finish(whole, "");
    }
    m_doc = report_outline(m_original);
    const bool details = ReportView(m_doc).details_page();
    // Each step cuts more than the one before; its words say everything left out so far.
    const std::vector<std::function<std::string()>> steps{
        [&] {
          m_options.max_rules = 3;
          return std::string("NCU findings beyond 3 per kernel");
        },
        [&] {
          keep_value_groups(m_doc, 3, details);
          return fmt::format("NCU findings beyond 3 per kernel, {} beyond 3", groups_word(details));
        },
        [&] {
          keep_value_groups(m_doc, 1, details);
          return fmt::format("NCU findings beyond 3 per kernel, {} beyond 1", groups_word(details));
        },
        [&] {
          m_options.max_rules = 1;
          keep_hot_lines(m_doc, 3, true);
          return fmt::format("NCU findings beyond 1 per kernel, {} beyond 1, hot lines beyond 3",
                             groups_word(details));
        },
        [&] {
          m_options.max_rules = 0;
          keep_value_groups(m_doc, 0, details);
          keep_hot_lines(m_doc, 1, false);
          return fmt::format("NCU findings, {}, hot lines beyond the top one",
                             groups_word(details));
        },
    };
    std::string text;
    for (const auto& step : steps) {
      m_cut = step();
      text = render(Format::prompt, m_doc, m_options);
      if (fits(text, m_cut)) {
        return finish(text, m_cut);
      }
    }
    if (std::optional<std::string> fitted = drop_kernels(text)) {
      return std::move(*fitted);
    }
    m_cut += "; the last lines";
    const std::string tail = closing(m_cut);
    const std::size_t room = m_budget * k_bytes_per_token;
    return finish(cut_lines(text, room > tail.size() ? room - tail.size() : 0), m_cut);
  }

private:
  static std::string_view groups_word(bool details) {
    return details ? "ncu sections" : "metric groups";
  }

  /// Drops the shortest kernels one at a time (the dominant one stays); the text once it fits.
  std::optional<std::string> drop_kernels(std::string& text) {
    std::vector<ReportKernel> kernels = ReportView(m_doc).kernels_by_duration();
    std::size_t dropped = 0;
    double dropped_share = 0;
    const std::string before = m_cut;
    while (kernels.size() > 1) {
      const ReportKernel last = kernels.back();
      drop_kernel(m_doc, last.name);
      ++dropped;
      dropped_share += last.share.value_or(0);
      m_cut = fmt::format("{}; the {} shortest kernel{} ({:.0f}% of the GPU time)", before, dropped,
                          dropped == 1 ? "" : "s", dropped_share * 100);
      text = render(Format::prompt, m_doc, m_options);
      if (fits(text, m_cut)) {
        return finish(text, m_cut);
      }
      kernels = ReportView(m_doc).kernels_by_duration();
    }
    return std::nullopt;
  }

  [[nodiscard]] std::string closing(const std::string& cut) const {
    std::string out;
    if (!cut.empty()) {
      out += fmt::format("(cut to the token budget of {}; left out: {})\n", m_budget, cut);
    }
    if (!m_more.empty()) {
      out += fmt::format("Whole report: {}\n", m_more);
    }
    return out;
  }

  [[nodiscard]] bool fits(const std::string& text, const std::string& cut) const {
    return estimate_tokens(text) + estimate_tokens(closing(cut)) <= m_budget;
  }

  [[nodiscard]] std::string finish(const std::string& text, const std::string& cut) const {
    // The closing lines themselves may not fit a tiny budget: never exceed it.
    return cut_lines(text + closing(cut), m_budget * k_bytes_per_token);
  }

  const Json& m_original;
  std::size_t m_budget;
  std::string m_more;
  Json m_doc;
  RenderOptions m_options;
  std::string m_cut; ///< what is left out so far, in words
};

} // namespace

std::size_t estimate_tokens(std::string_view text) {
  return (text.size() + k_bytes_per_token - 1) / k_bytes_per_token;
}

std::string budgeted_report_text(const Json& report, std::size_t budget, std::string_view more) {
  return Trimmer(report, budget, more).run();
}

} // namespace kprof

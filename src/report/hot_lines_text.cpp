// Hot lines as text, for the prompt and the table: read from a kernel entry's `hot_lines`
// member (docs/hot-lines.md) through the document's one read rule (report_view).
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

/// ncu's stall reason keys (`stall_long_sb` without the prefix) in the words of ncu's docs.
constexpr std::array<std::pair<std::string_view, std::string_view>, 18> k_stall_words{{
    {"barrier", "barrier"},
    {"branch_resolving", "branch resolving"},
    {"dispatch", "dispatch stall"},
    {"drain", "drain"},
    {"imc", "constant cache miss"},
    {"lg", "LG throttle"},
    {"long_sb", "long scoreboard"},
    {"math", "math pipe throttle"},
    {"membar", "memory barrier"},
    {"mio", "MIO throttle"},
    {"misc", "misc"},
    {"no_inst", "no instruction"},
    {"not_selected", "not selected"},
    {"selected", "selected"},
    {"short_sb", "short scoreboard"},
    {"sleep", "sleeping"},
    {"tex", "TEX throttle"},
    {"wait", "wait"},
}};

std::string file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string count_text(std::optional<double> count) {
  return count ? format_number(*count) : std::string("?");
}

std::string where_text(const Json& entry) {
  const std::optional<double> line = number_at(entry, "line");
  return fmt::format("{}:{}", file_name(text_at(entry, "file")),
                     line ? format_number(*line) : std::string("?"));
}

/// "tl.max, tl.sum" of the library lines folded into a line.
std::string inlined_text(const Json& line) {
  const Json* inlined = member(line, "inlined");
  if (inlined == nullptr || !inlined->is_array()) {
    return {};
  }
  std::vector<std::string> names;
  for (const Json& part : *inlined) {
    std::string name = text_at(part, "callee");
    if (name.empty()) {
      name = where_text(part);
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  return names.empty() ? std::string() : fmt::format("{}", fmt::join(names, ", "));
}

std::string memory_text(const Json& line) {
  const Json* memory = member(line, "memory");
  if (memory == nullptr) {
    return {};
  }
  std::vector<std::string> facts;
  const std::optional<double> excessive = number_at(*memory, "l2_sectors_excessive");
  const std::optional<double> sectors = number_at(*memory, "l2_sectors");
  if (excessive && *excessive > 0) {
    facts.push_back(fmt::format("uncoalesced: {} of {} L2 sectors excessive",
                                format_number(*excessive), count_text(sectors)));
  }
  if (const std::optional<double> conflicts = number_at(*memory, "shared_wavefronts_excessive");
      conflicts && *conflicts > 0) {
    facts.push_back(fmt::format("shared-memory bank conflicts: {} excessive wavefronts",
                                format_number(*conflicts)));
  }
  if (const std::optional<double> bits = number_at(*memory, "access_size_bits");
      bits && *bits > 0) {
    facts.push_back(fmt::format("{}-bit accesses", format_number(*bits)));
  }
  return facts.empty() ? std::string() : fmt::format("{}", fmt::join(facts, "; "));
}

} // namespace

std::string stall_reason_text(std::string_view reason) {
  for (const auto& [key, words] : k_stall_words) {
    if (key == reason) {
      return std::string(words);
    }
  }
  return std::string(reason);
}

std::vector<HotLineText> hot_line_texts(const Json& kernel) {
  std::vector<HotLineText> out;
  const Json* hot = member(kernel, "hot_lines");
  const Json* lines = hot != nullptr ? member(*hot, "lines") : nullptr;
  if (lines == nullptr || !lines->is_array()) {
    return out;
  }
  for (const Json& line : *lines) {
    HotLineText text;
    text.where = where_text(line);
    text.source = text_at(line, "source");
    const std::optional<double> share = number_at(line, "share");
    text.share = share ? share_text(*share) : std::string("?");
    text.samples = count_text(number_at(line, "samples"));
    text.few_samples = bool_at(line, "few_samples").value_or(false);
    if (const Json* stalls = member(line, "stalls"); stalls != nullptr && stalls->is_array()) {
      std::vector<std::string> parts;
      for (const Json& stall : *stalls) {
        const std::optional<double> stall_share = number_at(stall, "share");
        parts.push_back(fmt::format("{} {}", stall_reason_text(text_at(stall, "reason")),
                                    stall_share ? share_text(*stall_share) : "?"));
      }
      text.stalls = fmt::format("{}", fmt::join(parts, ", "));
    }
    text.memory = memory_text(line);
    text.inlined = inlined_text(line);
    out.push_back(std::move(text));
  }
  return out;
}

std::vector<std::string> hot_line_notes(const Json& kernel) {
  std::vector<std::string> out;
  const Json* hot = member(kernel, "hot_lines");
  if (hot == nullptr) {
    return out;
  }
  if (const Json* unattributed = member(*hot, "unattributed");
      unattributed != nullptr && unattributed->is_array()) {
    for (const Json& part : *unattributed) {
      const std::string callee = text_at(part, "callee");
      out.push_back(fmt::format("{} samples inlined from {}({}) not attributed to one line",
                                count_text(number_at(part, "samples")),
                                callee.empty() ? "" : "`" + callee + "` ", where_text(part)));
    }
  }
  if (bool_at(*hot, "few_samples").value_or(false)) {
    out.push_back(fmt::format("only {} samples in this kernel: shares are rough",
                              count_text(number_at(*hot, "samples"))));
  }
  if (const Json* notes = member(*hot, "notes"); notes != nullptr && notes->is_array()) {
    for (const Json& note : *notes) {
      if (note.is_string()) {
        out.push_back(note.get<std::string>());
      }
    }
  }
  return out;
}

} // namespace kprof::report_detail

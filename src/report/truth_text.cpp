// The truth beside the counters in words (prompt and table): the measured time, the check, the
// reference's time and the speed of light, drawn from the report's "truth" object (numbers made
// once, in analysis: src/analysis/truth.cpp). First in the text, since an agent decides on them.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

std::string us_text(std::optional<double> us) {
  return duration_text(us ? std::optional<double>(*us * 1000.0) : std::nullopt, "unknown");
}

std::string scaled(double value, std::string_view unit) {
  constexpr std::array<std::pair<double, std::string_view>, 4> k_prefixes{
      {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [factor, prefix] : k_prefixes) {
    if (value >= factor) {
      return fmt::format("{} {}{}", format_fixed(value / factor, value / factor < 10 ? 2 : 1),
                         prefix, unit);
    }
  }
  return fmt::format("{} {}", format_fixed(value, 0), unit);
}

/// The reference's time as the speed-up compared it: its median, or when the two were timed in
/// different modes their eager medians (analysis/truth.cpp, speedup_json), each named.
std::string reference_words(const Json& timing, const Json& ref_timing, const Json& reference) {
  const std::string own_mode = text_at(timing, "mode", "eager");
  const std::string ref_mode = text_at(ref_timing, "mode", "eager");
  if (text_at(reference, "speedup_mode", ref_mode) != "eager" || own_mode == ref_mode) {
    return us_text(number_at(ref_timing, "median_us"));
  }
  if (ref_mode == "graph") {
    return fmt::format("{} eager ({} as a CUDA graph)",
                       us_text(number_at(ref_timing, "eager_median_us")),
                       us_text(number_at(ref_timing, "median_us")));
  }
  return fmt::format("{} eager, against the candidate's eager {}",
                     us_text(number_at(ref_timing, "median_us")),
                     us_text(number_at(timing, "eager_median_us")));
}

std::string timing_line(const Json& timing, const Json* reference) {
  if (const Json* error = member(timing, "error")) {
    return "Measured: not timed: " + (error->is_string() ? error->get<std::string>() : "");
  }
  std::string line = fmt::format(
      "Measured: {} median (p10 {}, p90 {}, min {}; {} runs, spread {}, {}, {})",
      us_text(number_at(timing, "median_us")), us_text(number_at(timing, "p10_us")),
      us_text(number_at(timing, "p90_us")), us_text(number_at(timing, "min_us")),
      format_fixed(number_at(timing, "count").value_or(0), 0),
      number_at(timing, "spread") ? share_text(*number_at(timing, "spread")) : "-",
      text_at(timing, "mode", "eager") == "graph" ? "CUDA graph" : "eager",
      text_at(timing, "timed_in") == "ncu_process" ? "in ncu's process, outside its range"
                                                   : "in a plain process");
  if (reference != nullptr) {
    const Json* ref_timing = member(*reference, "timing");
    if (ref_timing != nullptr && number_at(*ref_timing, "median_us")) {
      const auto speedup = number_at(*reference, "speedup");
      line += "; PyTorch reference " + reference_words(timing, *ref_timing, *reference) +
              (speedup ? fmt::format(": {}x", format_fixed(*speedup, 2)) : "");
    } else if (const Json* same = member(*reference, "same_as_candidate");
               same != nullptr && same->is_boolean() && same->get<bool>()) {
      line += "; the PyTorch reference is this Model itself (timed once)";
    } else if (const Json* error = member(*reference, "error");
               error != nullptr && error->is_string()) {
      line += "; no reference time (" + error->get<std::string>() + ")";
    }
  }
  return line;
}

std::string light_line(const Json& light, std::optional<double> median_us) {
  const auto ideal = number_at(light, "ideal_us");
  if (!ideal) {
    return {};
  }
  const std::string bound = text_at(light, "bound");
  std::string why;
  if (bound == "memory") {
    why = fmt::format("memory: {} at {}", scaled(number_at(light, "bytes").value_or(0), "B"),
                      scaled(number_at(light, "dram_bandwidth_bytes_per_s").value_or(0), "B/s"));
  } else {
    why = fmt::format("compute: {} at {}", scaled(number_at(light, "flops").value_or(0), "FLOP"),
                      text_at(light, "tensor_peak", "FP32"));
  }
  std::string line = fmt::format("{}; the problem's speed of light is {} ({})", us_text(median_us),
                                 us_text(ideal), why);
  if (const auto share = number_at(light, "share")) {
    line += fmt::format(": {} of it", share_text(*share));
  }
  return "Speed of light: " + line;
}

std::string check_line(const Json& check) {
  const std::string verdict = text_at(check, "verdict");
  const std::string reason = text_at(check, "reason");
  if (verdict == "pass") {
    return fmt::format("Correct: outputs match the reference (max abs error {}, max rel error {})",
                       format_number(number_at(check, "max_abs_error").value_or(0)),
                       format_number(number_at(check, "max_rel_error").value_or(0)));
  }
  if (verdict == "fail") {
    return "WRONG OUTPUT: " + reason +
           " (the counters below are of a kernel that computes a wrong result)";
  }
  return "Not checked: " + reason;
}

} // namespace

std::vector<std::string> truth_lines(const Json& doc) {
  std::vector<std::string> lines;
  const Json* truth = member(doc, "truth");
  if (truth == nullptr || !truth->is_object()) {
    return lines;
  }
  const Json* timing = member(*truth, "timing");
  const Json* check = member(*truth, "check");
  const Json* reference = member(*truth, "reference");
  const Json* light = member(*truth, "speed_of_light");
  if (check != nullptr && check->is_object()) {
    lines.push_back(check_line(*check));
  }
  if (timing != nullptr && timing->is_object()) {
    lines.push_back(timing_line(*timing, reference));
    if (light != nullptr && light->is_object()) {
      if (std::string line = light_line(*light, number_at(*timing, "median_us")); !line.empty()) {
        lines.push_back(std::move(line));
      }
    }
  }
  if (const Json* versus = member(*truth, "ncu_vs_measured");
      versus != nullptr && versus->is_object() && member(*versus, "differs") != nullptr &&
      (*versus)["differs"] == true) {
    lines.push_back(fmt::format("ncu vs measured: ncu's {} against the measured {} ({}x): {}",
                                us_text(number_at(*versus, "ncu_duration_us")),
                                us_text(number_at(*versus, "measured_median_us")),
                                format_fixed(number_at(*versus, "ratio").value_or(0), 2),
                                text_at(*versus, "why")));
  }
  if (const Json* notes = member(*truth, "notes"); notes != nullptr && notes->is_array()) {
    for (const Json& note : *notes) {
      if (note.is_string()) {
        lines.push_back("Truth note: " + note.get<std::string>());
      }
    }
  }
  return lines;
}

} // namespace kprof::report_detail

// The report's `workload` member (a call of many launches, kprof/workload.hpp) as text, for the
// prompt and table sinks: what the timeline found, what ncu replayed, and each distinct kernel's
// sentence, written once in analysis (workload_json) and only drawn here.
#include <string>

#include <fmt/format.h>

#include "sinks.hpp"

namespace kprof::report_detail {
namespace {

/// The most distinct kernels drawn; the rest are counted.
constexpr std::size_t k_max_workload_lines = 12;
/// The kernels named in the "Optimize first" line.
constexpr std::size_t k_optimize_first = 3;

std::string dims_text(const Json* dims) {
  if (dims == nullptr || !dims->is_array() || dims->size() != 3) {
    return "?";
  }
  return fmt::format("({}, {}, {})", (*dims)[0].dump(), (*dims)[1].dump(), (*dims)[2].dump());
}

} // namespace

std::string workload_text(const Json& doc) {
  const Json* workload = member(doc, "workload");
  if (workload == nullptr || !workload->is_object()) {
    return {};
  }
  const auto count = [&](std::string_view key) {
    return fmt::format("{:.0f}", number_at(*workload, key).value_or(0));
  };
  std::string out = fmt::format(
      "Workload: {} launches of {} distinct kernels in the call (kernel time {:.2f} ms), each "
      "timed outside ncu; ncu replayed {} of them (budget --max-replayed {}), representatives "
      "of kernels holding {} of the kernel time.\n",
      count("launches"), count("distinct_kernels"),
      number_at(*workload, "kernel_time_us").value_or(0) / 1000.0, count("replayed"),
      count("max_replayed"), share_text(number_at(*workload, "covered_share").value_or(0)));
  const Json* kernels = member(*workload, "kernels");
  std::size_t drawn = 0;
  if (kernels != nullptr && kernels->is_array()) {
    for (const Json& kernel : *kernels) {
      if (drawn == k_max_workload_lines) {
        out += fmt::format("- and {} more distinct kernels (in the JSON report)\n",
                           kernels->size() - drawn);
        break;
      }
      out += fmt::format("- {} grid {} block {}: {}\n", text_at(kernel, "function", "?"),
                         dims_text(member(kernel, "grid")), dims_text(member(kernel, "block")),
                         text_at(kernel, "summary"));
      ++drawn;
    }
  }
  if (const Json* left_out = member(*workload, "left_out")) {
    if (const std::string note = text_at(*left_out, "note"); !note.empty()) {
      out += "Left out: " + note + "\n";
    }
  }
  // What to optimize first for the call as a whole: the kernels of most time (the kernels'
  // sections below are ordered by their representative launch, not by their share of the call).
  if (kernels != nullptr && kernels->is_array() && !kernels->empty()) {
    std::string first;
    std::size_t named = 0;
    for (const Json& kernel : *kernels) {
      if (named == k_optimize_first) {
        break;
      }
      first += fmt::format("{}{} ({})", named == 0 ? "" : ", ", text_at(kernel, "function", "?"),
                           share_text(number_at(kernel, "share").value_or(0)));
      ++named;
    }
    out += "Optimize first, by share of the call's kernel time: " + first + ".\n";
  }
  return out;
}

} // namespace kprof::report_detail

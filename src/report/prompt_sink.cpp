// Prompt sink: compact plain text for an LLM. No colour, no box drawing, no timestamps (the
// same document always renders the same text). The candidate's own kernels longest first, then
// library kernels (those under a few percent of the time on one line); per kernel "What to fix
// first" (its diagnosis's top three causes), the roofline verdict, the hot lines, the metric-set
// groups (raw page) or ncu sections (details page), and the top NCU rule findings; last, what the
// diagnoses could not look at.
#include <memory>
#include <string>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

/// Causes the prompt shows per kernel; the JSON holds them all.
constexpr std::size_t k_fix_first = 3;

std::string count_of(std::size_t count, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

std::string total_line(const Json& doc, const std::vector<ReportKernel>& groups) {
  const Json* summary = member(doc, "summary");
  std::optional<double> total;
  std::size_t launches = 0;
  std::string dominant;
  if (summary != nullptr) {
    total = number_at(*summary, "total_duration_ns");
    launches = static_cast<std::size_t>(number_at(*summary, "launches").value_or(0));
    dominant = text_at(*summary, "dominant_kernel");
  }
  std::string line = fmt::format("Total GPU time: {} over {}", duration_text(total, "unknown"),
                                 count_of(launches, "kernel launch", "kernel launches"));
  if (!dominant.empty()) {
    line += fmt::format("; dominant kernel: {}", dominant);
    for (const ReportKernel& group : groups) {
      if (group.name == dominant && group.share) {
        line += fmt::format(" ({})", share_text(*group.share));
      }
    }
  }
  return line;
}

std::string kernel_heading(const ReportKernel& group) {
  std::string heading = fmt::format("## Kernel: {} ({}", group.name,
                                    count_of(group.launch_count, "launch", "launches"));
  if (group.duration_ns) {
    heading += ", " + duration_text(group.duration_ns, "");
  }
  if (group.share) {
    heading += fmt::format(", {} of total", share_text(*group.share));
  }
  heading += ")";
  return heading;
}

std::string roofline_line(const Json& roofline) {
  std::string line =
      fmt::format("Roofline: {}-bound (compute SOL {}, memory SOL {}, headroom {}); tensor cores: ",
                  text_at(roofline, "bottleneck", "unknown"),
                  percent_text(number_at(roofline, "compute_sol_pct"), "n/a"),
                  percent_text(number_at(roofline, "memory_sol_pct"), "n/a"),
                  percent_text(number_at(roofline, "headroom_pct"), "n/a"));
  if (bool_at(roofline, "tensor_cores_used").value_or(false)) {
    line += "yes";
    if (const std::optional<double> pipe = number_at(roofline, "tensor_pipe_pct")) {
      line += fmt::format(" (pipe {} active)", percent_text(pipe, ""));
    }
  } else {
    line += "no";
  }
  if (const std::optional<double> dram = number_at(roofline, "dram_bytes_per_s")) {
    line += "; DRAM " + format_with_unit(*dram, "byte/s");
    if (const std::optional<double> fraction = number_at(roofline, "dram_peak_fraction")) {
      // One figure, one formatting: the diagnosis says "DRAM at 56.3% of peak" of the same one.
      line += fmt::format(" ({} of peak)", percent_text(100 * *fraction, ""));
    }
  }
  return line;
}

class PromptSink final : public Sink {
public:
  [[nodiscard]] Format format() const override { return Format::prompt; }

  [[nodiscard]] std::string render(const Json& doc, const RenderOptions& options) const override {
    if (std::optional<std::string> text = artefact_text(doc, format())) {
      return std::move(*text); // a document other than a report
    }
    const ReportView view(doc);
    const std::vector<ReportKernel> groups = view.kernels_by_duration();
    std::string out = gpu_line(doc) + "\n";
    for (const std::string& line : truth_lines(doc)) {
      out += line + "\n";
    }
    out += total_line(doc, groups) + "\n" + workload_text(doc);
    const KernelOrder order = kernels_for_reading(groups);
    for (const ReportKernel* kernel : order.shown) {
      const ReportKernel& group = *kernel;
      out += "\n" + kernel_heading(group) + "\n";
      if (group.representative != nullptr) {
        out += fix_first_text(*group.representative, k_fix_first, "");
      }
      if (group.roofline != nullptr) {
        out += roofline_line(*group.roofline) + "\n";
      }
      if (group.representative == nullptr) {
        continue;
      }
      out += hot_lines_section(*group.representative);
      if (group.launch_count > 1) {
        const Json* id = member(*group.representative, "id");
        out += fmt::format("Values below are from the longest launch (id {}).\n",
                           id != nullptr && id->is_number() ? id->dump() : "?");
      }
      for (const ValueGroup& values : value_groups(view, *group.representative)) {
        out += values.heading + ": ";
        for (std::size_t i = 0; i < values.values.size(); ++i) {
          out += fmt::format("{}{} {}", i == 0 ? "" : "; ", values.values[i].label,
                             values.values[i].text);
        }
        out += "\n";
      }
      const std::vector<const Json*> rules = top_rules(*group.representative, options.max_rules);
      if (!rules.empty()) {
        out += "NCU findings:\n";
        for (const Json* rule : rules) {
          out += fmt::format("- {} {}: {}\n", rule_tag(*rule), text_at(*rule, "name"),
                             first_sentence(text_at(*rule, "description")));
        }
      }
    }
    if (!order.minor_library.empty()) {
      out += "\nOther kernels: " + minor_kernels_text(order.minor_library) + "\n";
    }
    const std::vector<std::string> notes = report_diagnosis_notes(order.shown);
    if (!notes.empty()) {
      out += "\n";
    }
    for (const std::string& note : notes) {
      out += "Diagnosis limit: " + note + "\n";
    }
    return out;
  }
};

} // namespace

/// The "Hot lines" section, right after the roofline: a model reads the top first.
std::string hot_lines_section(const Json& kernel) {
  const std::vector<HotLineText> lines = hot_line_texts(kernel);
  if (lines.empty()) {
    return {};
  }
  std::string out = "Hot lines (share of the kernel's warp stall samples):\n";
  for (const HotLineText& line : lines) {
    out += fmt::format("- {} {} ({} samples{}{}): `{}`", line.where, line.share, line.samples,
                       line.few_samples ? ", few" : "",
                       line.inlined.empty() ? "" : ", incl. inlined " + line.inlined, line.source);
    if (!line.stalls.empty()) {
      out += "; stalls: " + line.stalls;
    }
    if (!line.memory.empty()) {
      out += "; " + line.memory;
    }
    out += "\n";
  }
  for (const std::string& note : hot_line_notes(kernel)) {
    out += "  (" + note + ")\n";
  }
  return out;
}

std::unique_ptr<Sink> make_prompt_sink() {
  return std::make_unique<PromptSink>();
}

} // namespace kprof::report_detail

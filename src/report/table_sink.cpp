// Table sink: for a person at a terminal. A header line (GPU, total time), a fixed-width table
// of kernels (the candidate's own longest first, then library kernels, those under a few
// percent of the time on one line) as wide as the terminal (RenderOptions::width), then per
// kernel "What to fix first" (its diagnosis's top three causes, each wrapped whole with its
// fix), its grouped values (metric-set groups or ncu sections) and its top NCU findings,
// wrapped to the same width; what the diagnoses could not look at last. Only what cannot wrap
// (a table cell, a source line) is cut.
// ANSI colour only when RenderOptions::color; padding is computed before colour is added.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

/// The narrowest table drawn, whatever the terminal says.
constexpr std::size_t k_min_width = 60;
/// The kernel column's width at 100 columns; a wider terminal gives it the rest.
constexpr std::size_t k_max_kernel_width = 22;
/// Causes the table shows per kernel; the JSON holds them all.
constexpr std::size_t k_fix_first = 3;

constexpr std::string_view k_bold = "\x1b[1m";
constexpr std::string_view k_reset = "\x1b[0m";

std::string pad(std::string_view text, std::size_t width, bool right) {
  const std::size_t used = display_width(text);
  const std::string fill(used < width ? width - used : 0, ' ');
  return right ? fill + std::string(text) : std::string(text) + fill;
}

std::string_view bottleneck_colour(std::string_view bottleneck) {
  if (bottleneck == "memory") {
    return "\x1b[33m"; // yellow
  }
  if (bottleneck == "compute") {
    return "\x1b[32m"; // green
  }
  return "\x1b[31m"; // red: latency-bound, the GPU is mostly idle
}

struct TableColumn {
  std::string_view header;
  std::size_t width;
  bool right;
};

/// Appends `items` after `prefix`, separated by "; ", wrapping to `width` with `indent`.
void append_wrapped(std::string& out, std::string_view prefix,
                    const std::vector<std::string>& items, std::size_t indent, std::size_t width) {
  std::string line(prefix);
  bool at_line_start = false; // the prefix counts as content: the first item needs a space
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? ";" : "");
    if (!at_line_start && display_width(line) + 1 + display_width(piece) > width &&
        display_width(line) > indent) {
      out += line + "\n";
      line = std::string(indent, ' ');
      at_line_start = true;
    }
    if (!at_line_start) {
      line += ' ';
    }
    line += piece;
    at_line_start = false;
  }
  out += line + "\n";
}

class TableSink final : public Sink {
public:
  [[nodiscard]] Format format() const override { return Format::table; }

  [[nodiscard]] std::string render(const Json& doc, const RenderOptions& options) const override {
    if (std::optional<std::string> text = artefact_text(doc, format())) {
      return std::move(*text); // a document other than a report
    }
    const std::size_t width = std::max(options.width, k_min_width);
    const ReportView view(doc);
    const std::vector<ReportKernel> by_duration = view.kernels_by_duration();
    const KernelOrder order = kernels_for_reading(by_duration);
    std::vector<ReportKernel> groups;
    for (const ReportKernel* kernel : order.shown) {
      groups.push_back(*kernel);
    }
    const auto styled = [&](std::string_view text, std::string_view style) {
      return options.color ? fmt::format("{}{}{}", style, text, k_reset) : std::string(text);
    };

    std::string out = header_line(doc) + "\n";
    for (const std::string& line : truth_lines(doc)) {
      out += line + "\n";
    }
    out += "\n";
    if (const std::string workload = workload_text(doc); !workload.empty()) {
      out += workload + "\n";
    }

    std::size_t kernel_width = std::string_view("kernel").size();
    const std::size_t name_width = k_max_kernel_width + (width > 100 ? width - 100 : 0);
    for (const ReportKernel& group : groups) {
      kernel_width = std::max(kernel_width, std::min(display_width(group.name), name_width));
    }
    const std::vector<TableColumn> columns{{"kernel", kernel_width, false},
                                           {"launches", 8, true},
                                           {"time", 9, true},
                                           {"share", 5, true},
                                           {"compute SOL", 11, true},
                                           {"memory SOL", 10, true},
                                           {"bottleneck", 10, false},
                                           {"tensor", 6, false},
                                           {"DRAM BW", 11, true}};

    std::string header;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      header += (i == 0 ? "" : " ") + pad(columns[i].header, columns[i].width, columns[i].right);
    }
    out += styled(trim_right(header), k_bold) + "\n";

    for (const ReportKernel& group : groups) {
      const Json empty = Json::object();
      const Json& roofline = group.roofline != nullptr ? *group.roofline : empty;
      const std::string bottleneck = text_at(roofline, "bottleneck", "-");
      const std::optional<bool> tensor = bool_at(roofline, "tensor_cores_used");
      const std::optional<double> dram = number_at(roofline, "dram_bytes_per_s");
      const std::vector<std::string> cells{
          fit(group.name, kernel_width),
          fmt::format("{}", group.launch_count),
          duration_text(group.duration_ns, "-"),
          group.share ? share_text(*group.share) : "-",
          percent_text(number_at(roofline, "compute_sol_pct"), "-"),
          percent_text(number_at(roofline, "memory_sol_pct"), "-"),
          bottleneck,
          tensor ? (*tensor ? "yes" : "no") : "-",
          dram ? format_with_unit(*dram, "byte/s") : "-"};
      std::string row;
      for (std::size_t i = 0; i < columns.size(); ++i) {
        std::string cell = pad(cells[i], columns[i].width, columns[i].right);
        if (i == 6 && group.roofline != nullptr) {
          // Colour only the word so that the padding stays outside the escape codes.
          cell = styled(cells[i], bottleneck_colour(bottleneck)) +
                 std::string(cell.size() - cells[i].size(), ' ');
        }
        row += (i == 0 ? "" : " ") + cell;
      }
      out += trim_right(row) + "\n";
    }
    if (!order.minor_library.empty()) {
      out += fit("+ " + minor_kernels_text(order.minor_library), width) + "\n";
    }

    for (const ReportKernel& group : groups) {
      if (group.representative == nullptr) {
        continue;
      }
      const std::vector<ValueGroup> values = value_groups(view, *group.representative);
      const std::vector<const Json*> rules = top_rules(*group.representative, options.max_rules);
      if (values.empty() && rules.empty() && hot_line_texts(*group.representative).empty() &&
          cause_texts(*group.representative).empty()) {
        continue;
      }
      out += "\n" + styled(group.name, k_bold);
      if (group.launch_count > 1) {
        const Json* id = member(*group.representative, "id");
        out += fmt::format(" (longest launch, id {})",
                           id != nullptr && id->is_number() ? id->dump() : "?");
      }
      out += "\n";
      out += fix_first_text(*group.representative, k_fix_first, "  ", width);
      for (const ValueGroup& value_group : values) {
        std::vector<std::string> items;
        items.reserve(value_group.values.size());
        for (const LabelledValue& value : value_group.values) {
          items.push_back(value.label + " " + value.text);
        }
        append_wrapped(out, "  " + value_group.heading + ":", items, 4, width);
      }
      for (const Json* rule : rules) {
        const std::string line = fmt::format("  {} {}: {}", rule_tag(*rule), text_at(*rule, "name"),
                                             first_sentence(text_at(*rule, "description")));
        out += fit(line, width) + "\n";
      }
      out += hot_lines_rows(*group.representative, width);
    }
    const std::vector<std::string> notes = report_diagnosis_notes(order.shown);
    if (!notes.empty()) {
      out += "\n";
      for (const std::string& note : notes) {
        out += wrapped_text("Diagnosis limit: ", note, width, 2);
      }
    }
    return out;
  }

private:
  /// "  Hot lines:" then per line its place, share, samples and source, its stalls and memory
  /// facts indented below.
  static std::string hot_lines_rows(const Json& kernel, std::size_t width) {
    const std::vector<HotLineText> lines = hot_line_texts(kernel);
    if (lines.empty()) {
      return {};
    }
    std::size_t where_width = 0;
    for (const HotLineText& line : lines) {
      where_width = std::max(where_width, display_width(line.where));
    }
    std::string out = "  Hot lines (share of warp stall samples):\n";
    for (const HotLineText& line : lines) {
      const std::string head =
          fmt::format("    {} {:>4} {:>7}{} ", pad(line.where, where_width, false), line.share,
                      line.samples, line.few_samples ? "*" : " ");
      out += fit(head + line.source, width) + "\n";
      std::string detail = line.stalls;
      for (const std::string* extra : {&line.memory, &line.inlined}) {
        if (!extra->empty()) {
          detail += (detail.empty() ? "" : "; ") +
                    (extra == &line.inlined ? "incl. inlined " + *extra : *extra);
        }
      }
      if (!detail.empty()) {
        out += fit(std::string(where_width + 6, ' ') + detail, width) + "\n";
      }
    }
    for (const std::string& note : hot_line_notes(kernel)) {
      out += fit("    (" + note + ")", width) + "\n";
    }
    return out;
  }

  static std::string trim_right(std::string text) {
    while (!text.empty() && text.back() == ' ') {
      text.pop_back();
    }
    return text;
  }

  static std::string header_line(const Json& doc) {
    const Json* summary = member(doc, "summary");
    std::optional<double> total;
    std::size_t launches = 0;
    if (summary != nullptr) {
      total = number_at(*summary, "total_duration_ns");
      launches = static_cast<std::size_t>(number_at(*summary, "launches").value_or(0));
    }
    return fmt::format("{} | total GPU time {} over {} kernel launch{}", gpu_line(doc),
                       duration_text(total, "unknown"), launches, launches == 1 ? "" : "es");
  }
};

} // namespace

std::unique_ptr<Sink> make_table_sink() {
  return std::make_unique<TableSink>();
}

} // namespace kprof::report_detail

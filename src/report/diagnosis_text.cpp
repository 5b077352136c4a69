// The diagnosis as the prompt, table and HTML sinks draw it: kernels[].diagnosis, in the order
// the document holds (the ranking is made once, in src/diagnosis), and the kernels in the order
// a reader wants them: the candidate's own first, minor library kernels on one line.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "kprof/report.hpp"
#include "report/sinks.hpp"

namespace kprof::report_detail {
namespace {

std::string_view basename_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// The source text of `file:line` from the kernel's hot lines ("" when they do not hold it).
std::string source_text(const Json& kernel, const std::string& file, int line) {
  const Json* hot = member(kernel, "hot_lines");
  if (hot == nullptr) {
    return {};
  }
  for (const char* list : {"lines", "heat"}) {
    const Json* entries = member(*hot, list);
    if (entries == nullptr || !entries->is_array()) {
      continue;
    }
    for (const Json& entry : *entries) {
      if (text_at(entry, "file") == file && number_at(entry, "line") == line) {
        return text_at(entry, "source");
      }
    }
  }
  return {};
}

std::string estimate_text(const Json& cause) {
  const std::optional<double> estimate = number_at(cause, "estimated_speedup_pct");
  if (!estimate) {
    return "no estimate";
  }
  // A low-confidence estimate is ncu's stall model on spread stalls (docs/diagnosis.md).
  const bool low = text_at(cause, "estimate_confidence") == "low";
  return fmt::format("up to {}% of the time{}", format_fixed(*estimate, *estimate < 10 ? 1 : 0),
                     low ? ", low confidence" : "");
}

} // namespace

std::vector<CauseText> cause_texts(const Json& kernel) {
  std::vector<CauseText> out;
  const Json* diagnosis = member(kernel, "diagnosis");
  if (diagnosis == nullptr || !diagnosis->is_array()) {
    return out;
  }
  for (const Json& cause : *diagnosis) {
    if (!cause.is_object()) {
      continue;
    }
    CauseText text;
    text.category = text_at(cause, "category");
    text.title = text_at(cause, "title");
    text.estimate = estimate_text(cause);
    text.estimate_pct = number_at(cause, "estimated_speedup_pct");
    text.source = text_at(cause, "source");
    text.fix = text_at(cause, "fix");
    if (const Json* line = member(cause, "line"); line != nullptr && line->is_object()) {
      const std::string file = text_at(*line, "file");
      const std::optional<int> number = json_read::index_at(*line, "line");
      if (!file.empty() && number) {
        text.where = fmt::format("{}:{}", basename_of(file), *number);
        text.code = source_text(kernel, file, *number);
      }
    }
    if (const Json* launch = member(cause, "launch"); launch != nullptr && launch->is_object()) {
      const std::string file = text_at(*launch, "file");
      const std::optional<int> number = json_read::index_at(*launch, "line");
      if (!file.empty() && number) {
        text.launch = fmt::format("{}:{}", basename_of(file), *number);
        text.launch_code = text_at(*launch, "source");
      }
    }
    out.push_back(std::move(text));
  }
  return out;
}

std::vector<std::string> diagnosis_notes(const Json& kernel) {
  std::vector<std::string> out;
  const Json* notes = member(kernel, "diagnosis_notes");
  if (notes == nullptr || !notes->is_array()) {
    return out;
  }
  for (const Json& note : *notes) {
    if (note.is_string()) {
      out.push_back(note.get<std::string>());
    }
  }
  return out;
}

std::vector<std::string> report_diagnosis_notes(const std::vector<const ReportKernel*>& kernels) {
  std::vector<std::string> out;
  for (const ReportKernel* kernel : kernels) {
    if (kernel->representative == nullptr) {
      continue;
    }
    for (std::string& note : diagnosis_notes(*kernel->representative)) {
      if (std::find(out.begin(), out.end(), note) == out.end()) {
        out.push_back(std::move(note));
      }
    }
  }
  return out;
}

std::string evidence_value(const Json& item) {
  const Json* value = member(item, "value");
  if (value != nullptr && value->is_number()) {
    return format_number(value->get<double>());
  }
  if (value != nullptr && value->is_string()) {
    return value->get<std::string>();
  }
  return {};
}

std::string cause_line(const CauseText& cause) {
  std::string line = fmt::format("{} [{}; {}]", cause.title, cause.estimate, cause.source);
  if (!cause.code.empty()) {
    line += fmt::format(": `{}`", cause.code);
  }
  if (!cause.launch.empty()) {
    line += fmt::format("; launched at {}", cause.launch);
    if (!cause.launch_code.empty()) {
      line += fmt::format(": `{}`", cause.launch_code);
    }
  }
  return line;
}

std::string fix_first_text(const Json& kernel, std::size_t top, std::string_view indent,
                           std::size_t width) {
  const std::vector<CauseText> causes = cause_texts(kernel);
  if (causes.empty()) {
    return {};
  }
  std::string out = fmt::format("{}What to fix first:\n", indent);
  for (std::size_t i = 0; i < causes.size() && i < top; ++i) {
    const CauseText& cause = causes[i];
    const std::string number = fmt::format("{}{}. ", indent, i + 1);
    if (width == 0) {
      out += number + cause_line(cause) + "\n";
      if (!cause.fix.empty()) {
        out += fmt::format("{}   Fix: {}\n", indent, cause.fix);
      }
      continue;
    }
    // The table: the same line, wrapped whole under its number, so that the figure at its end
    // is never cut.
    const std::size_t hang = display_width(number);
    out += wrapped_text(number, cause_line(cause), width, hang);
    if (!cause.fix.empty()) {
      out += wrapped_text(std::string(hang, ' ') + "Fix:", cause.fix, width, hang);
    }
  }
  if (causes.size() > top) {
    out += fmt::format("{}({} more in kernels[].diagnosis)\n", indent, causes.size() - top);
  }
  return out;
}

KernelOrder kernels_for_reading(const std::vector<ReportKernel>& by_duration) {
  KernelOrder order;
  for (const bool library : {false, true}) {
    for (const ReportKernel& kernel : by_duration) {
      if (kernel.library != library) {
        continue;
      }
      if (library && kernel.share && *kernel.share < k_minor_library_share) {
        order.minor_library.push_back(&kernel);
      } else {
        order.shown.push_back(&kernel);
      }
    }
  }
  return order;
}

std::string minor_kernels_text(const std::vector<const ReportKernel*>& kernels) {
  if (kernels.empty()) {
    return {};
  }
  double share = 0;
  std::string names;
  for (const ReportKernel* kernel : kernels) {
    share += kernel->share.value_or(0.0);
    names += fmt::format("{}{} ({})", names.empty() ? "" : "; ", kernel->name,
                         duration_text(kernel->duration_ns, "?"));
  }
  return fmt::format("{} library kernel{} under {}% of the time each, {} in all: {}",
                     kernels.size(), kernels.size() == 1 ? "" : "s",
                     format_fixed(100 * k_minor_library_share, 0),
                     format_fixed(100 * share, 1) + "%", names);
}

std::string wrapped_text(std::string_view prefix, std::string_view text, std::size_t width,
                         std::size_t indent) {
  std::string out;
  std::string line(prefix);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    const std::string_view word = text.substr(start, end - start);
    if (display_width(line) + 1 + display_width(word) > width && display_width(line) > indent) {
      out += line + "\n";
      line = std::string(indent, ' ');
    } else if (!line.empty() && line.back() != ' ') {
      line += ' ';
    }
    line += word;
    start = end + 1;
  }
  return out + line + "\n";
}

std::string html_code_spans(std::string_view escaped) {
  std::string out;
  std::size_t start = 0;
  while (start < escaped.size()) {
    const std::size_t open = escaped.find('`', start);
    const std::size_t close = open == std::string_view::npos ? open : escaped.find('`', open + 1);
    if (close == std::string_view::npos) {
      break;
    }
    out.append(escaped.substr(start, open - start));
    out += "<code>";
    out.append(escaped.substr(open + 1, close - open - 1));
    out += "</code>";
    start = close + 1;
  }
  out.append(escaped.substr(std::min(start, escaped.size())));
  return out;
}

std::string diagnosis_html(const Json& kernel, const HtmlEscape& escape) {
  const auto prose = [&escape](std::string_view text) { return html_code_spans(escape(text)); };
  const std::vector<CauseText> causes = cause_texts(kernel);
  const std::vector<std::string> notes = diagnosis_notes(kernel);
  if (causes.empty() && notes.empty()) {
    return {};
  }
  std::string out;
  if (!causes.empty()) {
    out += "<h4>What to fix first</h4><table class=\"diagnosis\"><thead><tr><th class=\"num\">#"
           "</th><th>cause</th><th>line</th><th>estimate</th><th>from</th></tr></thead><tbody>";
    const Json& entries = *member(kernel, "diagnosis");
    std::size_t rank = 0;
    for (const Json& entry : entries) {
      if (!entry.is_object()) {
        continue;
      }
      const CauseText& cause = causes[rank++];
      std::string evidence;
      if (const Json* list = member(entry, "evidence"); list != nullptr && list->is_array()) {
        for (const Json& item : *list) {
          evidence += fmt::format("<li><span class=\"mono\">{}</span> = {}: {}</li>",
                                  escape(text_at(item, "metric")), escape(evidence_value(item)),
                                  escape(text_at(item, "meaning")));
        }
      }
      out += fmt::format(
          "<tr class=\"cause\" data-category=\"{}\"><td class=\"num\">{}</td><td>{}{}<details>"
          "<summary>evidence</summary><ul>{}</ul></details></td><td class=\"mono\">{}{}</td>"
          "<td>{}</td><td class=\"mono\">{}</td></tr>",
          escape(cause.category), rank, prose(cause.title),
          cause.fix.empty() ? std::string()
                            : "<div class=\"fix\">Fix: " + prose(cause.fix) + "</div>",
          evidence, escape(cause.where),
          (cause.code.empty() ? std::string()
                              : "<div class=\"code\">" + escape(cause.code) + "</div>") +
              (cause.launch.empty()
                   ? std::string()
                   : "<div>launched at " + escape(cause.launch) + "</div>" +
                         (cause.launch_code.empty()
                              ? std::string()
                              : "<div class=\"code\">" + escape(cause.launch_code) + "</div>")),
          escape(cause.estimate), escape(cause.source));
    }
    out += "</tbody></table>";
  }
  for (const std::string& note : notes) {
    out += "<p class=\"muted\">" + prose(note) + "</p>";
  }
  return out;
}

} // namespace kprof::report_detail

namespace kprof {

std::string diagnosis_text(const Json& kernel) {
  const std::vector<report_detail::CauseText> causes = report_detail::cause_texts(kernel);
  const std::vector<std::string> notes = report_detail::diagnosis_notes(kernel);
  std::string out;
  const Json* entries = json_read::member(kernel, "diagnosis");
  std::size_t rank = 0;
  for (std::size_t i = 0; entries != nullptr && i < entries->size(); ++i) {
    const Json& entry = (*entries)[i];
    if (!entry.is_object()) {
      continue;
    }
    const report_detail::CauseText& cause = causes[rank++];
    out += fmt::format("{}. {}\n", rank, report_detail::cause_line(cause));
    if (!cause.where.empty()) {
      out += fmt::format("   at {}\n", cause.where);
    }
    if (!cause.launch.empty()) {
      out += fmt::format("   launched at {}\n", cause.launch);
    }
    if (!cause.fix.empty()) {
      out += fmt::format("   fix: {}\n", cause.fix);
    }
    if (const Json* list = json_read::member(entry, "evidence");
        list != nullptr && list->is_array()) {
      for (const Json& item : *list) {
        out +=
            fmt::format("   - {} = {}: {}\n", json_read::text_at(item, "metric"),
                        report_detail::evidence_value(item), json_read::text_at(item, "meaning"));
      }
    }
  }
  for (const std::string& note : notes) {
    out += fmt::format("Note: {}\n", note);
  }
  return out;
}

} // namespace kprof

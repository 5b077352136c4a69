// The HTML sink: one self-contained page per report document, and the page of a run directory.
//
// Design note. The page is plain code, not a template engine: a few functions that each return
// one section as a string. Every string that comes from a document goes through escape_html()
// (kernel names hold '<', '&', quotes and, from a mangled capture, invalid UTF-8); numbers are
// printed with the locale-proof helpers of util. The CSS and the sorting script are real files in
// templates/, embedded at build time. Nothing on the page refers to anything outside it, and the
// Content-Security-Policy meta tag makes the browser refuse (and report) any request, so a page
// that reached for the network would fail the browser test instead of quietly working online.
// Charts are inline SVG; every point carries its kernel's name in a <title> (hover) and a number
// that the legend resolves, so they read without JS and on paper.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kprof/html.hpp"
#include "kprof/numbers.hpp"
#include "report/sinks.hpp"

namespace kprof {

std::string_view html_report_css();
std::string_view html_report_js();

namespace {

using report_detail::member;
using report_detail::number_at;
using report_detail::text_at;

std::string esc(std::string_view text) {
  return escape_html(text);
}

/// Any metadata value as text: strings as they are, numbers locale-proof, other JSON as JSON.
std::string value_as_text(const Json& value) {
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_number()) {
    return format_number(value.get<double>());
  }
  if (value.is_null()) {
    return {};
  }
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string fixed(double value, int decimals) {
  return format_fixed(value, decimals);
}

std::string pct_text(std::optional<double> pct) {
  return pct ? fixed(*pct, 1) + "%" : std::string("–");
}

/// A <td> holding a number: right-aligned, with a data-sort key for the sorting script.
std::string num_cell(std::optional<double> sort_key, const std::string& text) {
  if (!sort_key || !std::isfinite(*sort_key)) {
    return R"(<td class="num" data-sort="">)" + esc(text) + "</td>";
  }
  return fmt::format(R"(<td class="num" data-sort="{}">{}</td>)", format_number(*sort_key),
                     esc(text));
}

/// One kernel name as the charts and the table show it.
struct KernelView {
  int key = 0; ///< 1-based number shown next to its chart points
  const ReportKernel* group = nullptr;
  std::optional<double> compute_sol;
  std::optional<double> memory_sol;
  std::string bottleneck;
  std::string explanation;
  std::optional<double> dram_bytes_per_s;
  std::optional<double> tensor_pipe;
  std::optional<double> fp32_flops_per_s;        ///< analysis's Roofline
  std::optional<double> fp32_flop_per_dram_byte; ///< analysis's Roofline
};

std::vector<KernelView> kernel_views(const std::vector<ReportKernel>& groups) {
  std::vector<KernelView> views;
  int key = 0;
  for (const ReportKernel& group : groups) {
    KernelView view;
    view.key = ++key;
    view.group = &group;
    if (group.roofline != nullptr) {
      view.compute_sol = number_at(*group.roofline, "compute_sol_pct");
      view.memory_sol = number_at(*group.roofline, "memory_sol_pct");
      view.bottleneck = text_at(*group.roofline, "bottleneck");
      view.explanation = text_at(*group.roofline, "explanation");
      view.dram_bytes_per_s = number_at(*group.roofline, "dram_bytes_per_s");
      view.tensor_pipe = number_at(*group.roofline, "tensor_pipe_pct");
      view.fp32_flops_per_s = number_at(*group.roofline, "fp32_flops_per_s");
      view.fp32_flop_per_dram_byte = number_at(*group.roofline, "fp32_flop_per_dram_byte");
    }
    views.push_back(std::move(view));
  }
  return views;
}

// --- header ------------------------------------------------------------------------------------

std::string command_line(const Json& argv) {
  if (!argv.is_array()) {
    return value_as_text(argv);
  }
  std::string text;
  for (const Json& word : argv) {
    std::string w = value_as_text(word);
    if (w.empty() || w.find_first_of(" \t'\"") != std::string::npos) {
      std::string quoted = "'";
      for (const char c : w) {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      }
      w = quoted + "'";
    }
    text += (text.empty() ? "" : " ") + w;
  }
  return text;
}

/// One fact of the header; "" when `value` is empty, whose label then joins `missing` (a
/// report made from a capture file knows neither ncu's version nor its command: one line says
/// so, not three rows).
std::string meta_row(std::vector<std::string>& missing, std::string_view label,
                     const std::string& value, std::string_view cls = {}) {
  if (value.empty()) {
    missing.emplace_back(label);
    return {};
  }
  return fmt::format("<dt>{}</dt><dd{}>{}</dd>", label,
                     cls.empty() ? std::string() : fmt::format(" class=\"{}\"", cls), esc(value));
}

std::string header_facts(const Json& doc) {
  const Json* meta = member(doc, "metadata");
  const Json empty = Json::object();
  const Json& md = meta != nullptr ? *meta : empty;
  const auto field = [&md](std::string_view key) {
    const Json* value = member(md, key);
    return value != nullptr ? value_as_text(*value) : std::string();
  };
  std::string gpu = field("gpu");
  if (gpu.empty()) {
    if (const Json* spec = member(md, "gpu_spec"); spec != nullptr) {
      gpu = text_at(*spec, "name");
    }
  }
  if (gpu.empty()) {
    gpu = field("gpu_name"); // the harness's torch.cuda.get_device_name(): details pages
  }
  std::string set_name;
  if (const Json* set = member(md, "metric_set"); set != nullptr) {
    set_name = text_at(*set, "name");
  }
  const Json* argv = member(md, "argv");
  std::vector<std::string> missing;
  std::string out = "<dl class=\"meta\">";
  out += meta_row(missing, "GPU", gpu);
  out += meta_row(missing, "ncu", field("ncu_version"));
  out += meta_row(missing, "kprof", field("kprof_version"));
  out += meta_row(missing, "clock control", field("clock_control"));
  out += meta_row(missing, "metric set", set_name);
  out += meta_row(missing, "date", field("generated_at"));
  out +=
      meta_row(missing, "command", argv != nullptr ? command_line(*argv) : std::string(), "mono");
  out += meta_row(missing, "source", field("source"), "mono");
  if (const Json* round = member(md, "round"); round != nullptr) {
    std::string text = value_as_text(*round);
    if (const Json* cand = member(md, "candidate"); cand != nullptr && !cand->is_null()) {
      text += " candidate " + value_as_text(*cand);
    }
    out += meta_row(missing, "round", text);
  }
  if (!missing.empty()) {
    out += fmt::format("<dt>not recorded</dt><dd class=\"muted\">{}</dd>",
                       esc(fmt::format("{}", fmt::join(missing, ", "))));
  }
  out += "</dl>\n";
  return out;
}

// --- speed-of-light chart ----------------------------------------------------------------------

constexpr double k_plot_left = 52;
constexpr double k_plot_top = 14;
constexpr double k_plot_size = 380;

double sol_x(double pct) {
  return k_plot_left + std::clamp(pct, 0.0, 100.0) / 100.0 * k_plot_size;
}
double sol_y(double pct) {
  return k_plot_top + k_plot_size - std::clamp(pct, 0.0, 100.0) / 100.0 * k_plot_size;
}

std::string legend(const std::vector<KernelView>& views, const std::string& extra_class) {
  std::string out = "<ol class=\"legend " + extra_class + "\">";
  for (const KernelView& view : views) {
    const std::optional<double> share = view.group->share;
    out += fmt::format(R"(<li><span class="key">{}</span>{}<span class="muted">{}</span></li>)",
                       view.key, esc(view.group->name),
                       share ? " · " + report_detail::share_text(*share) + " of GPU time"
                             : std::string());
  }
  return out + "</ol>";
}

std::string sol_chart(const std::vector<KernelView>& views, const std::string& scope) {
  const double latency = RooflineThresholds{}.latency_pct;
  const double right = k_plot_left + k_plot_size;
  const double bottom = k_plot_top + k_plot_size;
  std::string svg = fmt::format(
      "<svg class=\"sol-chart\" id=\"{}sol-chart\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-labelledby=\"{}sol-title\"><title id=\"{}sol-title\">Speed of light: compute SOL "
      "against memory SOL per kernel, point area by share of GPU time</title>",
      scope, right + 20, bottom + 44, scope, scope);
  // Verdict bands (the roofline verdict of analysis: latency below the threshold on both
  // units, else the busier unit bounds the kernel, memory on a tie).
  svg += fmt::format("<rect class=\"band-latency\" x=\"{0}\" y=\"{1}\" width=\"{2}\" "
                     "height=\"{2}\"><title>latency-bound: both below {3}%</title></rect>",
                     k_plot_left, sol_y(latency), sol_x(latency) - k_plot_left,
                     format_number(latency));
  svg += fmt::format("<polygon class=\"band-memory\" points=\"{},{} {},{} {},{} {},{}\"><title>"
                     "memory-bound</title></polygon>",
                     sol_x(latency), sol_y(0), sol_x(100), sol_y(0), sol_x(100), sol_y(100),
                     sol_x(latency), sol_y(latency));
  svg += fmt::format("<polygon class=\"band-compute\" points=\"{},{} {},{} {},{} {},{}\"><title>"
                     "compute-bound</title></polygon>",
                     sol_x(0), sol_y(latency), sol_x(latency), sol_y(latency), sol_x(100),
                     sol_y(100), sol_x(0), sol_y(100));
  for (int tick = 0; tick <= 100; tick += 20) {
    svg += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>"
                       "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
                       sol_x(tick), k_plot_top, bottom, bottom + 14, tick);
    svg += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>"
                       "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
                       k_plot_left, sol_y(tick), right, k_plot_left - 5, sol_y(tick) + 4, tick);
  }
  svg += fmt::format(R"(<rect class="axis" x="{}" y="{}" width="{}" height="{}"/>)", k_plot_left,
                     k_plot_top, k_plot_size, k_plot_size);
  svg += fmt::format(R"(<text class="band-label" x="{}" y="{}">latency-bound</text>)",
                     k_plot_left + 6, bottom - 6);
  svg += fmt::format("<text class=\"band-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">"
                     "memory-bound</text>",
                     right - 6, bottom - 6);
  svg += fmt::format(R"(<text class="band-label" x="{}" y="{}">compute-bound</text>)",
                     k_plot_left + 6, k_plot_top + 14);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">memory SOL (% of peak)"
                     "</text>",
                     k_plot_left + k_plot_size / 2, bottom + 32);
  svg += fmt::format("<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
                     "{0})\">compute SOL (% of peak)</text>",
                     k_plot_top + k_plot_size / 2);

  // Points, largest first so that small ones stay visible on top.
  std::vector<const KernelView*> plotted;
  std::vector<const KernelView*> missing;
  for (const KernelView& view : views) {
    (view.compute_sol && view.memory_sol ? plotted : missing).push_back(&view);
  }
  std::stable_sort(plotted.begin(), plotted.end(), [](const KernelView* a, const KernelView* b) {
    return a->group->share.value_or(0) > b->group->share.value_or(0);
  });
  for (const KernelView* view : plotted) {
    const double share = std::clamp(view->group->share.value_or(0.0), 0.0, 1.0);
    const double radius = 4.0 + 18.0 * std::sqrt(share);
    const double x = sol_x(*view->memory_sol);
    const double y = sol_y(*view->compute_sol);
    svg += fmt::format(
        "<g><circle class=\"sol-point\" data-kernel=\"{0}\" cx=\"{1}\" cy=\"{2}\" r=\"{3}\">"
        "<title>{0}: compute SOL {4}, memory SOL {5}, {6} of GPU time ({7})</title></circle>"
        "<text x=\"{8}\" y=\"{9}\" font-weight=\"700\">{10}</text></g>",
        esc(view->group->name), fixed(x, 1), fixed(y, 1), fixed(radius, 1),
        pct_text(view->compute_sol), pct_text(view->memory_sol),
        view->group->share ? report_detail::share_text(*view->group->share) : std::string("?"),
        esc(view->bottleneck.empty() ? "no verdict" : view->bottleneck + "-bound"),
        fixed(x + radius * 0.75 + 2, 1), fixed(y - radius * 0.75 - 2, 1), view->key);
  }
  svg += "</svg>";
  std::string out = "<div class=\"chart\">" + svg + legend(views, "sol-legend");
  if (!missing.empty()) {
    out += "<p class=\"note\">Not plotted (compute or memory SOL not collected):";
    for (const KernelView* view : missing) {
      out += " " + esc(view->group->name) + ";";
    }
    out += "</p>";
  }
  return out + "</div>";
}

// --- roofline chart ----------------------------------------------------------------------------

struct RooflinePoint {
  const KernelView* view = nullptr;
  double intensity = 0; ///< FLOP per DRAM byte
  double flops = 0;     ///< FLOP/s
};

std::string roofline_metric_list() {
  const std::vector<std::string_view> names = fp32_roofline_columns();
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    list += fmt::format("{}<code>{}</code>", i == 0 ? "" : (i + 1 == names.size() ? " and " : ", "),
                        esc(names[i]));
  }
  return list;
}

std::string si(double value, std::string_view unit) {
  static constexpr std::array<std::pair<double, std::string_view>, 5> k_prefixes{
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, prefix] : k_prefixes) {
    if (std::fabs(value) >= scale) {
      return fixed(value / scale, 2) + " " + std::string(prefix) + std::string(unit);
    }
  }
  return fixed(value, 3) + " " + std::string(unit);
}

std::string roofline_section(const Json& doc, const std::vector<KernelView>& views,
                             const std::string& scope) {
  const Json* meta = member(doc, "metadata");
  const Json* spec = meta != nullptr ? member(*meta, "gpu_spec") : nullptr;
  const std::optional<double> peak_bw =
      spec != nullptr ? number_at(*spec, "dram_bandwidth_bytes_per_s") : std::nullopt;
  const std::optional<double> peak_flops =
      spec != nullptr ? number_at(*spec, "fp32_flops") : std::nullopt;

  std::vector<RooflinePoint> points;
  std::vector<std::string> no_metrics;
  std::vector<std::string> no_flops;
  for (const KernelView& view : views) {
    if (!view.fp32_flops_per_s) {
      no_metrics.push_back(view.group->name);
    } else if (!view.fp32_flop_per_dram_byte) {
      no_flops.push_back(view.group->name);
    } else {
      points.push_back(RooflinePoint{&view, *view.fp32_flop_per_dram_byte, *view.fp32_flops_per_s});
    }
  }

  std::string out = fmt::format("<section class=\"roofline\" id=\"{}roofline\"><h3>Roofline "
                                "(fp32)</h3>",
                                scope);
  if (points.empty()) {
    std::string why;
    if (!no_metrics.empty()) {
      why = "The roofline needs ncu's roofline metrics " + roofline_metric_list() +
            ", which this capture does not have for " +
            (no_flops.empty() ? std::string("any kernel") : std::string("the other kernels")) +
            ". Profile with a metric set that includes them (or add them to <code>--metrics</code>)"
            ".";
    }
    if (!no_flops.empty()) {
      why += (why.empty() ? "" : " ") +
             std::string("No kernel executed fp32 floating-point instructions, so none has an "
                         "arithmetic intensity to plot.");
    }
    return out + "<p class=\"note roofline-absent\">" + why + "</p></section>";
  }
  const double bw = peak_bw.value_or(0.0);
  const double fp32 = peak_flops.value_or(0.0);
  if (!(bw > 0) || !(fp32 > 0)) {
    return out +
           "<p class=\"note roofline-absent\">The roofline needs the GPU's peak DRAM bandwidth "
           "and fp32 throughput, and this GPU is not in kprof's spec table "
           "(<code>metadata.gpu_spec</code> is empty).</p></section>";
  }

  const double ridge = fp32 / bw;
  double x_min = ridge;
  double x_max = ridge;
  double y_min = fp32;
  for (const RooflinePoint& point : points) {
    x_min = std::min(x_min, point.intensity);
    x_max = std::max(x_max, point.intensity);
    y_min = std::min(y_min, point.flops);
  }
  const double lx0 = std::floor(std::log10(x_min)) - 1;
  const double lx1 = std::ceil(std::log10(x_max)) + 1;
  const double ly0 = std::floor(std::log10(y_min)) - 1;
  const double ly1 = std::ceil(std::log10(fp32)) + 1;
  const double width = 440;
  const double height = 320;
  const double left = 64;
  const double top = 14;
  const auto px = [&](double v) { return left + (std::log10(v) - lx0) / (lx1 - lx0) * width; };
  const auto py = [&](double v) {
    return top + height - (std::log10(v) - ly0) / (ly1 - ly0) * height;
  };
  std::string svg = fmt::format(
      "<svg class=\"roofline-chart\" id=\"{}roofline-chart\" viewBox=\"0 0 {} {}\" role=\"img\">"
      "<title>Roofline: achieved fp32 FLOP/s against arithmetic intensity (FLOP per DRAM byte), "
      "log-log, with the GPU's DRAM and fp32 ceilings</title>",
      scope, left + width + 20, top + height + 44);
  const int x_decades = static_cast<int>(lx1 - lx0);
  const int y_decades = static_cast<int>(ly1 - ly0);
  for (int step = 0; step <= x_decades; ++step) {
    const double d = lx0 + step;
    const double x = left + (d - lx0) / (lx1 - lx0) * width;
    svg += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/><text "
                       "x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">1e{4}</text>",
                       fixed(x, 1), top, top + height, top + height + 14, format_number(d));
  }
  for (int step = 0; step <= y_decades; ++step) {
    const double d = ly0 + step;
    const double y = top + height - (d - ly0) / (ly1 - ly0) * height;
    svg +=
        fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text "
                    "x=\"{3}\" y=\"{4}\" text-anchor=\"end\">1e{5}</text>",
                    left, fixed(y, 1), left + width, left - 5, fixed(y + 4, 1), format_number(d));
  }
  svg += fmt::format(R"(<rect class="axis" x="{}" y="{}" width="{}" height="{}"/>)", left, top,
                     width, height);
  const double x_start = std::pow(10.0, lx0);
  const double x_end = std::pow(10.0, lx1);
  const double y_start = std::max(bw * x_start, std::pow(10.0, ly0));
  const double x_from = y_start / bw;
  svg += fmt::format("<polyline class=\"ceiling\" points=\"{},{} {},{} {},{}\"><title>DRAM "
                     "{} and fp32 {} ceilings (spec table)</title></polyline>",
                     fixed(px(x_from), 1), fixed(py(y_start), 1), fixed(px(ridge), 1),
                     fixed(py(fp32), 1), fixed(px(x_end), 1), fixed(py(fp32), 1), si(bw, "B/s"),
                     si(fp32, "FLOP/s"));
  svg += fmt::format(R"(<text class="band-label" x="{}" y="{}">fp32 peak {}</text>)",
                     fixed(px(ridge) + 6, 1), fixed(py(fp32) - 5, 1), si(fp32, "FLOP/s"));
  svg += fmt::format(R"(<text class="band-label" x="{}" y="{}">DRAM {}</text>)", fixed(left + 6, 1),
                     fixed(std::min(py(y_start) - 6, top + height - 6), 1), si(bw, "B/s"));
  for (const RooflinePoint& point : points) {
    const double x = px(point.intensity);
    const double y = py(point.flops);
    svg += fmt::format("<g><circle class=\"roofline-point\" data-kernel=\"{0}\" cx=\"{1}\" "
                       "cy=\"{2}\" r=\"6\"><title>{0}: {3}, {4} FLOP/byte</title></circle>"
                       "<text x=\"{5}\" y=\"{6}\" font-weight=\"700\">{7}</text></g>",
                       esc(point.view->group->name), fixed(x, 1), fixed(y, 1),
                       si(point.flops, "FLOP/s"), fixed(point.intensity, 3), fixed(x + 7, 1),
                       fixed(y - 7, 1), point.view->key);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity "
                     "(FLOP / DRAM byte)</text>",
                     left + width / 2, top + height + 32);
  svg += fmt::format("<text x=\"12\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 12 "
                     "{0})\">FLOP/s</text></svg>",
                     top + height / 2);
  out += "<div class=\"chart\">" + svg + "</div>";
  if (!no_metrics.empty() || !no_flops.empty()) {
    out += "<p class=\"note\">Not plotted:";
    for (const std::string& name : no_metrics) {
      out += " " + esc(name) + " (roofline metrics not collected);";
    }
    for (const std::string& name : no_flops) {
      out += " " + esc(name) + " (no fp32 instructions);";
    }
    out += "</p>";
  }
  return out + "</section>";
}

// --- kernel table and per-kernel details ------------------------------------------------------

std::string kernel_table(const std::vector<KernelView>& views, const std::string& scope) {
  std::string out = fmt::format(
      "<table class=\"sortable kernel-table\" id=\"{}kernel-table\"><thead><tr><th "
      "class=\"num\">#</th><th>kernel</th><th class=\"num\">launches</th><th "
      "class=\"num\">time</th><th class=\"num\">share</th><th class=\"num\">compute SOL</th><th "
      "class=\"num\">memory SOL</th><th>bottleneck</th><th class=\"num\">DRAM</th><th "
      "class=\"num\">tensor pipe</th></tr></thead><tbody>",
      scope);
  for (const KernelView& view : views) {
    const ReportKernel& group = *view.group;
    out += "<tr>";
    out += num_cell(view.key, std::to_string(view.key));
    out += fmt::format(R"(<td class="mono"><a href="#{}k{}">{}</a></td>)", scope, view.key,
                       esc(group.name));
    out += num_cell(static_cast<double>(group.launch_count), std::to_string(group.launch_count));
    out += num_cell(group.duration_ns, duration_text(group.duration_ns, "–"));
    out += num_cell(group.share,
                    group.share ? report_detail::share_text(*group.share) : std::string("–"));
    out += num_cell(view.compute_sol, pct_text(view.compute_sol));
    out += num_cell(view.memory_sol, pct_text(view.memory_sol));
    out += "<td>" + esc(view.bottleneck.empty() ? "–" : view.bottleneck) + "</td>";
    out += num_cell(view.dram_bytes_per_s, view.dram_bytes_per_s
                                               ? format_with_unit(*view.dram_bytes_per_s, "byte/s")
                                               : std::string("–"));
    out += num_cell(view.tensor_pipe, pct_text(view.tensor_pipe));
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

std::string dims_text(const Json& kernel, std::string_view key) {
  const Json* dims = member(kernel, key);
  if (dims == nullptr || !dims->is_array()) {
    return "?";
  }
  std::string text;
  for (const Json& d : *dims) {
    text += (text.empty() ? "" : "×") + value_as_text(d);
  }
  return text;
}

std::string findings_table(const Json& kernel) {
  const std::vector<const Json*> rules =
      report_detail::top_rules(kernel, std::numeric_limits<std::size_t>::max());
  if (rules.empty()) {
    return {};
  }
  std::string out = "<h4>ncu findings</h4><table class=\"findings\"><thead><tr><th>type</th><th>"
                    "rule</th><th class=\"num\">est. speedup</th><th>finding</th></tr></thead>"
                    "<tbody>";
  for (const Json* rule : rules) {
    const std::string type = text_at(*rule, "type");
    const std::optional<double> speedup = number_at(*rule, "estimated_speedup");
    const std::string speedup_type = text_at(*rule, "speedup_type");
    std::string speedup_text = "–";
    if (speedup) {
      speedup_text = fixed(*speedup, 1) + "%" + (speedup_type.empty() ? "" : " " + speedup_type);
    }
    out += fmt::format("<tr class=\"finding\"><td><span class=\"tag {0}\">{0}</span></td><td>{1}"
                       "<div class=\"muted\">{2}</div></td>{3}<td>{4}</td></tr>",
                       esc(type), esc(text_at(*rule, "name")), esc(text_at(*rule, "section")),
                       num_cell(speedup, speedup_text), esc(text_at(*rule, "description")));
  }
  return out + "</tbody></table>";
}

/// kernels[].hot_lines (docs/hot-lines.md), when the document has them: the hottest lines
/// with their stalls and memory facts, then the kernel's source lines with per-line heat.
/// Absent: "".
std::string hot_lines_table(const Json& kernel) {
  const std::vector<report_detail::HotLineText> lines = report_detail::hot_line_texts(kernel);
  if (lines.empty()) {
    return {};
  }
  const Json& hot = *member(kernel, "hot_lines");
  const Json* entries = member(hot, "lines");
  std::string out = "<h4>Hot lines</h4><table class=\"source\"><thead><tr><th>line</th><th "
                    "class=\"num\">share</th><th class=\"num\">samples</th><th>source</th><th>"
                    "top stalls</th><th>memory, inlined</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const report_detail::HotLineText& line = lines[i];
    const std::optional<double> share = number_at((*entries)[i], "share");
    const std::optional<double> samples = number_at((*entries)[i], "samples");
    std::string extra = line.memory;
    if (!line.inlined.empty()) {
      extra += (extra.empty() ? "" : "; ") + std::string("incl. inlined ") + line.inlined;
    }
    out += fmt::format("<tr class=\"hot-line\" style=\"--h:{}\"><td class=\"mono\">{}</td>{}{}<td "
                       "class=\"code\">{}</td><td>{}</td><td>{}</td></tr>",
                       fixed(std::clamp(share.value_or(0.0), 0.0, 1.0), 3), esc(line.where),
                       num_cell(share, line.share), num_cell(samples, line.samples),
                       esc(line.source), esc(line.stalls), esc(extra));
  }
  out += "</tbody></table>";
  for (const std::string& note : report_detail::hot_line_notes(kernel)) {
    out += "<p class=\"muted\">" + report_detail::html_code_spans(esc(note)) + "</p>";
  }
  const Json* heat = member(hot, "heat");
  if (heat == nullptr || !heat->is_array() || heat->empty()) {
    return out;
  }
  out += "<details class=\"heat\"><summary>Source with per-line heat</summary>"
         "<table class=\"source\"><tbody>";
  std::string file;
  for (const Json& line : *heat) {
    const std::string this_file = text_at(line, "file");
    if (this_file != file) {
      file = this_file;
      out += fmt::format(R"(<tr><th colspan="3" class="mono">{}</th></tr>)", esc(file));
    }
    const std::optional<double> share = number_at(line, "share");
    const std::optional<double> number = number_at(line, "line");
    out += fmt::format("<tr class=\"heat-line\" style=\"--h:{}\"><td class=\"mono num\">{}</td>"
                       "<td class=\"num\">{}</td><td class=\"code\">{}</td></tr>",
                       fixed(std::clamp(share.value_or(0.0), 0.0, 1.0), 3),
                       number ? format_number(*number) : std::string("?"),
                       share ? report_detail::share_text(*share) : std::string(),
                       esc(text_at(line, "source")));
  }
  return out + "</tbody></table></details>";
}

std::string kernel_details(const Json& doc, const KernelView& view, const std::string& scope) {
  const ReportKernel& group = *view.group;
  std::string out = fmt::format(
      "<details class=\"kernel\" id=\"{}k{}\" open><summary><span class=\"muted\">{}.</span> "
      "<span class=\"mono\">{}</span> — {}</summary>",
      scope, view.key, view.key, esc(group.name),
      esc(view.bottleneck.empty() ? "no verdict" : view.bottleneck + "-bound"));
  if (!view.explanation.empty()) {
    out += "<p>" + esc(view.explanation) + "</p>";
  }
  const Json* kernel = group.representative;
  if (kernel == nullptr) {
    return out + "<p class=\"muted\">No launch recorded.</p></details>";
  }
  const std::optional<double> id = number_at(*kernel, "id");
  const std::string range = text_at(*kernel, "nvtx_range");
  // ncu's launch ID numbers the launches of the whole capture from 0, not this kernel's: a
  // second kernel's only launch is ID 1, so it is named as ncu's, never "launch 1".
  const std::string ncu_id = id ? "ncu ID " + format_number(*id) : std::string("ncu ID unknown");
  out +=
      fmt::format("<p class=\"muted\">{}: grid {}, block {}{}</p>",
                  group.launch_count == 1 ? "1 launch (" + ncu_id + ")"
                                          : fmt::format("{} launches; values of the longest ({})",
                                                        group.launch_count, ncu_id),
                  esc(dims_text(*kernel, "grid")), esc(dims_text(*kernel, "block")),
                  range.empty() ? std::string() : ", NVTX range " + esc(range));
  out += report_detail::diagnosis_html(*kernel, &esc);
  out += hot_lines_table(*kernel);
  const std::vector<report_detail::ValueGroup> groups =
      report_detail::value_groups(ReportView(doc), *kernel);
  if (!groups.empty()) {
    out += "<h4>Metrics</h4><div class=\"groups\">";
    for (const auto& value_group : groups) {
      out += R"(<table class="metrics"><thead><tr><th colspan="2">)" + esc(value_group.heading) +
             "</th></tr></thead><tbody>";
      for (const auto& value : value_group.values) {
        out += "<tr><td>" + esc(value.label) + "</td><td class=\"num\">" + esc(value.text) +
               "</td></tr>";
      }
      out += "</tbody></table>";
    }
    out += "</div>";
  }
  out += findings_table(*kernel);
  return out + "</details>\n";
}

/// The candidate's truth (issue 43): the lines the prompt and the table print first (the check,
/// the measured time beside the reference's, the speed of light, ncu against the clock); a
/// wrong output as a warning. Empty without the report's `truth`.
std::string truth_section(const Json& doc, std::string_view heading) {
  const std::vector<std::string> lines = report_detail::truth_lines(doc);
  if (lines.empty()) {
    return {};
  }
  std::string out = fmt::format("<{0}>Measured, checked, against the speed of light</{0}>"
                                "<ul class=\"truth\">",
                                heading);
  for (const std::string& line : lines) {
    const bool wrong = line.rfind("WRONG OUTPUT", 0) == 0;
    out += fmt::format("<li{}>{}</li>", wrong ? " class=\"wrong\"" : "", esc(line));
  }
  return out + "</ul>";
}

/// The call's launches over time (the report's `workload.timeline`): a lane per kernel of most
/// time, then the rest, each bin shaded by the share of it that the lane's launches kept the GPU
/// busy; hovering a bin says its time. Empty without the member.
std::string timeline_chart(const Json& workload, std::string_view heading) {
  const Json* timeline = member(workload, "timeline");
  const Json* lanes = timeline != nullptr ? member(*timeline, "lanes") : nullptr;
  const double span = timeline != nullptr ? number_at(*timeline, "span_us").value_or(0) : 0;
  const double bins = timeline != nullptr ? number_at(*timeline, "bins").value_or(0) : 0;
  if (lanes == nullptr || !lanes->is_array() || lanes->empty() || span <= 0 || bins <= 0) {
    return {};
  }
  constexpr double k_label_width = 230;
  constexpr double k_plot_width = 720;
  constexpr double k_lane_height = 16;
  const double bin_us = span / bins;
  const double bin_width = k_plot_width / bins;
  const double height = k_lane_height * static_cast<double>(lanes->size()) + 22;
  std::string svg = fmt::format(
      "<{0}>The call's launches over time</{0}><svg class=\"timeline\" viewBox=\"0 0 {1} {2}\" "
      "role=\"img\" aria-label=\"the call's launches over {3}, a lane per kernel\">",
      heading, k_label_width + k_plot_width + 10, height, esc(duration_text(span * 1000.0)));
  double y = 0;
  for (const Json& lane : *lanes) {
    const std::string function = text_at(lane, "function", "?");
    svg += fmt::format(R"(<g class="lane"><text x="{}" y="{}" text-anchor="end">{}</text>)",
                       k_label_width - 6, y + k_lane_height - 4,
                       esc(function.size() > 34 ? function.substr(0, 33) + "…" : function));
    if (const Json* busy = member(lane, "busy_us"); busy != nullptr && busy->is_array()) {
      for (std::size_t bin = 0; bin < busy->size(); ++bin) {
        const double us = (*busy)[bin].is_number() ? (*busy)[bin].get<double>() : 0.0;
        if (us <= 0) {
          continue;
        }
        svg += fmt::format(
            "<rect class=\"busy\" x=\"{:.1f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" "
            "fill-opacity=\"{:.2f}\"><title>{}: {} busy in the {} from {}</title></rect>",
            k_label_width + static_cast<double>(bin) * bin_width, y + 2, bin_width,
            k_lane_height - 4, std::clamp(0.25 + 0.75 * us / bin_us, 0.25, 1.0), esc(function),
            esc(duration_text(us * 1000.0)), esc(duration_text(bin_us * 1000.0)),
            esc(duration_text(static_cast<double>(bin) * bin_us * 1000.0)));
      }
    }
    svg += "</g>";
    y += k_lane_height;
  }
  svg += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\">0</text><text class=\"axis\" "
                     "x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text></svg>",
                     k_label_width, y + 16, k_label_width + k_plot_width, y + 16,
                     esc(duration_text(span * 1000.0)));
  return svg;
}

/// Where a call of many launches spends its kernel time (issue 42, the report's `workload`):
/// each distinct kernel with its launches, time and share drawn as a bar, most time first, and
/// what ncu replayed of it. Empty without the member.
std::string workload_section(const Json& doc, std::string_view heading) {
  const Json* workload = member(doc, "workload");
  const Json* kernels = workload != nullptr ? member(*workload, "kernels") : nullptr;
  if (kernels == nullptr || !kernels->is_array()) {
    return {};
  }
  std::string out = fmt::format(
      "<{0}>Where the call's time goes</{0}><p class=\"summary\">{1} launches of {2} distinct "
      "kernels, kernel time {3}, each launch timed outside ncu; ncu replayed {4} of them, "
      "representatives of kernels holding {5} of the kernel time.</p>",
      heading, format_number(number_at(*workload, "launches").value_or(0)),
      format_number(number_at(*workload, "distinct_kernels").value_or(0)),
      esc(duration_text(number_at(*workload, "kernel_time_us").value_or(0) * 1000.0)),
      format_number(number_at(*workload, "replayed").value_or(0)),
      report_detail::share_text(number_at(*workload, "covered_share").value_or(0)));
  out += "<table class=\"workload\"><thead><tr><th>kernel</th><th>grid</th><th>block</th>"
         "<th class=\"num\">launches</th><th class=\"num\">time</th><th>share</th>"
         "<th>op</th><th>measured</th></tr></thead><tbody>";
  for (const Json& kernel : *kernels) {
    const double share = number_at(kernel, "share").value_or(0);
    std::string ops;
    if (const Json* names = member(kernel, "ops"); names != nullptr && names->is_array()) {
      for (const Json& op : *names) {
        ops += (ops.empty() ? "" : ", ") + (op.is_string() ? op.get<std::string>() : op.dump());
      }
    }
    out += fmt::format(
        "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td><span class=\"share-bar\" style=\"width:{:.1f}%\">"
        "</span> {}</td><td>{}</td><td>{}</td></tr>",
        esc(text_at(kernel, "function", "?")), esc(dims_text(kernel, "grid")),
        esc(dims_text(kernel, "block")), format_number(number_at(kernel, "launches").value_or(0)),
        esc(duration_text(number_at(kernel, "total_us").value_or(0) * 1000.0)),
        std::clamp(share * 100.0, 0.0, 100.0) * 0.6, report_detail::share_text(share), esc(ops),
        esc(text_at(kernel, "summary")));
  }
  out += "</tbody></table>";
  if (const Json* left_out = member(*workload, "left_out")) {
    if (const std::string note = text_at(*left_out, "note"); !note.empty()) {
      out += "<p class=\"note\">Left out: " + esc(note) + "</p>";
    }
  }
  return out + timeline_chart(*workload, heading);
}

/// Everything of one report below the header: charts, kernel table, per-kernel details. `scope`
/// prefixes every id so that several reports fit on one page.
std::string report_body(const Json& doc, const std::string& scope, std::string_view heading) {
  const std::vector<ReportKernel> groups = ReportView(doc).kernels_by_duration();
  const std::vector<KernelView> views = kernel_views(groups);
  std::string out;
  const Json* summary = member(doc, "summary");
  if (summary != nullptr) {
    const std::optional<double> total = number_at(*summary, "total_duration_ns");
    const std::optional<double> launches = number_at(*summary, "launches");
    out += fmt::format(
        "<p class=\"summary\">{} kernel{}, {} launch{}, total GPU time {}</p>", views.size(),
        views.size() == 1 ? "" : "s", launches ? format_number(*launches) : std::string("?"),
        launches && *launches == 1 ? "" : "es", esc(duration_text(total, "unknown")));
  }
  out += truth_section(doc, heading);
  out += workload_section(doc, heading);
  if (views.empty()) {
    return out + "<p class=\"note\">No kernel in this report.</p>";
  }
  out += fmt::format("<{0}>Speed of light and roofline</{0}><div class=\"charts\">", heading);
  out += sol_chart(views, scope);
  out += "<div class=\"chart\">" + roofline_section(doc, views, scope) + "</div></div>";
  out += fmt::format("<{0}>Kernels</{0}>", heading);
  out += kernel_table(views, scope);
  for (const KernelView& view : views) {
    out += kernel_details(doc, view, scope);
  }
  return out;
}

std::string page_start(std::string_view title) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"color-scheme\" content=\"light dark\">\n<title>";
  out += esc(title);
  out += "</title>\n<style>\n";
  out += html_report_css();
  out += "</style>\n</head>\n<body>\n";
  return out;
}

std::string page_end(const Json& doc) {
  std::string out = "<footer>Written by kprof";
  if (const Json* meta = member(doc, "metadata"); meta != nullptr) {
    const std::string version = text_at(*meta, "kprof_version");
    if (!version.empty()) {
      out += " " + esc(version);
    }
  }
  out += ". Self-contained: this page loads nothing.</footer>\n<script>\n";
  out += html_report_js();
  out += "</script>\n</body>\n</html>\n";
  return out;
}

// --- run directory ----------------------------------------------------------------------------

std::string row_name(const Json& row) {
  std::string name = "round " + value_as_text(row.value("round", Json(0)));
  if (const Json* cand = member(row, "candidate"); cand != nullptr && !cand->is_null()) {
    name += " candidate " + value_as_text(*cand);
  }
  return name;
}

std::string row_scope(const Json& row) {
  std::string scope = "r" + value_as_text(row.value("round", Json(0)));
  if (const Json* cand = member(row, "candidate"); cand != nullptr && !cand->is_null()) {
    scope += "c" + value_as_text(*cand);
  }
  return scope + "-";
}

std::string rounds_chart(const Json& rows) {
  double longest = 0;
  for (const Json& row : rows) {
    longest = std::max(longest, number_at(row, "total_duration_ns").value_or(0.0));
  }
  const double bar = 34;
  const double gap = 10;
  const double height = 200;
  const double left = 70;
  const double top = 16;
  const double width = std::max(300.0, static_cast<double>(rows.size()) * (bar + gap) + gap);
  std::string svg = fmt::format(
      "<svg class=\"rounds-chart\" viewBox=\"0 0 {} {}\" role=\"img\"><title>GPU time per round "
      "and candidate (best marked, failed rounds hatched)</title>",
      left + width + 10, top + height + 56);
  for (int tick = 0; tick <= 4; ++tick) {
    const double value = longest * tick / 4.0;
    const double y = top + height - height * tick / 4.0;
    svg += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text "
                       "x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
                       left, fixed(y, 1), left + width, left - 5, fixed(y + 4, 1),
                       esc(longest > 0 ? format_with_unit(value, "ns") : std::string("0")));
  }
  double x = left + gap;
  for (const Json& row : rows) {
    const std::string status = text_at(row, "status");
    const std::optional<double> duration = number_at(row, "total_duration_ns");
    const bool best = json_read::bool_at(row, "best").value_or(false);
    const bool failed = status == "failed" || !duration;
    std::string cls = "bar";
    std::string tip = row_name(row) + ": ";
    double h = 0;
    if (failed) {
      cls += " failed";
      h = height * 0.12;
      std::string why = status == "failed" ? "failed" : "no duration";
      if (const Json* error = member(row, "error"); error != nullptr && error->is_object()) {
        why += " (" + text_at(*error, "category") + ": " + text_at(*error, "message") + ")";
      }
      tip += why;
    } else {
      h = longest > 0 ? std::max(2.0, *duration / longest * height) : 2.0;
      tip += duration_text(duration, "?") + " (" + status + ")";
      if (best) {
        cls += " best";
        tip += ", best";
      }
    }
    svg += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}"
                       "</title></rect>",
                       cls, fixed(x, 1), fixed(top + height - h, 1), bar, fixed(h, 1), esc(tip));
    if (failed) {
      svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"currentColor\">"
                         "✗</text>",
                         fixed(x + bar / 2, 1), fixed(top + height - h - 4, 1));
    } else if (best) {
      svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">★ best</text>",
                         fixed(x + bar / 2, 1), fixed(top + height - h - 4, 1));
    }
    std::string label = "r" + value_as_text(row.value("round", Json(0)));
    if (const Json* cand = member(row, "candidate"); cand != nullptr && !cand->is_null()) {
      label += ":" + value_as_text(*cand);
    }
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)",
                       fixed(x + bar / 2, 1), top + height + 14, esc(label));
    x += bar + gap;
  }
  svg += fmt::format(R"(<rect class="axis" x="{}" y="{}" width="{}" height="{}"/>)", left, top,
                     width, height);
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">round[:candidate]</text>)",
                     left + width / 2, top + height + 34);
  return "<div class=\"chart\">" + svg + "</svg></div>";
}

std::string rounds_table(const Json& rows) {
  std::string out = "<table class=\"sortable rounds\" id=\"rounds-table\"><thead><tr><th>round"
                    "</th><th class=\"num\">candidate</th><th>label</th><th>status</th><th "
                    "class=\"num\">GPU time</th><th class=\"num\">max SOL</th><th>bottleneck</th>"
                    "<th>dominant kernel</th><th>error</th></tr></thead><tbody>";
  for (const Json& row : rows) {
    const std::string status = text_at(row, "status");
    std::string cls;
    if (status == "failed") {
      cls = "failed";
    }
    if (json_read::bool_at(row, "best").value_or(false)) {
      cls += cls.empty() ? "best" : " best";
    }
    const std::optional<double> round = number_at(row, "round");
    const std::optional<double> cand = number_at(row, "candidate");
    std::string error;
    if (const Json* e = member(row, "error"); e != nullptr && e->is_object()) {
      error = text_at(*e, "category") + ": " + text_at(*e, "message");
    }
    const bool has_doc = member(row, "document") != nullptr && row["document"].is_object();
    out += fmt::format("<tr class=\"{}\">", cls);
    out += fmt::format(
        "<td data-sort=\"{}\">{}</td>", round ? format_number(*round) : "",
        has_doc ? fmt::format("<a href=\"#{}report\">{}</a>", row_scope(row), esc(row_name(row)))
                : esc(row_name(row)));
    out += num_cell(cand, cand ? format_number(*cand) : std::string("–"));
    out += "<td class=\"mono\">" + esc(text_at(row, "label")) + "</td>";
    out += "<td>" + esc(status) +
           (json_read::bool_at(row, "best").value_or(false) ? " (best)" : "") + "</td>";
    const std::optional<double> duration = number_at(row, "total_duration_ns");
    out += num_cell(duration, duration_text(duration, "–"));
    const std::optional<double> sol = number_at(row, "max_sol_pct");
    out += num_cell(sol, pct_text(sol));
    out += "<td>" + esc(text_at(row, "bottleneck", "–")) + "</td>";
    out += "<td class=\"mono\">" + esc(text_at(row, "dominant_kernel", "–")) + "</td>";
    out += "<td>" + esc(error) + "</td></tr>";
  }
  return out + "</tbody></table>\n";
}

std::string convergence_section(const Json& run) {
  const Json* verdict = member(run, "convergence");
  std::string out = "<h2>Convergence</h2>";
  if (verdict == nullptr || !verdict->is_object()) {
    return out + "<p class=\"note\">No convergence verdict.</p>";
  }
  const bool done = json_read::bool_at(*verdict, "converged").value_or(false);
  out += fmt::format(R"(<p class="convergence"><span class="verdict {}">{}</span> ({}): {}</p>)",
                     done ? "converged" : "not-converged", done ? "converged" : "not converged",
                     esc(text_at(*verdict, "reason")), esc(text_at(*verdict, "details")));
  return out;
}

std::string side_text(const Json& pair, bool as_duration) {
  const std::optional<double> a = number_at(pair, "a");
  const std::optional<double> b = number_at(pair, "b");
  const auto one = [as_duration](std::optional<double> v) {
    return as_duration ? duration_text(v, "–") : pct_text(v);
  };
  return one(a) + " → " + one(b);
}

/// " (2.00× faster)", " (1.25× slower)" or "" when unknown.
std::string speedup_text(std::optional<double> speedup) {
  if (!speedup || !(*speedup > 0)) {
    return {};
  }
  return *speedup >= 1 ? " (" + fixed(*speedup, 2) + "× faster)"
                       : " (" + fixed(1.0 / *speedup, 2) + "× slower)";
}

// Above the tree's cognitive-complexity cap: one table row per diff field.
// NOLINTNEXTLINE(readability-function-cognitive-complexity)
std::string diff_section(const Json& run) {
  std::string out = "<h2>Best round against the first</h2>";
  const Json* diff = member(run, "diff");
  if (diff == nullptr || !diff->is_object()) {
    const std::string why = text_at(run, "diff_error");
    return out + "<p class=\"note diff-absent\">" +
           esc(why.empty() ? "No diff: fewer than two successful rounds." : why) + "</p>";
  }
  const Json empty = Json::object();
  const Json* a = member(*diff, "a");
  const Json* b = member(*diff, "b");
  const Json* total = member(*diff, "total");
  const Json& t = total != nullptr ? *total : empty;
  const Json* total_duration = member(t, "duration_ns");
  const std::optional<double> speedup = number_at(t, "speedup");
  out += fmt::format("<p class=\"diff-total\">{} → {}: total GPU time {}{}</p>",
                     esc(a != nullptr ? text_at(*a, "label", "A") : "A"),
                     esc(b != nullptr ? text_at(*b, "label", "B") : "B"),
                     esc(total_duration != nullptr ? side_text(*total_duration, true) : "?"),
                     speedup_text(speedup));
  const Json* kernels = member(*diff, "kernels");
  const bool kernels_present = kernels != nullptr && kernels->is_array() && !kernels->empty();
  if (!kernels_present) {
    out += "<p class=\"note\">No kernel name appears in both reports.</p>";
  } else {
    out += "<table class=\"diff\"><thead><tr><th>kernel</th><th class=\"num\">GPU time</th>"
           "<th class=\"num\">speedup</th><th>bottleneck</th><th class=\"num\">compute SOL</th>"
           "<th class=\"num\">memory SOL</th><th>moved metrics</th></tr></thead><tbody>";
  }
  if (kernels_present) {
    for (const Json& kernel : *kernels) {
      const std::optional<double> kernel_speedup = number_at(kernel, "speedup");
      std::string bottleneck;
      if (const Json* bn = member(kernel, "bottleneck"); bn != nullptr) {
        bottleneck = value_as_text(bn->value("a", Json(""))) + " → " +
                     value_as_text(bn->value("b", Json("")));
      }
      std::string moved;
      if (const Json* metrics = member(kernel, "moved_metrics");
          metrics != nullptr && metrics->is_array()) {
        std::size_t shown = 0;
        for (const Json& metric : *metrics) {
          if (++shown > 4) {
            break;
          }
          const std::string label = text_at(metric, "label", text_at(metric, "metric"));
          const std::string unit = text_at(metric, "unit");
          const std::optional<double> va = number_at(metric, "a");
          const std::optional<double> vb = number_at(metric, "b");
          moved += "<li>" + esc(label) + ": " +
                   esc(va ? format_with_unit(*va, unit) : std::string("–")) + " → " +
                   esc(vb ? format_with_unit(*vb, unit) : std::string("–")) + "</li>";
        }
      }
      const Json* duration = member(kernel, "duration_ns");
      const Json* compute = member(kernel, "compute_sol_pct");
      const Json* memory = member(kernel, "memory_sol_pct");
      out += fmt::format(
          "<tr><td class=\"mono\">{}</td><td class=\"num\">{}</td>{}<td>{}</td><td "
          "class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
          esc(text_at(kernel, "name")), esc(duration != nullptr ? side_text(*duration, true) : "–"),
          num_cell(kernel_speedup,
                   kernel_speedup ? fixed(*kernel_speedup, 2) + "×" : std::string("–")),
          esc(bottleneck), esc(compute != nullptr ? side_text(*compute, false) : "–"),
          esc(memory != nullptr ? side_text(*memory, false) : "–"),
          moved.empty() ? std::string() : "<ul>" + moved + "</ul>");
    }
    out += "</tbody></table>";
  }
  for (const std::string_view side : {"only_in_a", "only_in_b"}) {
    const Json* names = member(*diff, side);
    if (names != nullptr && names->is_array() && !names->empty()) {
      out += fmt::format("<p>Only in {}:", side == "only_in_a" ? "the first" : "the best");
      for (const Json& name : *names) {
        out += " <span class=\"mono\">" + esc(value_as_text(name)) + "</span>";
      }
      out += "</p>";
    }
  }
  return out;
}

class HtmlSink final : public Sink {
public:
  [[nodiscard]] Format format() const override { return Format::html; }
  [[nodiscard]] std::string render(const Json& doc,
                                   const RenderOptions& /*options*/) const override {
    // Documents other than reports (history, diff, batch, ...) have no page of their own here
    // (`kprof view` draws a run): their table text, escaped, in a minimal page.
    if (auto text = report_detail::artefact_text(doc, Format::table)) {
      return "<!DOCTYPE html>\n<meta charset=\"utf-8\">\n<pre>" + escape_html(*text) + "</pre>\n";
    }
    return render_report_html(doc);
  }
};

/// Appends the UTF-8 encoding of U+FFFD.
void append_replacement(std::string& out) {
  out += "\xEF\xBF\xBD";
}

/// Length of the valid UTF-8 sequence starting at text[i], 0 when invalid.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&text](std::size_t at) { return static_cast<unsigned char>(text[at]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + length > text.size()) {
    return 0;
  }
  if (byte(i + 1) < low || byte(i + 1) > high) {
    return 0;
  }
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) {
      return 0;
    }
  }
  return length;
}

} // namespace

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
        out += static_cast<char>(c);
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          append_replacement(out);
        } else {
          out += static_cast<char>(c);
        }
      }
      ++i;
      continue;
    }
    const std::size_t length = utf8_length(text, i);
    if (length == 0) {
      append_replacement(out);
      ++i;
      continue;
    }
    if (length == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      append_replacement(out); // U+0080..U+009F: C1 controls, like the C0 ones above
      i += length;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

/// "kprof report: a", "kprof report: a and b", "kprof report: a, b and 3 more kernels": the
/// report's kernels longest first, so that a two-kernel capture is not titled with one of them.
std::string report_title(const Json& doc) {
  const std::vector<ReportKernel> kernels = ReportView(doc).kernels_by_duration();
  std::string title = "kprof report";
  for (std::size_t i = 0; i < kernels.size() && i < 2; ++i) {
    title += (i == 0 ? ": " : kernels.size() == 2 ? " and " : ", ") + kernels[i].name;
  }
  if (kernels.size() > 2) {
    title +=
        fmt::format(" and {} more kernel{}", kernels.size() - 2, kernels.size() == 3 ? "" : "s");
  }
  return title;
}

std::string render_report_html(const Json& doc) {
  const std::string title = report_title(doc);
  std::string out = page_start(title);
  out += "<header><h1>" + esc(title) + "</h1>" + header_facts(doc) + "</header>\n<main>";
  out += report_body(doc, "", "h2");
  out += "</main>\n";
  return out + page_end(doc);
}

std::string render_run_html(const Json& run) {
  const std::string directory = text_at(run, "directory");
  const Json empty_rows = Json::array();
  const Json* rows_ptr = member(run, "rows");
  const Json& rows = rows_ptr != nullptr && rows_ptr->is_array() ? *rows_ptr : empty_rows;
  // The header facts come from the best row's document, else the first document.
  const Json* facts = nullptr;
  for (const Json& row : rows) {
    const Json* doc = member(row, "document");
    if (doc != nullptr && doc->is_object() &&
        (facts == nullptr || json_read::bool_at(row, "best").value_or(false))) {
      facts = doc;
    }
  }
  // Details pages do not name the GPU; take it from another round when the chosen one lacks it.
  Json header_doc = facts != nullptr ? *facts : Json::object();
  if (header_doc.is_object() && header_doc.contains("metadata") &&
      text_at(header_doc["metadata"], "gpu").empty()) {
    for (const Json& row : rows) {
      const Json* doc = member(row, "document");
      const Json* meta = doc != nullptr ? member(*doc, "metadata") : nullptr;
      if (meta != nullptr && !text_at(*meta, "gpu").empty()) {
        header_doc["metadata"]["gpu"] = text_at(*meta, "gpu");
        break;
      }
    }
  }
  const std::string title = "kprof run: " + (directory.empty() ? std::string("?") : directory);
  std::string out = page_start(title);
  out += "<header><h1>" + esc(title) + "</h1>";
  out += fmt::format("<p class=\"summary\">{} row{} recorded in <code>{}</code>.</p>", rows.size(),
                     rows.size() == 1 ? "" : "s", esc(directory + "/kprof.db"));
  if (facts != nullptr) {
    out += header_facts(header_doc);
  }
  out += "</header>\n<main>";
  out += convergence_section(run);
  out += "<h2>Rounds</h2>";
  if (rows.empty()) {
    out += "<p class=\"note\">No rounds recorded.</p>";
  } else {
    out += rounds_chart(rows);
    out += rounds_table(rows);
  }
  out += diff_section(run);
  out += "<h2>Reports</h2>";
  for (const Json& row : rows) {
    const Json* doc = member(row, "document");
    const std::string scope = row_scope(row);
    const bool best = json_read::bool_at(row, "best").value_or(false);
    out += fmt::format("<details class=\"round\" id=\"{}report\"{}><summary>{}{} — {}</summary>",
                       scope, best ? " open" : "", esc(row_name(row)), best ? " (best)" : "",
                       esc(text_at(row, "status")));
    if (doc != nullptr && doc->is_object()) {
      out += report_body(*doc, scope, "h3");
    } else {
      std::string why = "No report: the round failed.";
      if (const Json* error = member(row, "error"); error != nullptr && error->is_object()) {
        why = "No report: " + text_at(*error, "category") + ": " + text_at(*error, "message");
      }
      out += "<p class=\"note\">" + esc(why) + "</p>";
    }
    out += "</details>\n";
  }
  out += "</main>\n";
  return out + page_end(facts != nullptr ? *facts : Json::object());
}

namespace report_detail {
std::unique_ptr<Sink> make_html_sink() {
  return std::make_unique<HtmlSink>();
}
} // namespace report_detail

} // namespace kprof

#include "cli/text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kprof/harness.hpp"
#include "kprof/json_file.hpp"
#include "kprof/status.hpp"

namespace kprof::cli {

std::string metric_set_listing_text(const MetricSet& set, Format format, bool list_other_sets) {
  if (format == Format::json) {
    Json out = Json::object();
    out["name"] = set.name;
    out["description"] = set.description;
    out["metrics"] = Json::array();
    for (const auto& m : set.metrics) {
      out["metrics"].push_back({{"name", m.name}, {"label", m.label}, {"group", m.group}});
    }
    out["sections"] = set.sections;
    return out.dump(2) + "\n";
  }
  if (format == Format::csv) {
    std::string text = "name,label,group\n";
    for (const auto& m : set.metrics) {
      text += fmt::format("{},\"{}\",{}\n", m.name, m.label, m.group);
    }
    return text;
  }
  std::string text = fmt::format("metric set '{}': {}\n", set.name, set.description);
  std::size_t width = 0;
  for (const auto& m : set.metrics) {
    width = std::max(width, m.name.size());
  }
  for (const auto& m : set.metrics) {
    text += fmt::format("  {:<{}}  {:<14} {}\n", m.name, width, m.group, m.label);
  }
  for (const auto& s : set.sections) {
    text += fmt::format("  section {}\n", s);
  }
  if (list_other_sets) {
    text += "other sets:";
    for (const auto& s : builtin_metric_sets()) {
      text += " " + s.name;
    }
    text += "\n";
  }
  return text;
}

std::string metric_check_passed_text(const MetricSet& set, const std::string& listing_file) {
  return fmt::format("all {} metrics of set '{}' are known to {}\n", set.metrics.size(), set.name,
                     listing_file);
}

std::string unknown_metrics_text(const std::vector<std::string>& unknown) {
  std::string text;
  for (const auto& name : unknown) {
    text += fmt::format("unknown: {}\n", name);
  }
  return text;
}

std::string batch_ranking_text(const RoundResult& round, Format format) {
  std::vector<const CandidateResult*> order;
  for (const auto& c : round.candidates) {
    order.push_back(&c);
  }
  auto total = [](const CandidateResult* c) -> double {
    if (!c->report) {
      return 1e300;
    }
    const auto& t = (*c->report)["summary"]["total_duration_ns"];
    return t.is_number() ? t.get<double>() : 1e299;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](auto* a, auto* b) { return total(a) < total(b); });
  if (format == Format::json) {
    Json out = Json::object();
    out["schema_version"] = k_report_schema_version;
    out["metadata"] = round.metadata;
    out["candidates"] = Json::array();
    for (const auto* c : order) {
      Json line = Json::object();
      line["candidate"] = c->index;
      line["kernel_file"] = c->kernel.string();
      line["status"] = std::string(to_string(c->status));
      line["gpu"] = c->gpu;
      line["dir"] = c->dir.string();
      line["report"] = c->report ? *c->report : Json(nullptr);
      line["error"] = c->error ? Json{{"category", std::string(to_string(c->error->category))},
                                      {"message", c->error->message},
                                      {"detail", c->error->detail}}
                               : Json(nullptr);
      out["candidates"].push_back(std::move(line));
    }
    return json_text(out, 2);
  }
  std::string text = fmt::format("round {}: {} candidates in {:.1f} s\n", round.round,
                                 round.candidates.size(), round.wall_seconds);
  text += fmt::format("{:<4} {:<5} {:<8} {:>12}  {:<28} {}\n", "rank", "cand", "status", "GPU time",
                      "dominant kernel", "file / error");
  int rank = 1;
  for (const auto* c : order) {
    std::string time = "-";
    std::string dominant = "-";
    if (c->report) {
      const auto& s = (*c->report)["summary"];
      if (s["total_duration_ns"].is_number()) {
        time = fmt::format("{:.2f} us", s["total_duration_ns"].get<double>() / 1000.0);
      }
      dominant = s["dominant_kernel"].is_string() ? s["dominant_kernel"].get<std::string>() : "-";
      if (dominant.size() > 28) {
        dominant = dominant.substr(0, 27) + "~";
      }
    }
    const std::string last =
        c->error ? fmt::format("{}: {}", to_string(c->error->category), c->error->message)
                 : c->kernel.filename().string();
    text += fmt::format("{:<4} {:<5} {:<8} {:>12}  {:<28} {}\n",
                        c->report ? std::to_string(rank++) : "-", c->index, to_string(c->status),
                        time, dominant, last);
  }
  return text;
}

std::string doctor_lines_text(const std::vector<DoctorCheck>& checks) {
  std::string text;
  bool failed = false;
  for (const auto& check : checks) {
    text += fmt::format("{:<9} {}  {}\n", check.name, check.ok ? "ok  " : "FAIL", check.detail);
    failed = failed || (!check.ok && check.error);
  }
  text += failed ? "profiling will not work here until the first failure above is fixed\n"
                 : "profiling can work here\n";
  return text;
}

std::string harness_written_text(const std::string& script, const std::string& plan) {
  return fmt::format("wrote {} and {}\nrun it:     python3 {} {}\nunder ncu:  ncu --nvtx "
                     "--nvtx-include '{}' ... python3 {} {}\n",
                     script, plan, script, plan, nvtx_include_for_ranges(), script, plan);
}

} // namespace kprof::cli

// `kprof report FILE`: a capture read, selected and analysed; or a report.json kprof wrote,
// analysed again from what it was built from.
//
// A report names what it was built from in metadata.built_from (ReportInputs): the rows (the
// ncu CSV page), the source page, the candidate's NVTX range, the filters and whether every
// column was kept. Its own select, metric set and run facts (round, candidate, kernel_file, ...)
// are in its metadata too, so that the running kprof makes the same document from the same
// input, with its own analysis and diagnosis. A report of an earlier kprof has no built_from:
// a profiled round's rows are then where that kprof kept them (the session's ncu.log), and a
// report of a capture names its file in metadata.source.
#include "kprof/report_file.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kprof/files.hpp"
#include "kprof/harness.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "kprof/report_view.hpp"
#include "kprof/round_layout.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_built_from = "built_from";

/// The metadata keys build_report sets itself, and those a re-analysis makes again: a report's
/// other metadata (the run's facts) is carried over as it is.
constexpr std::array<std::string_view, 11> k_made_again = {
    "kprof_version", "source", "generated_at", "page",       "gpu",       "gpu_spec",
    "metric_set",    "select", "hot_lines",    k_built_from, "reanalysis"};

Json path_json(const std::optional<fs::path>& path) {
  return path ? Json(path->string()) : Json(nullptr);
}

Result<std::optional<fs::path>> path_member(const Json& object, std::string_view key) {
  const Json* value = json_read::member(object, key);
  if (value == nullptr || value->is_null()) {
    return std::optional<fs::path>();
  }
  if (!value->is_string() || value->get<std::string>().empty()) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("metadata.built_from.{} is not a path", key));
  }
  return std::optional<fs::path>(value->get<std::string>());
}

/// The first bytes of `path` start a JSON object: a kprof document, never ncu's output (which
/// starts with `==` lines or a quoted header).
bool looks_like_json(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c)) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      return c == '{';
    }
  }
  return false;
}

/// The report.json a directory argument means: its own (a plain round, a batch candidate's
/// directory), else a usage error for a batch round (naming its candidates) or a failed round;
/// nullopt for any other directory (reading it says what it is).
Result<std::optional<fs::path>> report_in_directory(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_regular_file(dir / RoundLayout::k_report, ec)) {
    return std::optional<fs::path>(dir / RoundLayout::k_report);
  }
  if (fs::is_regular_file(dir / RoundLayout::k_batch, ec)) {
    std::vector<std::string> candidates;
    for (int k = 0; k < 1000; ++k) {
      const fs::path candidate = RoundLayout::candidate_dir(dir, k);
      if (!fs::exists(candidate, ec)) {
        break;
      }
      if (fs::is_regular_file(candidate / RoundLayout::k_report, ec)) {
        candidates.push_back((candidate / RoundLayout::k_report).string());
      }
    }
    return make_error(ErrorCategory::usage,
                      fmt::format("{} is a batch round: give one of its candidates' reports{}{}",
                                  dir.string(), candidates.empty() ? " (it has none)" : ": ",
                                  fmt::join(candidates, ", ")));
  }
  if (fs::is_regular_file(dir / RoundLayout::k_error, ec)) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("{} is a failed round ({} says why): it has no report to "
                                  "analyse again",
                                  dir.string(), (dir / RoundLayout::k_error).string()));
  }
  return std::optional<fs::path>();
}

/// `path` made usable from here: a relative one is relative to the report's directory.
fs::path resolved(const fs::path& path, const fs::path& report_dir) {
  std::error_code ec;
  const fs::path joined = path.is_absolute() ? path : report_dir / path;
  const fs::path absolute = fs::absolute(joined, ec);
  return (ec ? joined : absolute).lexically_normal();
}

/// What a report of an earlier kprof (no built_from) was built from: a profiled round's rows
/// in its session's ncu.log (and the source page beside it), a capture's in metadata.source.
Result<ReportInputs> legacy_inputs(const Json& metadata, const fs::path& report,
                                   std::string_view version) {
  ReportInputs inputs;
  const std::string session_dir = json_read::text_at(metadata, "session_dir");
  if (!session_dir.empty()) {
    const Json* candidate = json_read::member(metadata, "candidate");
    const bool batch = candidate != nullptr && candidate->is_number_integer();
    const fs::path session = (batch ? fs::path("..") : fs::path()) / session_dir;
    inputs.rows = (session / RoundLayout::k_ncu_log).lexically_normal();
    const Json* hot_lines = json_read::member(metadata, "hot_lines");
    if (hot_lines != nullptr && !json_read::text_at(*hot_lines, "source_page").empty()) {
      inputs.source_page = (session / RoundLayout::k_source_page).lexically_normal();
    }
    inputs.nvtx_range = candidate_range(batch ? candidate->get<int>() : 0);
    inputs.all_columns = true;
    return inputs;
  }
  const std::string source = json_read::text_at(metadata, "source");
  if (!source.empty() && source != std::string(k_stdin_path) && source != "<stdin>") {
    inputs.rows = fs::path(source);
    return inputs;
  }
  return make_error(ErrorCategory::malformed_input,
                    fmt::format("{} does not say what it was built from (written by kprof {}, "
                                "before reports kept metadata.built_from, from {}): make the "
                                "report again from its capture with `kprof report CAPTURE`",
                                report.string(),
                                version.empty() ? "of an unknown version" : version,
                                source.empty() ? "an unnamed capture" : "standard input"));
}

/// The metric set a report shows, as `--metrics` spells it: its name, or the list of a custom
/// set's metric names.
std::string metrics_word(const Json& metadata) {
  const Json* set = json_read::member(metadata, "metric_set");
  if (set == nullptr) {
    return std::string(ReportFileRequest::k_default_metrics);
  }
  const std::string name = json_read::text_at(*set, "name");
  const Json* metrics = json_read::member(*set, "metrics");
  if (name == "custom" && metrics != nullptr && metrics->is_array()) {
    std::vector<std::string> names;
    for (const Json& metric : *metrics) {
      names.push_back(json_read::text_at(metric, "name"));
    }
    return fmt::format("{}", fmt::join(names, ","));
  }
  return name.empty() ? std::string(ReportFileRequest::k_default_metrics) : name;
}

/// Reads the source page at `path` (a CSV, or exported from an .ncu-rep through ncu).
Result<SourcePage> source_page_at(const fs::path& path, std::optional<NcuInstall>& ncu,
                                  const std::optional<fs::path>& ncu_option) {
  if (!looks_like_ncu_report(path)) {
    return read_source_page(path);
  }
  if (!ncu) {
    auto located = locate_ncu(ncu_option);
    if (!located) {
      return located.error().with_context(
          fmt::format("{} is an Nsight Compute report and needs ncu to be read", path.string()));
    }
    ncu = std::move(located).value();
  }
  auto text = export_source_page(*ncu, path);
  if (!text) {
    return std::move(text).error();
  }
  return parse_source_page(*text, path.string());
}

/// What read_capture reads: a capture, how, and what the report's metadata gets besides.
struct CaptureRequest {
  fs::path file;
  std::string select;
  std::string metrics;
  SelectOptions filters; ///< kernel filters and NVTX range (select is set from `select`)
  bool all_columns = false;
  std::optional<fs::path> source_page;
  bool source = false;
  std::optional<fs::path> ncu;
  fs::path triton_cache;
};

Result<ReportFileParts> read_capture(const CaptureRequest& request, Json run) {
  auto set = resolve_metric_set(request.metrics, MetricSetUse::read);
  if (!set) {
    return std::move(set).error();
  }
  auto select = parse_select(request.select);
  if (!select) {
    return std::move(select).error();
  }
  std::optional<NcuInstall> ncu;
  if (looks_like_ncu_report(request.file)) {
    auto located = locate_ncu(request.ncu);
    if (!located) {
      return located.error().with_context(fmt::format(
          "{} is an Nsight Compute report and needs ncu to be read", request.file.string()));
    }
    ncu = std::move(located).value();
  }
  const ReadOptions read = request.all_columns ? ReadOptions{} : read_options_for(*set);
  auto capture = load_capture(request.file, ncu ? &*ncu : nullptr, read);
  if (!capture) {
    return std::move(capture).error();
  }
  SelectOptions options = request.filters;
  options.select = *select;
  auto analysis = analyse(*capture, options);
  if (!analysis) {
    return analysis.error().with_context(request.file.string());
  }
  std::optional<SourcePage> page;
  std::optional<fs::path> page_file = request.source_page;
  if (request.source && !page_file) {
    if (!ncu) {
      return make_error(ErrorCategory::usage,
                        fmt::format("--source exports the source page of an .ncu-rep report; {} "
                                    "is not one (give its source page with --source-page FILE)",
                                    request.file.string()));
    }
    page_file = request.file;
  }
  if (page_file) {
    auto read_page = source_page_at(*page_file, ncu, request.ncu);
    if (!read_page) {
      return std::move(read_page).error();
    }
    page = std::move(read_page).value();
  }
  run["select"] = std::string(to_string(*select));
  if (page_file) {
    run["hot_lines"] = Json{{"source_page", page_file->string()}, {"error", nullptr}};
  }
  // What the next `kprof report` of this report reads again (absolute: this document may be
  // written anywhere).
  ReportInputs inputs;
  if (request.file != fs::path(k_stdin_path)) {
    inputs.rows = resolved(request.file, fs::current_path());
  }
  if (page_file) {
    inputs.source_page = resolved(*page_file, fs::current_path());
  }
  inputs.nvtx_range = request.filters.nvtx_range;
  inputs.kernels = request.filters.kernel_filters;
  inputs.all_columns = request.all_columns;
  run[k_built_from] = to_json(inputs);
  ReportFileParts parts{std::move(capture).value(),
                        std::move(analysis).value(),
                        std::move(set).value(),
                        std::move(run),
                        std::move(ncu),
                        std::move(page),
                        page_file.value_or(fs::path()),
                        request.triton_cache,
                        false,
                        std::nullopt};
  if (parts.triton_cache.empty()) {
    parts.triton_cache = triton_cache_dir();
  }
  return parts;
}

/// The report.json at `report`, analysed again (see the note at the top).
Result<ReportFileParts> reanalyse(const ReportFileRequest& request, const fs::path& report) {
  auto loaded = load_report(report);
  if (!loaded) {
    return std::move(loaded).error();
  }
  const Json& metadata = loaded->at("metadata");
  const std::string version = json_read::text_at(metadata, "kprof_version");
  Result<ReportInputs> inputs = make_error(ErrorCategory::internal, "unread");
  if (const Json* built_from = json_read::member(metadata, k_built_from); built_from != nullptr) {
    inputs = report_inputs_from_json(*built_from);
  } else {
    inputs = legacy_inputs(metadata, report, version);
  }
  if (!inputs) {
    return inputs.error().with_context(fmt::format("while reading {}", report.string()));
  }
  if (!inputs->rows) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("{} was built from standard input, which cannot be read "
                                  "again: make the report again from its capture with `kprof "
                                  "report CAPTURE`",
                                  report.string()));
  }
  const fs::path report_dir = report.parent_path().empty() ? fs::path(".") : report.parent_path();
  CaptureRequest capture;
  capture.file = resolved(*inputs->rows, report_dir);
  std::error_code ec;
  if (!fs::exists(capture.file, ec)) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{} was built from {}, which is missing", report.string(),
                                  capture.file.string()));
  }
  capture.select = request.select.value_or(json_read::text_at(metadata, "select"));
  if (capture.select.empty()) {
    capture.select = std::string(ReportFileRequest::k_default_select);
  }
  capture.metrics = request.metrics.value_or(metrics_word(metadata));
  capture.filters.kernel_filters = request.kernels.empty() ? inputs->kernels : request.kernels;
  capture.filters.nvtx_range = inputs->nvtx_range;
  capture.all_columns = inputs->all_columns;
  if (inputs->source_page) {
    capture.source_page = resolved(*inputs->source_page, report_dir);
    if (!fs::exists(*capture.source_page, ec)) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("{} was built with the source page {}, which is missing",
                                    report.string(), capture.source_page->string()));
    }
  }
  capture.ncu = request.ncu;
  capture.triton_cache = request.triton_cache;
  // The run's facts as the report holds them; what the analysis makes is made again.
  Json run = Json::object();
  for (const auto& [key, value] : metadata.items()) {
    if (std::find(k_made_again.begin(), k_made_again.end(), key) == k_made_again.end()) {
      run[key] = value;
    }
  }
  const Json reanalysis = {{"report", resolved(report, fs::current_path()).string()},
                           {"kprof_version", version},
                           {"generated_at", json_read::text_at(metadata, "generated_at")}};
  auto parts = read_capture(capture, std::move(run));
  if (!parts) {
    return parts.error().with_context(fmt::format("while analysing {} again", report.string()));
  }
  parts->run["reanalysis"] = reanalysis;
  parts->reanalysis = true;
  if (const Json* workload = json_read::member(*loaded, "workload"); workload != nullptr) {
    parts->workload = *workload;
  }
  return parts;
}

} // namespace

Json to_json(const ReportInputs& inputs) {
  return Json{{"rows", path_json(inputs.rows)},
              {"source_page", path_json(inputs.source_page)},
              {"nvtx_range", inputs.nvtx_range.empty() ? Json(nullptr) : Json(inputs.nvtx_range)},
              {"kernels", inputs.kernels},
              {"all_columns", inputs.all_columns}};
}

Result<ReportInputs> report_inputs_from_json(const Json& built_from) {
  if (!built_from.is_object()) {
    return make_error(ErrorCategory::malformed_input, "metadata.built_from is not an object");
  }
  ReportInputs inputs;
  auto rows = path_member(built_from, "rows");
  if (!rows) {
    return std::move(rows).error();
  }
  inputs.rows = *rows;
  auto page = path_member(built_from, "source_page");
  if (!page) {
    return std::move(page).error();
  }
  inputs.source_page = *page;
  inputs.nvtx_range = json_read::text_at(built_from, "nvtx_range");
  if (const Json* kernels = json_read::member(built_from, "kernels"); kernels != nullptr) {
    if (!kernels->is_array()) {
      return make_error(ErrorCategory::malformed_input,
                        "metadata.built_from.kernels is not an array of names");
    }
    for (const Json& name : *kernels) {
      if (!name.is_string()) {
        return make_error(ErrorCategory::malformed_input,
                          "metadata.built_from.kernels is not an array of names");
      }
      inputs.kernels.push_back(name.get<std::string>());
    }
  }
  const Json* all = json_read::member(built_from, "all_columns");
  inputs.all_columns = all != nullptr && all->is_boolean() && all->get<bool>();
  return inputs;
}

Result<ReportFileParts> read_report_file(const ReportFileRequest& request) {
  std::error_code ec;
  std::optional<fs::path> report;
  if (fs::is_directory(request.file, ec)) {
    auto found = report_in_directory(request.file);
    if (!found) {
      return std::move(found).error();
    }
    report = *found;
  } else if (request.file != fs::path(k_stdin_path) && fs::is_regular_file(request.file, ec) &&
             looks_like_json(request.file)) {
    report = request.file;
  }
  if (report) {
    if (request.source || request.source_page) {
      return make_error(ErrorCategory::usage,
                        fmt::format("{} is a kprof report: it is analysed again with the source "
                                    "page it was built with; --source and --source-page apply "
                                    "to a capture",
                                    report->string()));
    }
    return reanalyse(request, *report);
  }
  CaptureRequest capture;
  capture.file = request.file;
  capture.select = request.select.value_or(std::string(ReportFileRequest::k_default_select));
  capture.metrics = request.metrics.value_or(std::string(ReportFileRequest::k_default_metrics));
  capture.filters.kernel_filters = request.kernels;
  capture.source_page = request.source_page;
  capture.source = request.source;
  capture.ncu = request.ncu;
  capture.triton_cache = request.triton_cache;
  return read_capture(capture, Json::object());
}

Result<Json> report_file_document(const ReportFileParts& parts) {
  Json doc = build_report(parts.capture, parts.analysis, parts.metrics, parts.run);
  if (parts.workload) {
    doc["workload"] = *parts.workload;
  }
  if (!parts.source_page) {
    return doc;
  }
  auto attached = attach_hot_lines(doc, parts.capture, *parts.source_page, parts.triton_cache);
  if (!attached) {
    if (!parts.reanalysis) {
      return attached.error().with_context(
          fmt::format("hot lines of {}", parts.source_page_file.string()));
    }
    doc["metadata"]["hot_lines"]["error"] = to_json(std::optional<Error>(attached.error()));
  }
  return doc;
}

} // namespace kprof

// The tools of `kprof mcp` (see tools.hpp): the table, argument checks, and the tools that read
// what exists (report, diff, history, hot_lines, diagnosis). profile and batch are in
// round_tools.cpp.
#include "mcp/tools.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "kprof/analysis.hpp"
#include "kprof/harness.hpp"
#include "kprof/history.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/options.hpp"
#include "kprof/report.hpp"
#include "kprof/report_file.hpp"
#include "kprof/report_view.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/source_page.hpp"
#include "mcp/tool_support.hpp"

namespace kprof::mcp {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t k_min_token_budget = 100;
constexpr std::size_t k_max_token_budget = 1000000;
constexpr std::size_t k_detail_lines = 30; ///< of a traceback or ncu log

std::string_view json_type_name(const Json& value) {
  if (value.is_boolean()) {
    return "a boolean";
  }
  if (value.is_number_integer() || value.is_number_unsigned()) {
    return "an integer";
  }
  if (value.is_number()) {
    return "a number with a fraction";
  }
  if (value.is_string()) {
    return "a string";
  }
  if (value.is_array()) {
    return "a list";
  }
  if (value.is_null()) {
    return "null";
  }
  return "an object";
}

bool has_json_type(const Json& value, std::string_view type) {
  if (type == "string") {
    return value.is_string();
  }
  if (type == "integer") {
    return value.is_number_integer() || value.is_number_unsigned();
  }
  if (type == "number") {
    return value.is_number();
  }
  if (type == "boolean") {
    return value.is_boolean();
  }
  if (type == "array") {
    return value.is_array();
  }
  if (type == "object") {
    return value.is_object();
  }
  return type == "null" && value.is_null();
}

std::string_view type_words(std::string_view type) {
  if (type == "integer") {
    return "an integer";
  }
  if (type == "array") {
    return "a list";
  }
  if (type == "object") {
    return "an object";
  }
  if (type == "boolean") {
    return "a boolean";
  }
  if (type == "number") {
    return "a number";
  }
  return type == "null" ? "null" : "a string";
}

/// Whether `value` matches the "type" (and "items" type) of `schema`, and the words of what
/// it must be.
bool matches(const Json& schema, const Json& value, std::string& expected) {
  std::vector<std::string> types;
  if (schema.contains("type") && schema["type"].is_string()) {
    types.push_back(schema["type"].get<std::string>());
  } else if (schema.contains("type") && schema["type"].is_array()) {
    types = schema["type"].get<std::vector<std::string>>();
  }
  if (types.empty()) {
    return true;
  }
  std::vector<std::string> words;
  for (const std::string& type : types) {
    std::string word(type_words(type));
    if (type == "array" && schema.contains("items") && schema["items"].contains("type")) {
      word = schema["items"]["type"] == "integer" ? "a list of integers" : "a list of strings";
    }
    words.push_back(word);
  }
  expected = fmt::format("{}", fmt::join(words, " or "));
  for (const std::string& type : types) {
    if (!has_json_type(value, type)) {
      continue;
    }
    if (type == "array" && schema.contains("items")) {
      std::string inner;
      const bool all = std::all_of(value.begin(), value.end(), [&](const Json& item) {
        return matches(schema["items"], item, inner);
      });
      if (!all) {
        continue;
      }
    }
    return true;
  }
  return false;
}

// ---- the tools that read what exists -----------------------------------------------------------

/// A round's report outline (report_outline: one launch per kernel name, all that hot_lines and
/// diagnosis read): from `report` (a report.json) or from `dir` and `round` (the history's
/// document, else roundNNN/[candK/]report.json), read as a stream, so a round of 150,000
/// launches is read in the memory of a few.
struct RoundDocument {
  Json doc;
  std::string label; ///< "round 3", or the file
  std::optional<fs::path> file;
};

/// What a tool reads of a report.json: all of it (diff), or its outline (report, hot_lines,
/// diagnosis: what their text and facts draw, one launch per kernel name).
enum class ReportPart { whole, outline };

/// load_report() (or load_report_outline()) of a regular file: a FIFO, device, socket or
/// directory is refused unopened (input_not_found saying what it is), as the capture reader
/// refuses one, so no call blocks.
Result<Json> load_report_file(const fs::path& path, ReportPart part) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!ec && fs::exists(status) && !fs::is_regular_file(status)) {
    const std::string_view what = fs::is_directory(status) ? "a directory"
                                  : fs::is_fifo(status)    ? "a FIFO"
                                  : fs::is_socket(status)  ? "a socket"
                                  : fs::is_character_file(status) || fs::is_block_file(status)
                                      ? "a device"
                                      : "no regular file";
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{} is {}, not a file", path.string(), what));
  }
  return part == ReportPart::outline ? load_report_outline(path) : load_report(path);
}

std::string ref_text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

Result<HistoryStore> open_history(const fs::path& dir) {
  const fs::path db = RoundLayout(dir).history_db();
  std::error_code ec;
  if (!fs::exists(db, ec)) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("no history in {} (expected {})", dir.string(), db.string()));
  }
  return HistoryStore::open_read_only(db);
}

Result<RoundDocument> round_document(const Json& arguments, ToolContext& context) {
  if (arguments.contains("report")) {
    if (arguments.contains("dir") || arguments.contains("round")) {
      return make_error(ErrorCategory::usage,
                        "give either report (a report.json) or dir and round, not both");
    }
    const fs::path file = text_argument(arguments, "report");
    auto doc = load_report_file(file, ReportPart::outline);
    if (!doc) {
      return std::move(doc).error();
    }
    std::error_code ec;
    context.resources().add_report_file(file);
    return RoundDocument{std::move(doc).value(), file.string(), fs::absolute(file, ec)};
  }
  if (!arguments.contains("dir") || !arguments.contains("round")) {
    return make_error(ErrorCategory::usage, "give report (a report.json), or dir (a run "
                                            "directory) and round (N or N:CANDIDATE)");
  }
  const fs::path dir = text_argument(arguments, "dir");
  auto ref = parse_round_ref(ref_text(arguments["round"]));
  if (!ref) {
    return std::move(ref).error();
  }
  std::error_code ec;
  const RoundLayout layout(dir);
  if (fs::exists(layout.history_db(), ec)) {
    auto store = open_history(dir);
    if (!store) {
      return std::move(store).error();
    }
    auto resolved = store->resolve(*ref);
    if (!resolved) {
      return std::move(resolved).error();
    }
    auto doc = store->document_outline(*resolved);
    if (!doc) {
      return std::move(doc).error();
    }
    context.resources().add_run_dir(dir);
    const fs::path file =
        RoundLayout::candidate_dir(layout.round_dir(resolved->round), resolved->candidate) /
        RoundLayout::k_report;
    return RoundDocument{std::move(doc).value(), to_string(*resolved),
                         fs::exists(file, ec) ? std::optional<fs::path>(fs::absolute(file, ec))
                                              : std::nullopt};
  }
  const fs::path file = RoundLayout::candidate_dir(layout.round_dir(ref->round), ref->candidate) /
                        RoundLayout::k_report;
  auto doc = load_report_file(file, ReportPart::outline);
  if (!doc) {
    return std::move(doc).error();
  }
  context.resources().add_run_dir(dir);
  return RoundDocument{std::move(doc).value(), to_string(*ref), fs::absolute(file, ec)};
}

/// The source page for hot lines: the one given, or exported from the .ncu-rep.
Result<SourcePage> source_page_for(const fs::path& capture_file, const std::string& page_file,
                                   const NcuInstall* ncu) {
  if (!page_file.empty()) {
    return read_source_page(page_file);
  }
  if (ncu == nullptr) {
    return make_error(ErrorCategory::usage,
                      fmt::format("source exports the source page of an .ncu-rep report; {} is "
                                  "not one (give its source page as source_page)",
                                  capture_file.string()));
  }
  auto text = export_source_page(*ncu, capture_file);
  if (!text) {
    return std::move(text).error();
  }
  return parse_source_page(*text, capture_file.string());
}

/// A capture's report as `kprof report FILE` reads it (read_report_file): without hot lines a
/// CaptureReport, whose outline (one launch per kernel name) is all that the text and the
/// summary draw, so the launches are never held; with hot lines (source, source_page) the tree
/// they are attached to, as the CLI builds it.
struct CaptureDocument {
  std::unique_ptr<ReportFileParts> parts; ///< what `report` reads
  std::unique_ptr<Json> tree;             ///< with hot lines only
  std::unique_ptr<ReportSource> report;   ///< over `parts`, or over `tree`
};

Result<CaptureDocument> capture_report(const fs::path& file, const Json& arguments,
                                       const McpSettings& settings) {
  ReportFileRequest request;
  request.file = file;
  request.select =
      text_argument(arguments, "select", std::string(ReportFileRequest::k_default_select));
  request.kernels = names_argument(arguments, "kernels");
  request.metrics =
      text_argument(arguments, "metrics", std::string(ReportFileRequest::k_default_metrics));
  if (const Json ncu = settings.run_options.value("ncu", Json(nullptr)); ncu.is_string()) {
    request.ncu = fs::path(ncu.get<std::string>());
  }
  auto read = read_report_file(request);
  if (!read) {
    return std::move(read).error();
  }
  CaptureDocument out;
  out.parts = std::make_unique<ReportFileParts>(std::move(read).value());
  const ReportFileParts& parts = *out.parts;
  const std::string page_file = text_argument(arguments, "source_page");
  if (!arguments.value("source", false) && page_file.empty()) {
    out.report = std::make_unique<CaptureReport>(parts.capture, parts.analysis, parts.metrics,
                                                 parts.run, parts.kept_members);
    return out;
  }
  out.tree =
      std::make_unique<Json>(build_report(parts.capture, parts.analysis, parts.metrics, parts.run));
  for (const auto& [key, value] : parts.kept_members.items()) {
    (*out.tree)[key] = value; // a report.json's workload and truth, as its round wrote them
  }
  auto page = source_page_for(file, page_file, parts.ncu ? &*parts.ncu : nullptr);
  if (!page) {
    return std::move(page).error();
  }
  if (auto attached = attach_hot_lines(*out.tree, parts.capture, *page, triton_cache_dir());
      !attached) {
    return attached.error().with_context(
        fmt::format("hot lines of {}", page_file.empty() ? file.string() : page_file));
  }
  out.report = std::make_unique<HeldReport>(*out.tree);
  return out;
}

/// Where the text says the whole report is: its resource, or why there is none.
std::string whole_report_words(const std::string& uri, const fs::path& file) {
  if (!uri.empty()) {
    return uri;
  }
  return fmt::format("not kept, its JSON being longer than {} MiB, the most resources/read "
                     "returns; `kprof report {} --format json --out FILE` writes it",
                     k_max_resource_bytes >> 20U, file.string());
}

ToolResult run_report(const Json& arguments, ToolContext& context) {
  const fs::path file = text_argument(arguments, "path");
  if (file == k_stdin_path) {
    return error_result(make_error(ErrorCategory::usage,
                                   "path '-' (standard input) carries the MCP messages here; "
                                   "give the capture's file"));
  }
  auto budget = token_budget(arguments, context.settings());
  if (!budget) {
    return error_result(budget.error());
  }
  Json doc;                 // a report.json
  CaptureDocument captured; // a capture's report
  std::string uri;
  std::error_code ec;
  if (file.extension() == ".json") {
    for (const std::string_view key : {"source", "source_page", "select", "kernels", "metrics"}) {
      if (arguments.contains(key)) {
        return error_result(make_error(
            ErrorCategory::usage,
            fmt::format("{} applies to a capture (an ncu CSV or .ncu-rep); {} is a report "
                        "document, already analysed",
                        key, file.string())));
      }
    }
    auto loaded = load_report_file(file, ReportPart::outline);
    if (!loaded) {
      return error_result(loaded.error());
    }
    doc = std::move(loaded).value();
    context.resources().add_report_file(file);
    uri = file_uri(fs::weakly_canonical(fs::absolute(file, ec), ec));
  } else {
    Result<CaptureDocument> built = make_error(ErrorCategory::internal, "not built");
    const auto build = [&] { built = capture_report(file, arguments, context.settings()); };
    if (looks_like_ncu_report(file)) {
      if (!context.in_process_lane(build)) {
        return error_result(make_error(ErrorCategory::usage, "the call was cancelled"));
      }
    } else {
      build();
    }
    if (!built) {
      return error_result(built.error());
    }
    captured = std::move(built).value();
    uri = context.resources()
              .keep_report(*captured.report, file.filename().string() + " (report)")
              .value_or(std::string());
  }
  // The text and the summary draw one launch per kernel name: the outline, never the launches.
  const Json& outline = captured.report ? captured.report->outline() : doc;
  ToolResult result;
  result.text = budgeted_report_text(outline, *budget, whole_report_words(uri, file));
  result.structured = Json{{"source", file.string()},
                           {"report_uri", uri.empty() ? Json(nullptr) : Json(uri)},
                           {"summary", report_summary(outline)}};
  if (!uri.empty()) {
    result.links.push_back(ResourceLink{uri, file.filename().string(), "the whole report document",
                                        "application/json"});
  }
  return result;
}

Json convergence_options_schema(Json& properties) {
  const ConvergenceOptions defaults;
  properties["sol_threshold_pct"] =
      Json{{"type", "number"},
           {"default", defaults.sol_threshold_pct},
           {"description", "converged when the best round's max SOL reaches this percent"}};
  properties["window"] = Json{{"type", "integer"},
                              {"default", defaults.window},
                              {"description", "rounds without improvement that mean converged"}};
  properties["min_improvement"] =
      Json{{"type", "number"},
           {"default", defaults.min_improvement},
           {"description", "relative improvement that counts (0.01: 1%)"}};
  return properties;
}

ConvergenceOptions convergence_options(const Json& arguments) {
  ConvergenceOptions options;
  options.sol_threshold_pct = arguments.value("sol_threshold_pct", options.sol_threshold_pct);
  if (arguments.contains("window")) {
    const Json& window = arguments["window"];
    options.window = window.is_number_unsigned() &&
                             window.get<std::uint64_t>() >
                                 static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                         ? std::numeric_limits<int>::max()
                         : static_cast<int>(std::clamp<std::int64_t>(
                               window.get<std::int64_t>(), std::numeric_limits<int>::min(),
                               std::numeric_limits<int>::max()));
  }
  options.min_improvement = arguments.value("min_improvement", options.min_improvement);
  return options;
}

ToolResult run_diff(const Json& arguments, ToolContext& context) {
  auto budget = token_budget(arguments, context.settings());
  if (!budget) {
    return error_result(budget.error());
  }
  Json a;
  Json b;
  DiffOptions labels;
  std::optional<Convergence> verdict;
  if (arguments.contains("dir")) {
    const fs::path dir = text_argument(arguments, "dir");
    auto store = open_history(dir);
    if (!store) {
      return error_result(store.error());
    }
    context.resources().add_run_dir(dir);
    for (int side = 0; side < 2; ++side) {
      auto ref = parse_round_ref(ref_text(arguments[side == 0 ? "a" : "b"]));
      if (!ref) {
        return error_result(ref.error());
      }
      auto resolved = store->resolve(*ref);
      if (!resolved) {
        return error_result(resolved.error());
      }
      (side == 0 ? labels.label_a : labels.label_b) = to_string(*resolved);
      auto doc = store->document(*resolved);
      if (!doc) {
        return error_result(doc.error());
      }
      (side == 0 ? a : b) = std::move(doc).value();
    }
    auto rows = store->rows();
    if (!rows) {
      return error_result(rows.error());
    }
    auto judged = converged(*rows);
    if (!judged) {
      return error_result(judged.error());
    }
    verdict = std::move(judged).value();
  } else {
    for (int side = 0; side < 2; ++side) {
      const std::string path = ref_text(arguments[side == 0 ? "a" : "b"]);
      auto doc = load_report_file(path, ReportPart::whole);
      if (!doc) {
        return error_result(doc.error());
      }
      (side == 0 ? a : b) = std::move(doc).value();
    }
  }
  auto diff = diff_reports(a, b, labels);
  if (!diff) {
    return error_result(diff.error());
  }
  ToolResult result;
  std::string text = render_diff(*diff, Format::prompt);
  if (verdict) {
    text += render(Format::prompt, convergence_document(*verdict));
  }
  result.text = cut_to_budget(text, *budget);
  result.structured = Json{{"diff", *diff}};
  if (verdict) {
    result.structured["convergence"] = to_json(*verdict);
  }
  return result;
}

ToolResult run_history(const Json& arguments, ToolContext& context) {
  auto budget = token_budget(arguments, context.settings());
  if (!budget) {
    return error_result(budget.error());
  }
  const fs::path dir = text_argument(arguments, "dir");
  auto store = open_history(dir);
  if (!store) {
    return error_result(store.error());
  }
  context.resources().add_run_dir(dir);
  auto rows = store->rows();
  if (!rows) {
    return error_result(rows.error());
  }
  auto verdict = converged(*rows, convergence_options(arguments));
  if (!verdict) {
    return error_result(verdict.error());
  }
  const std::string judged = render(Format::prompt, convergence_document(*verdict));
  // The latest rows that fit: an agent needs the recent rounds and the verdict.
  std::vector<HistoryRow> shown = *rows;
  std::string text;
  while (true) {
    const std::size_t left_out = rows->size() - shown.size();
    text = left_out > 0 ? fmt::format("({} earlier row{} left out for the token budget)\n",
                                      left_out, left_out == 1 ? "" : "s")
                        : std::string();
    text += render_history(shown, Format::prompt);
    text += judged;
    if (estimate_tokens(text) <= *budget || shown.size() <= 1) {
      break;
    }
    shown.erase(shown.begin(), shown.begin() + static_cast<std::ptrdiff_t>(
                                                   std::max<std::size_t>(shown.size() / 4, 1)));
  }
  ToolResult result;
  result.text = cut_to_budget(text, *budget);
  result.structured = Json{{"rows", history_document(shown)["rows"]},
                           {"rows_total", rows->size()},
                           {"convergence", to_json(*verdict)}};
  return result;
}

/// A copy of `doc` whose prompt shows only the roofline verdict and the hot lines per kernel
/// (no metric groups, no findings) of the kernels whose name contains `filter`.
Json hot_lines_document(const Json& doc, std::string_view filter) {
  Json copy = report_outline(doc); // the prompt draws one launch per kernel name
  if (copy.contains("metadata") && copy["metadata"].is_object() &&
      copy["metadata"].contains("metric_set") && copy["metadata"]["metric_set"].is_object()) {
    copy["metadata"]["metric_set"]["metrics"] = Json::array();
  }
  if (copy.contains("kernels") && copy["kernels"].is_array()) {
    Json kept = Json::array();
    for (Json& kernel : copy["kernels"]) {
      if (json_read::text_at(kernel, "name").find(filter) == std::string::npos) {
        continue;
      }
      kernel.erase("rules");
      if (kernel.contains("metrics") && kernel["metrics"].is_object()) {
        Json durations = Json::object();
        for (const auto& [key, entry] : kernel["metrics"].items()) {
          if (key == "Duration" || key.ends_with("/Duration") || key == "gpu__time_duration.sum") {
            durations[key] = entry;
          }
        }
        kernel["metrics"] = std::move(durations);
      }
      kept.push_back(std::move(kernel));
    }
    copy["kernels"] = std::move(kept);
  }
  return copy;
}

/// no_kernels, in the words of `kprof report --kernel`, when `filter` names no kernel of the
/// round: "no kernel name contains 'X' (kernels in round 1: a, b)".
Result<void> check_kernel_filter(const RoundDocument& round, const std::string& filter) {
  if (filter.empty()) {
    return {};
  }
  const std::vector<std::string> names = ReportView(round.doc).kernel_names();
  if (std::any_of(names.begin(), names.end(), [&](const std::string& name) {
        return name.find(filter) != std::string::npos;
      })) {
    return {};
  }
  return no_kernel_named({filter}, names, round.label);
}

ToolResult no_such_facts(const RoundDocument& round, std::string_view what, std::string_view how) {
  ToolResult result;
  result.text = fmt::format("{} has no {}: {}\n", round.label, what, how);
  result.structured =
      Json{{"source", round.label}, {"available", false}, {"kernels", Json::array()}};
  return result;
}

ToolResult run_hot_lines(const Json& arguments, ToolContext& context) {
  auto budget = token_budget(arguments, context.settings());
  if (!budget) {
    return error_result(budget.error());
  }
  auto round = round_document(arguments, context);
  if (!round) {
    return error_result(round.error());
  }
  const std::string filter = text_argument(arguments, "kernel");
  if (auto named = check_kernel_filter(*round, filter); !named) {
    return error_result(named.error());
  }
  const auto found = kernels_with(round->doc, "hot_lines", filter);
  if (found.empty()) {
    return no_such_facts(
        *round, filter.empty() ? "hot lines" : "hot lines of a kernel named *" + filter + "*",
        "profile with source: true (or metrics: \"deep\") to collect them");
  }
  ToolResult result;
  result.text = budgeted_report_text(hot_lines_document(round->doc, filter), *budget,
                                     round->file ? file_uri(*round->file) : std::string());
  Json kernels = Json::array();
  for (const auto& [name, kernel] : found) {
    Json lines = *json_read::member(*kernel, "hot_lines");
    lines.erase("heat"); // every line of the file: the resource has it
    kernels.push_back(Json{{"name", name}, {"hot_lines", std::move(lines)}});
  }
  result.structured =
      Json{{"source", round->label}, {"available", true}, {"kernels", std::move(kernels)}};
  return result;
}

ToolResult run_diagnosis(const Json& arguments, ToolContext& context) {
  auto budget = token_budget(arguments, context.settings());
  if (!budget) {
    return error_result(budget.error());
  }
  auto round = round_document(arguments, context);
  if (!round) {
    return error_result(round.error());
  }
  const std::string filter = text_argument(arguments, "kernel");
  if (auto named = check_kernel_filter(*round, filter); !named) {
    return error_result(named.error());
  }
  std::string text;
  Json kernels = Json::array();
  for (const auto& [name, kernel] : kernels_with(round->doc, "diagnosis", filter)) {
    const std::string body = diagnosis_text(*kernel);
    if (body.empty()) {
      continue;
    }
    text += fmt::format("## Kernel: {}\n", name) + body;
    const Json* notes = json_read::member(*kernel, "diagnosis_notes");
    kernels.push_back(Json{{"name", name},
                           {"diagnosis", *json_read::member(*kernel, "diagnosis")},
                           {"diagnosis_notes", notes != nullptr ? *notes : Json::array()}});
  }
  if (kernels.empty()) {
    return no_such_facts(
        *round, filter.empty() ? "diagnosis" : "diagnosis of a kernel named *" + filter + "*",
        "its report carries no kernels[].diagnosis (what to fix first); the "
        "report tool gives its verdict, hot lines and NCU findings");
  }
  ToolResult result;
  result.text = cut_to_budget(text, *budget);
  result.structured =
      Json{{"source", round->label}, {"available", true}, {"kernels", std::move(kernels)}};
  return result;
}

// ---- the table ---------------------------------------------------------------------------------

Json round_source_properties() {
  return Json{{"report", property("string", "a report.json (roundNNN/report.json); or give dir "
                                            "and round")},
              {"dir", property("string", "a run directory (the out_dir of profile or batch)")},
              {"round", Json{{"type", Json::array({"string", "integer"})},
                             {"description", "round N, or \"N:K\" for candidate K of a batch "
                                             "round (N alone: its best candidate)"}}},
              {"kernel", property("string", "only kernels whose name contains this")},
              {"token_budget", budget_property()}};
}

Json facts_output_schema(std::string_view member, Json member_schema) {
  return Json{
      {"type", "object"},
      {"properties",
       Json{{"source", Json{{"type", "string"}}},
            {"available", Json{{"type", "boolean"}}},
            {"kernels", Json{{"type", "array"},
                             {"items", Json{{"type", "object"},
                                            {"properties", Json{{"name", Json{{"type", "string"}}},
                                                                {std::string(member),
                                                                 std::move(member_schema)}}}}}}},
            {"error", error_json_schema()}}}};
}

/// The arguments of a schema that are options of the table.
std::vector<std::string> option_keys_of(const Json& schema) {
  std::vector<std::string> keys;
  for (const auto& [key, property] : schema["properties"].items()) {
    if (find_option_spec(key) != nullptr) {
      keys.push_back(key);
    }
  }
  return keys;
}

std::vector<ToolSpec> make_tools() {
  std::vector<ToolSpec> tools;
  tools.push_back(ToolSpec{
      "profile",
      "Profile one kernel",
      "Profile kernel_function of kernel_file on problem_file's inputs under Nsight Compute (one "
      "round: out_dir/roundNNN/). Returns the prompt text within token_budget: per kernel the "
      "roofline verdict, what to fix first when known, the hot lines (source: true), metric "
      "groups and NCU findings; the whole report.json is a resource. Uses a kprof serve of the "
      "same out_dir and options when one runs, and keeps a standby so the next profile of the "
      "same problem starts sooner.",
      false,
      round_input_schema(RoundTool::profile),
      round_output_schema(),
      [](const Json& arguments, ToolContext& context) {
        return run_round_tool(arguments, context, RoundTool::profile);
      },
      option_keys_of(round_input_schema(RoundTool::profile)),
      {"kernel_file", "problem_file"}});
  tools.push_back(ToolSpec{
      "batch",
      "Profile candidate kernels, ranked",
      "Profile several candidate kernel files of one problem in one round (across gpus), ranked "
      "by GPU time. Returns the ranking and each candidate's prompt text within token_budget per "
      "candidate; failed candidates say why (category, exit code, traceback tail).",
      false,
      round_input_schema(RoundTool::batch),
      round_output_schema(),
      [](const Json& arguments, ToolContext& context) {
        return run_round_tool(arguments, context, RoundTool::batch);
      },
      option_keys_of(round_input_schema(RoundTool::batch)),
      {"problem_file", "kernel_files"}});
  tools.push_back(ToolSpec{
      "model",
      "Where a model's time goes",
      "Profile problem_file's Model whole (KernelBench's format) as the candidate, written to "
      "out_dir/model/kernel.py: every launch of its call timed outside ncu, representatives of "
      "each distinct kernel replayed, and the kernels ranked by their share of the call's time "
      "(\"Optimize first, by share ...\"). launches defaults to many and check to false (the "
      "candidate is the reference); the timing and the problem's speed of light stay.",
      false,
      round_input_schema(RoundTool::model),
      round_output_schema(),
      [](const Json& arguments, ToolContext& context) {
        return run_round_tool(arguments, context, RoundTool::model);
      },
      option_keys_of(round_input_schema(RoundTool::model)),
      {"problem_file"}});
  {
    Json properties{
        {"path", property("string", "an ncu CSV (raw or details page), an .ncu-rep report, or a "
                                    "kprof report.json")},
        {"source_page", property("string", "hot lines from this source page (ncu --import R "
                                           "--page source --print-source cuda,sass --csv)")},
        {"source", property("boolean", "hot lines exported from the .ncu-rep's source counters")},
        {"select", option_property("select")},
        {"kernels", option_property("kernels")},
        {"metrics", property("string", "metric set whose metrics the text shows "
                                       "(default|lean|deep|all or a comma-separated list)")},
        {"token_budget", budget_property()}};
    tools.push_back(ToolSpec{
        "report",
        "Facts of an existing capture",
        "Analyse an existing ncu output (CSV, .ncu-rep) or a kprof report.json: the prompt text "
        "within token_budget (roofline verdict, hot lines, metric groups, NCU findings). The "
        "whole report document is a resource.",
        true,
        object_schema(std::move(properties), {"path"}),
        Json{{"type", "object"},
             {"properties", Json{{"source", Json{{"type", "string"}}},
                                 {"report_uri", Json{{"type", Json::array({"string", "null"})}}},
                                 {"summary", report_summary_schema()},
                                 {"error", error_json_schema()}}}},
        run_report,
        {"select", "kernels", "metrics", "source"},
        {"path", "source_page"},
        true});
  }
  {
    Json properties{
        {"dir", property("string", "a run directory with kprof.db; a and b are then rounds")},
        {"a", Json{{"type", Json::array({"string", "integer"})},
                   {"description", "before: round N or \"N:K\" (with dir), else a report.json"}}},
        {"b", Json{{"type", Json::array({"string", "integer"})},
                   {"description", "after: round N or \"N:K\" (with dir), else a report.json"}}},
        {"token_budget", budget_property()}};
    tools.push_back(ToolSpec{
        "diff",
        "What changed between two rounds",
        "Compare two rounds of a run directory (or two report.json files): GPU time, speedup, "
        "bottleneck shifts, the metrics that moved, per hot line too; with dir, the convergence "
        "verdict.",
        true,
        object_schema(std::move(properties), {"a", "b"}),
        Json{{"type", "object"},
             {"properties", Json{{"diff", Json{{"type", "object"}}},
                                 {"convergence", Json{{"type", "object"}}},
                                 {"error", error_json_schema()}}}},
        run_diff,
        {},
        {"dir", "a", "b"},
        true});
  }
  {
    Json properties{{"dir", property("string", "a run directory with kprof.db")}};
    convergence_options_schema(properties);
    properties["token_budget"] = budget_property();
    tools.push_back(ToolSpec{
        "history",
        "Rounds so far and whether to stop",
        "The rounds recorded in a run directory (GPU time, bottleneck, SOL, best marked) and the "
        "convergence verdict: converged at the roofline or without improvement, or keep going.",
        true,
        object_schema(std::move(properties), {"dir"}),
        Json{{"type", "object"},
             {"properties",
              Json{{"rows", Json{{"type", "array"}, {"items", Json{{"type", "object"}}}}},
                   {"rows_total", Json{{"type", "integer"}}},
                   {"convergence", Json{{"type", "object"}}},
                   {"error", error_json_schema()}}}},
        run_history,
        {},
        {"dir"},
        true});
  }
  tools.push_back(ToolSpec{
      "hot_lines",
      "Hot source lines of a round",
      "Which source lines of each kernel hold its warp stall samples, and why (stall reasons, "
      "memory facts, Triton library lines folded into their caller), with the roofline verdict. "
      "Says so when the round has none (profile with source: true).",
      true,
      object_schema(round_source_properties()),
      facts_output_schema("hot_lines", Json{{"type", "object"}}),
      run_hot_lines,
      {},
      {"report", "dir"},
      true});
  tools.push_back(
      ToolSpec{"diagnosis",
               "What to fix first",
               "The diagnosis of each kernel of a round (what to fix first), when its "
               "report has one; says so otherwise.",
               true,
               object_schema(round_source_properties()),
               facts_output_schema("diagnosis",
                                   Json{{"type", "array"}, {"items", Json{{"type", "object"}}}}),
               run_diagnosis,
               {},
               {"report", "dir"},
               true});
  return tools;
}

} // namespace

ToolResult error_result(const Error& error) {
  ToolResult result;
  result.is_error = true;
  result.text = error_text(error, k_max_token_budget);
  result.structured = Json{{"error", to_json(error)}};
  return result;
}

std::span<const ToolSpec> tool_specs() {
  static const std::vector<ToolSpec> k_tools = make_tools();
  return k_tools;
}

const ToolSpec* find_tool(std::string_view name) {
  for (const ToolSpec& tool : tool_specs()) {
    if (tool.name == name) {
      return &tool;
    }
  }
  return nullptr;
}

Result<void> check_arguments(const ToolSpec& tool, const Json& arguments) {
  if (!arguments.is_object()) {
    return make_error(ErrorCategory::usage,
                      fmt::format("the arguments of {} must be an object, not {}", tool.name,
                                  json_type_name(arguments)));
  }
  const Json& properties = tool.input_schema["properties"];
  Json options = Json::object();
  for (const auto& [key, value] : arguments.items()) {
    if (!properties.contains(key)) {
      std::vector<std::string> valid;
      for (const auto& [name, schema] : properties.items()) {
        valid.push_back(name);
      }
      return make_error(ErrorCategory::usage,
                        fmt::format("unknown argument '{}' for {} (valid: {})", key, tool.name,
                                    fmt::join(valid, ", ")));
    }
    if (std::find(tool.option_keys.begin(), tool.option_keys.end(), key) !=
        tool.option_keys.end()) {
      options[key] = value;
      continue;
    }
    std::string expected;
    if (!matches(properties[key], value, expected)) {
      return make_error(ErrorCategory::usage,
                        fmt::format("{} must be {}, not {}", key, expected, json_type_name(value)));
    }
  }
  if (auto typed = check_option_types(options, OptionContext{}); !typed) {
    return typed;
  }
  // Paths: a NUL byte would end the name early, at another file (check_path_text).
  for (const auto& [key, value] : arguments.items()) {
    const OptionSpec* spec = find_option_spec(key);
    const bool option_path =
        spec != nullptr && is_path_option(*spec) &&
        std::find(tool.option_keys.begin(), tool.option_keys.end(), key) != tool.option_keys.end();
    if (!option_path &&
        std::find(tool.path_keys.begin(), tool.path_keys.end(), key) == tool.path_keys.end()) {
      continue;
    }
    const std::vector<std::string> paths = names_argument(arguments, key);
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const std::string name = value.is_array() ? fmt::format("{}[{}]", key, i) : key;
      if (auto checked = check_path_text(paths[i], name); !checked) {
        return checked;
      }
    }
  }
  if (tool.input_schema.contains("required")) {
    for (const Json& key : tool.input_schema["required"]) {
      if (!arguments.contains(key.get<std::string>())) {
        return make_error(ErrorCategory::usage,
                          fmt::format("{} needs {}", tool.name, key.get<std::string>()));
      }
    }
  }
  return {};
}

// ---- shared by the tool files (tool_support.hpp) ----------------------------------------------

Json property(std::string_view type, std::string_view description) {
  return Json{{"type", type}, {"description", description}};
}

Json object_schema(Json properties, const std::vector<std::string>& required) {
  Json schema{{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) {
    schema["required"] = required;
  }
  schema["additionalProperties"] = false;
  return schema;
}

Json option_property(std::string_view key) {
  const OptionSpec* spec = find_option_spec(key);
  KPROF_ASSERT(spec != nullptr);
  Json schema = Json::object();
  std::string description(spec->help);
  switch (spec->kind) {
  case OptionKind::flag:
    schema["type"] = "boolean";
    schema["default"] = spec->cli_negates;
    if (spec->cli_negates) {
      description =
          fmt::format("true unless set false; false: {} (the CLI's {})", spec->help, spec->cli);
    }
    break;
  case OptionKind::integer: {
    schema["type"] = "integer";
    schema["minimum"] = spec->min;
    schema["maximum"] = spec->max;
    std::uint64_t value = 0;
    const std::string_view text = spec->default_text;
    if (!text.empty() && std::from_chars(text.data(), text.data() + text.size(), value).ptr ==
                             text.data() + text.size()) {
      schema["default"] = value;
    }
    break;
  }
  case OptionKind::text:
  case OptionKind::path:
    schema["type"] = "string";
    if (!spec->default_text.empty()) {
      schema["default"] = spec->default_text;
    }
    break;
  case OptionKind::word: {
    schema["type"] = "string";
    Json words = Json::array();
    for (const std::string_view word : spec->words) {
      words.push_back(word);
    }
    schema["enum"] = std::move(words);
    if (!spec->default_text.empty()) {
      schema["default"] = spec->default_text;
    }
    break;
  }
  case OptionKind::names:
    schema["type"] = "array";
    schema["items"] = Json{{"type", "string"}};
    break;
  case OptionKind::gpu_indices:
    schema["type"] = "array";
    schema["items"] = Json{{"type", "integer"}, {"minimum", spec->min}, {"maximum", spec->max}};
    break;
  }
  schema["description"] = description;
  return schema;
}

Json budget_property() {
  return Json{{"type", "integer"},
              {"minimum", k_min_token_budget},
              {"maximum", k_max_token_budget},
              {"default", k_mcp_default_token_budget},
              {"description", "tokens the text may use (per candidate), by kprof's estimate of "
                              "one token per 3 bytes; the rest stays in the resources"}};
}

void add_candidate_links(const CandidateResult& candidate, std::vector<ResourceLink>& links) {
  std::error_code ec;
  const fs::path file =
      candidate.dir /
      (candidate.report_document() != nullptr ? RoundLayout::k_report : RoundLayout::k_error);
  if (const std::optional<fs::path> document =
          !candidate.dir.empty() && fs::is_regular_file(file, ec) ? std::optional<fs::path>(file)
                                                                  : std::nullopt) {
    links.push_back(ResourceLink{
        file_uri(*document),
        fmt::format("{}/{}", candidate.dir.filename().string(), document->filename().string()),
        fmt::format("{} of {}", document->filename().string(),
                    candidate.kernel.filename().string()),
        "application/json"});
  }
}

Result<std::size_t> token_budget(const Json& arguments, const McpSettings& settings) {
  if (!arguments.contains("token_budget")) {
    return std::clamp(settings.token_budget, k_min_token_budget, k_max_token_budget);
  }
  const Json& value = arguments["token_budget"];
  const bool whole =
      value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
  const auto number = whole ? value.get<std::uint64_t>() : 0;
  if (!whole || number < k_min_token_budget || number > k_max_token_budget) {
    return make_error(ErrorCategory::usage,
                      fmt::format("token_budget must be a whole number from {} to {}, got '{}'",
                                  k_min_token_budget, k_max_token_budget,
                                  value.is_string() ? value.get<std::string>() : value.dump()));
  }
  return static_cast<std::size_t>(number);
}

std::string cut_to_budget(const std::string& text, std::size_t budget) {
  if (estimate_tokens(text) <= budget) {
    return text;
  }
  const std::string note = fmt::format("(cut to the token budget of {})\n", budget);
  const std::size_t room = budget * 3 > note.size() ? budget * 3 - note.size() : 0;
  std::size_t end = text.rfind('\n', room == 0 ? 0 : room - 1);
  std::string kept = end == std::string::npos ? std::string() : text.substr(0, end + 1);
  return kept + note;
}

std::string error_text(const Error& error, std::size_t budget) {
  std::string text = fmt::format("kprof: error: {}\n", error.message);
  std::vector<std::string_view> lines;
  std::string_view detail = error.detail;
  while (!detail.empty()) {
    const auto end = detail.find('\n');
    lines.push_back(detail.substr(0, end));
    detail = end == std::string_view::npos ? std::string_view() : detail.substr(end + 1);
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string_view::npos) {
    lines.pop_back();
  }
  const std::string footer = fmt::format("(category {}, exit code {})\n", to_string(error.category),
                                         exit_code(error.category));
  // The tail of the detail: a traceback ends with the exception, ncu's log with its verdict.
  std::size_t first = lines.size() > k_detail_lines ? lines.size() - k_detail_lines : 0;
  while (true) {
    std::string body;
    if (first > 0) {
      body += fmt::format("  ... ({} earlier line{})\n", first, first == 1 ? "" : "s");
    }
    for (std::size_t i = first; i < lines.size(); ++i) {
      body += fmt::format("  {}\n", lines[i]);
    }
    std::string whole = text;
    whole += body;
    whole += footer;
    if (estimate_tokens(whole) <= budget || first >= lines.size()) {
      return cut_to_budget(whole, budget);
    }
    ++first;
  }
}

std::string text_argument(const Json& arguments, std::string_view key, std::string_view fallback) {
  const auto found = arguments.find(key);
  return found != arguments.end() && found->is_string() ? found->get<std::string>()
                                                        : std::string(fallback);
}

std::vector<std::string> names_argument(const Json& arguments, std::string_view key) {
  const auto found = arguments.find(key);
  if (found == arguments.end()) {
    return {};
  }
  if (found->is_string()) {
    return {found->get<std::string>()};
  }
  std::vector<std::string> names;
  if (found->is_array()) {
    for (const Json& item : *found) {
      if (item.is_string()) {
        names.push_back(item.get<std::string>());
      }
    }
  }
  return names;
}

} // namespace kprof::mcp

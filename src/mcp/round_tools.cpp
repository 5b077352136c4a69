// The profile, batch and model tools: a round through a `kprof serve` of the same options when one
// answers, else through the session's kept KernelProfiler (its standby answers the next round).
// Options go through the option table's parser, so a tool refuses what the CLI refuses, in the
// same words (naming the option by its key, which is the argument's name).
#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "kprof/model.hpp"
#include "kprof/options.hpp"
#include "kprof/report.hpp"
#include "kprof/round.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/run.hpp"
#include "kprof/serve.hpp"
#include "mcp/tool_support.hpp"

namespace kprof::mcp {
namespace fs = std::filesystem;

namespace {

/// Options the server sets for every call (`kprof mcp --ncu ...`, and the standby it keeps):
/// a call cannot name them.
constexpr std::array<std::string_view, 6> k_server_keys{
    "ncu", "python", "use_sudo", "standby", "standby_idle_seconds", "keep_ncu_report"};

bool is_server_key(std::string_view key) {
  return std::find(k_server_keys.begin(), k_server_keys.end(), key) != k_server_keys.end();
}

/// The text of one candidate within `budget`: its error (with the traceback's tail), then its
/// report's prompt text when it has one (a partial round keeps its rows).
std::string candidate_text(const CandidateResult& candidate, std::size_t budget) {
  std::string text;
  if (candidate.error) {
    text = error_text(*candidate.error, candidate.report ? budget / 2 : budget);
    if (candidate.status == CandidateStatus::partial) {
      text += "warning: the run failed after profiling; rows kept (partial)\n";
    }
  }
  if (candidate.report) {
    const std::size_t used = estimate_tokens(text);
    text += (text.empty() ? "" : "\n") +
            budgeted_report_text(*candidate.report, budget > used + 1 ? budget - used - 1 : 1,
                                 file_uri(candidate.dir / RoundLayout::k_report));
  }
  return cut_to_budget(text, budget);
}

ToolResult round_result(const RoundResult& round, std::size_t budget) {
  ToolResult result;
  result.structured = round_document(round, ReportDetail::summary);
  if (!round.batch) {
    const CandidateResult& candidate = round.candidates.front();
    result.text = candidate_text(candidate, budget);
    add_candidate_links(candidate, result.links);
  } else {
    // The ranking first, then each candidate in rank order within its share of the budget.
    const std::string ranking = render(Format::prompt, result.structured);
    const std::size_t total = budget * std::max<std::size_t>(round.candidates.size(), 1);
    const std::size_t left =
        total > estimate_tokens(ranking) ? total - estimate_tokens(ranking) : 0;
    const std::size_t each =
        std::max<std::size_t>(left / std::max<std::size_t>(round.candidates.size(), 1), 50);
    result.text = ranking;
    const std::vector<std::optional<int>> ranks = candidate_ranks(round.candidates);
    std::vector<std::size_t> order(round.candidates.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&ranks](std::size_t a, std::size_t b) {
      return ranks[a].value_or(std::numeric_limits<int>::max()) <
             ranks[b].value_or(std::numeric_limits<int>::max());
    });
    for (const std::size_t position : order) {
      const CandidateResult& candidate = round.candidates[position];
      const std::optional<int> rank = ranks[position];
      const std::string heading = fmt::format(
          "\n### cand{} ({}, {}{})\n", candidate.index, candidate.kernel.filename().string(),
          to_string(candidate.status), rank ? fmt::format(", rank {}", *rank) : "");
      const std::size_t heading_tokens = estimate_tokens(heading);
      result.text +=
          heading +
          candidate_text(candidate, each > heading_tokens + 50 ? each - heading_tokens : 50);
      add_candidate_links(candidate, result.links);
    }
    result.text = cut_to_budget(result.text, total);
  }
  // A single profile fails with its candidate; a batch only when every candidate failed.
  result.is_error = round_error(round).has_value();
  result.links.push_back(ResourceLink{file_uri(round.dir) + "/", round.dir.filename().string(),
                                      "the round directory: every file of the round",
                                      "application/json"});
  return result;
}

} // namespace

Json round_input_schema(RoundTool tool) {
  const bool batch = tool == RoundTool::batch;
  Json properties = Json::object();
  if (tool == RoundTool::model) {
    properties["problem_file"] =
        property("string", "problem.py exposing Model, get_inputs and get_init_inputs "
                           "(KernelBench's): its Model is the candidate");
    properties["compile"] = property("boolean", "run the Model through torch.compile");
    properties["extract_dir"] =
        property("string", "after the round, write the call's costliest Triton kernels as "
                           "standalone cases (kernel.py, problem.py) to extract_dir/<kernel>/ "
                           "(kprof model --extract)");
    properties["extract_top"] =
        Json{{"type", "integer"},
             {"minimum", 1},
             {"description", fmt::format("extract_dir: how many Triton kernels to write ({})",
                                         k_default_extract_top)}};
  } else if (batch) {
    properties["problem_file"] =
        property("string", "problem.py exposing get_inputs (and Model, get_init_inputs)");
    properties["kernel_files"] = Json{{"type", "array"},
                                      {"items", Json{{"type", "string"}}},
                                      {"minItems", 1},
                                      {"description", "candidate kernel files, each exposing "
                                                      "kernel_function"}};
  } else {
    properties["kernel_file"] = property("string", "kernel.py exposing kernel_function");
    properties["problem_file"] =
        property("string", "problem.py exposing get_inputs (and Model, get_init_inputs)");
  }
  const unsigned scope = batch ? k_scope_batch : k_scope_profile;
  for (const OptionSpec& spec : option_specs()) {
    if ((spec.scopes & scope) != 0U && !is_server_key(spec.name)) {
      properties[std::string(spec.name)] = option_property(spec.name);
    }
  }
  properties["token_budget"] = budget_property();
  std::vector<std::string> required{"kernel_file", "problem_file"};
  if (tool == RoundTool::model) {
    required = {"problem_file"};
  } else if (batch) {
    required = {"problem_file", "kernel_files"};
  }
  return object_schema(std::move(properties), required);
}

Json round_output_schema() {
  Json schema = round_json_schema();
  schema.erase("required"); // a failed call's result holds only its error
  schema["properties"]["error"] = error_json_schema();
  schema["properties"]["extracted"] =
      Json{{"type", "object"},
           {"description", "the model tool's extract_dir: extracted.json's document, per "
                           "kernel its case's directory or why it has none"}};
  return schema;
}

ToolResult run_round_tool(const Json& arguments, ToolContext& context, RoundTool tool) {
  const bool batch = tool == RoundTool::batch;
  Json values = context.settings().run_options;
  for (const auto& [key, value] : arguments.items()) {
    if (find_option_spec(key) != nullptr) {
      values[key] = value;
    }
  }
  if (tool == RoundTool::model) {
    values = with_model_defaults(std::move(values));
  }
  OptionContext option_context;
  option_context.visible_gpus = visible_gpu_count();
  auto request = parse_run_options(values, option_context);
  if (!request) {
    return error_result(request.error());
  }
  auto budget = token_budget(arguments, context.settings());
  if (!budget) {
    return error_result(budget.error());
  }
  request->options.standby = context.settings().standby;
  const fs::path problem = text_argument(arguments, "problem_file");
  std::optional<ExtractRequest> extract; // the model tool's extract_dir, when given
  std::vector<fs::path> kernels;
  if (batch) {
    for (const std::string& kernel : names_argument(arguments, "kernel_files")) {
      kernels.emplace_back(kernel);
    }
    if (kernels.empty()) {
      return error_result(make_error(ErrorCategory::usage, "kernel_files is empty: give the "
                                                           "candidate kernel files"));
    }
  } else if (tool == RoundTool::model) {
    const Json* compile = arguments.contains("compile") ? &arguments.at("compile") : nullptr;
    if (compile != nullptr && !compile->is_boolean()) {
      return error_result(make_error(ErrorCategory::usage, "compile must be true or false"));
    }
    const bool compiled = compile != nullptr && compile->get<bool>();
    if (arguments.contains("extract_dir")) {
      if (!arguments.at("extract_dir").is_string()) {
        return error_result(make_error(ErrorCategory::usage, "extract_dir must be a path"));
      }
      extract = ExtractRequest{arguments.at("extract_dir").get<std::string>(),
                               k_default_extract_top, compiled};
    }
    if (arguments.contains("extract_top")) {
      const Json& top = arguments.at("extract_top");
      if (!top.is_number_unsigned() || top.get<std::size_t>() < 1) {
        return error_result(
            make_error(ErrorCategory::usage, "extract_top must be an integer of at least 1"));
      }
      if (extract) {
        extract->top = top.get<std::size_t>();
      }
    }
    auto kernel = write_model_candidate(problem, fs::absolute(request->options.out_dir), compiled);
    if (!kernel) {
      return error_result(kernel.error());
    }
    kernels.push_back(std::move(kernel).value());
  } else {
    kernels.emplace_back(text_argument(arguments, "kernel_file"));
  }
  if (auto inputs = check_round_inputs(problem, kernels); !inputs) {
    return error_result(inputs.error()); // before looking for ncu, as the CLI does
  }
  std::error_code ec;
  context.resources().add_run_dir(fs::absolute(request->options.out_dir, ec));
  std::optional<Result<RoundResult>> round;
  const bool ran = context.in_process_lane([&] {
    context.progress(fmt::format("profiling {} candidate{} of {} (round {})", kernels.size(),
                                 kernels.size() == 1 ? "" : "s", problem.filename().string(),
                                 request->round));
    request->options.on_progress = [&context](const std::string& line) { context.progress(line); };
    std::vector<std::string> notes;
    round = run_round(RoundRequest{*request, problem, kernels, batch, "kprof mcp", extract},
                      &context.profilers(), notes);
    for (const std::string& note : notes) {
      context.progress(note);
    }
  });
  if (!ran || !round) {
    return error_result(make_error(ErrorCategory::usage, "the call was cancelled"));
  }
  if (!*round) {
    return error_result(round->error());
  }
  ToolResult result = round_result(round->value(), *budget);
  if (const auto& extracted = round->value().extracted) {
    if (!*extracted) {
      return error_result(extracted->error());
    }
    result.text += "\n\n## Extracted\n";
    for (const std::string& line : extraction_lines(**extracted)) {
      result.text += fmt::format("- {}\n", line);
    }
    result.structured["extracted"] = **extracted;
  }
  return result;
}

} // namespace kprof::mcp

// The profile and batch tools: a round through a `kprof serve` of the same options when one
// answers, else through the session's kept KernelProfiler (its standby answers the next round).
// Options go through the option table's parser, so a tool refuses what the CLI refuses, in the
// same words (naming the option by its key, which is the argument's name).
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "kprof/options.hpp"
#include "kprof/report.hpp"
#include "kprof/round_layout.hpp"
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

/// What must be equal for a kept profiler to serve a request: every option of the table and
/// the problem (absolute path).
Json profiler_key(const ProfileOptions& options, const fs::path& problem) {
  Json key = option_values(options);
  std::error_code ec;
  key["problem"] = fs::absolute(problem, ec).lexically_normal().string();
  key["out_dir"] = fs::absolute(options.out_dir, ec).lexically_normal().string();
  return key;
}

/// The round from a `kprof serve` of the out_dir when it serves these options, else from the
/// kept profiler. `served_by` says which.
Result<RoundResult> run_round(const RunRequest& request, const fs::path& problem,
                              const std::vector<fs::path>& kernels, bool batch,
                              ToolContext& context, std::string& served_by) {
  auto served = ask_server(request.options, problem, kernels, request.round, batch);
  if (!served) {
    return std::move(served).error();
  }
  if (*served && (*served)->reply == ServerReply::answered) {
    served_by =
        fmt::format("kprof serve ({})", serve_socket_path(request.options.out_dir).string());
    return std::move(*(*served)->round);
  }
  if (*served) {
    context.progress(unused_answer_note(**served, request.options.out_dir));
  }
  served_by = "kprof mcp";
  context.profilers().set_progress([&context](const std::string& line) { context.progress(line); });
  auto profiler = context.profilers().get(request.options, problem);
  Result<RoundResult> round = make_error(ErrorCategory::internal, "no round ran");
  if (!profiler) {
    round = std::move(profiler).error();
  } else {
    round = batch ? (*profiler)->profile_batch(problem, kernels, request.round)
                  : (*profiler)->profile(kernels.front(), problem, request.round);
  }
  context.profilers().set_progress({});
  return round;
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
    const std::optional<fs::path> document = candidate_document(candidate.dir);
    const std::size_t used = estimate_tokens(text);
    text += (text.empty() ? "" : "\n") +
            budgeted_report_text(*candidate.report, budget > used + 1 ? budget - used - 1 : 1,
                                 document ? file_uri(*document) : std::string());
  }
  return cut_to_budget(text, budget);
}

ToolResult round_result(const RoundResult& round, bool batch, std::size_t budget,
                        const std::string& served_by) {
  ToolResult result;
  Json candidates = Json::array();
  std::vector<BatchCandidate> ranked_input;
  for (const CandidateResult& candidate : round.candidates) {
    ranked_input.push_back(BatchCandidate{
        candidate.index, candidate.kernel.string(), std::string(to_string(candidate.status)),
        candidate.gpu, candidate.dir.string(), candidate.report, candidate.error});
  }
  const Json batch_doc =
      batch_document(round.round, round.wall_seconds, round.metadata, ranked_input);
  std::size_t failed = 0;
  if (!batch) {
    const CandidateResult& candidate = round.candidates.front();
    result.text = candidate_text(candidate, budget);
    candidates.push_back(candidate_json(candidate, std::nullopt, false));
    add_candidate_links(candidate, result.links);
    result.is_error = candidate.error.has_value();
  } else {
    // The ranking first, then each candidate in rank order within its share of the budget.
    const std::string ranking = render(Format::prompt, batch_doc);
    const std::size_t total = budget * std::max<std::size_t>(round.candidates.size(), 1);
    const std::size_t left =
        total > estimate_tokens(ranking) ? total - estimate_tokens(ranking) : 0;
    const std::size_t each =
        std::max<std::size_t>(left / std::max<std::size_t>(round.candidates.size(), 1), 50);
    result.text = ranking;
    for (const Json& entry : batch_doc["candidates"]) {
      const int index = entry.value("candidate", 0);
      const auto found = std::find_if(round.candidates.begin(), round.candidates.end(),
                                      [&](const CandidateResult& c) { return c.index == index; });
      if (found == round.candidates.end()) {
        continue;
      }
      const std::optional<int> rank = entry["rank"].is_number_integer()
                                          ? std::optional<int>(entry["rank"].get<int>())
                                          : std::nullopt;
      const std::string heading =
          fmt::format("\n### cand{} ({}, {}{})\n", index, found->kernel.filename().string(),
                      to_string(found->status), rank ? fmt::format(", rank {}", *rank) : "");
      const std::size_t heading_tokens = estimate_tokens(heading);
      result.text +=
          heading + candidate_text(*found, each > heading_tokens + 50 ? each - heading_tokens : 50);
      candidates.push_back(candidate_json(*found, rank, true));
      add_candidate_links(*found, result.links);
      failed += found->status == CandidateStatus::failed ? 1U : 0U;
    }
    result.text = cut_to_budget(result.text, total);
    // A batch succeeds when it ran; only a batch whose every candidate failed is an error.
    result.is_error = failed == round.candidates.size();
  }
  result.links.push_back(ResourceLink{file_uri(round.dir) + "/", round.dir.filename().string(),
                                      "the round directory: every file of the round",
                                      "application/json"});
  result.structured = Json{{"round", round.round},       {"dir", round.dir.string()},
                           {"in_place", round.in_place}, {"wall_seconds", round.wall_seconds},
                           {"served_by", served_by},     {"candidates", std::move(candidates)}};
  return result;
}

} // namespace

Result<KernelProfiler*> ProfilerCache::get(const ProfileOptions& options, const fs::path& problem) {
  Json key = profiler_key(options, problem);
  if (m_profiler && key == m_key) {
    return &*m_profiler;
  }
  clear();
  ProfileOptions kept = options;
  kept.on_progress = [slot = m_slot](const std::string& line) {
    const std::lock_guard<std::mutex> hold(slot->mutex);
    if (slot->progress) {
      slot->progress(line);
    }
  };
  auto profiler = KernelProfiler::create(std::move(kept));
  if (!profiler) {
    return std::move(profiler).error();
  }
  m_profiler.emplace(std::move(profiler).value());
  m_key = std::move(key);
  return &*m_profiler;
}

void ProfilerCache::set_progress(std::function<void(const std::string&)> progress) {
  const std::lock_guard<std::mutex> hold(m_slot->mutex);
  m_slot->progress = std::move(progress);
}

void ProfilerCache::clear() {
  if (m_profiler) {
    m_profiler->release_standbys();
    m_profiler.reset();
  }
  m_key = Json();
}

Json round_input_schema(bool batch) {
  Json properties = Json::object();
  if (batch) {
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
  return object_schema(std::move(properties),
                       batch ? std::vector<std::string>{"problem_file", "kernel_files"}
                             : std::vector<std::string>{"kernel_file", "problem_file"});
}

Json round_output_schema() {
  return Json{
      {"type", "object"},
      {"properties",
       Json{{"round", Json{{"type", "integer"}}},
            {"dir", Json{{"type", "string"}, {"description", "the round directory"}}},
            {"in_place", Json{{"type", "boolean"},
                              {"description", "false: a failed re-run kept beside the good round "
                                              "(roundNNN.attempt-K)"}}},
            {"wall_seconds", Json{{"type", "number"}}},
            {"served_by", Json{{"type", "string"},
                               {"description", "\"kprof mcp\", or the kprof serve that ran it"}}},
            {"candidates", Json{{"type", "array"}, {"items", candidate_schema()}}},
            {"error", error_schema()}}}};
}

ToolResult run_round_tool(const Json& arguments, ToolContext& context, bool batch) {
  Json values = context.settings().run_options;
  for (const auto& [key, value] : arguments.items()) {
    if (find_option_spec(key) != nullptr) {
      values[key] = value;
    }
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
  std::vector<fs::path> kernels;
  if (batch) {
    for (const std::string& kernel : names_argument(arguments, "kernel_files")) {
      kernels.emplace_back(kernel);
    }
    if (kernels.empty()) {
      return error_result(make_error(ErrorCategory::usage, "kernel_files is empty: give the "
                                                           "candidate kernel files"));
    }
  } else {
    kernels.emplace_back(text_argument(arguments, "kernel_file"));
  }
  if (auto inputs = check_round_inputs(problem, kernels); !inputs) {
    return error_result(inputs.error()); // before looking for ncu, as the CLI does
  }
  std::error_code ec;
  context.resources().add_run_dir(fs::absolute(request->options.out_dir, ec));
  std::optional<Result<RoundResult>> round;
  std::string served_by;
  const bool ran = context.in_process_lane([&] {
    context.progress(fmt::format("profiling {} candidate{} of {} (round {})", kernels.size(),
                                 kernels.size() == 1 ? "" : "s", problem.filename().string(),
                                 request->round));
    round = run_round(*request, problem, kernels, batch, context, served_by);
  });
  if (!ran || !round) {
    return error_result(make_error(ErrorCategory::usage, "the call was cancelled"));
  }
  if (!*round) {
    return error_result(round->error());
  }
  return round_result(round->value(), batch, *budget, served_by);
}

} // namespace kprof::mcp

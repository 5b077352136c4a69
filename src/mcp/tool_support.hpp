// What the tool files of src/mcp share: schemas, the facts of a report, budgets (internal).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/profiler.hpp"
#include "mcp/tools.hpp"

namespace kprof::mcp {

// ---- schemas ----------------------------------------------------------------------------------

/// {"type": type, "description": description}.
Json property(std::string_view type, std::string_view description);
/// {"type": "object", "properties": ..., "required": ..., "additionalProperties": false}.
Json object_schema(Json properties, const std::vector<std::string>& required = {});
/// The schema of an option of the table (include/kprof/options.hpp), for a tool argument of
/// the same name: its JSON type, range or words, default and help.
Json option_property(std::string_view key);
/// {"type": "integer", ...}: token_budget.
Json budget_property();

// ---- facts ------------------------------------------------------------------------------------

/// Links to a candidate's report.json / error.json.
void add_candidate_links(const CandidateResult& candidate, std::vector<ResourceLink>& links);

// ---- budgets ----------------------------------------------------------------------------------

/// The call's token_budget (settings.token_budget when absent); usage error out of range.
Result<std::size_t> token_budget(const Json& arguments, const McpSettings& settings);
/// `text` cut at a line end to `budget` tokens, ending in a line saying so.
std::string cut_to_budget(const std::string& text, std::size_t budget);
/// The error as text within `budget` tokens: the message, the detail's tail, the category.
std::string error_text(const Error& error, std::size_t budget);

/// A string argument, or `fallback`.
std::string text_argument(const Json& arguments, std::string_view key,
                          std::string_view fallback = {});
/// A names argument (one string or a list of strings).
std::vector<std::string> names_argument(const Json& arguments, std::string_view key);

// ---- the round tools (round_tools.cpp) --------------------------------------------------------

/// The tools that profile a round.
enum class RoundTool {
  profile, ///< one kernel_file
  batch,   ///< kernel_files, ranked
  model,   ///< problem_file's Model as the candidate (kprof model, kprof/model.hpp)
};
ToolResult run_round_tool(const Json& arguments, ToolContext& context, RoundTool tool);
/// The input and output schemas of the round tools, made from the option table.
Json round_input_schema(RoundTool tool);
Json round_output_schema();

} // namespace kprof::mcp

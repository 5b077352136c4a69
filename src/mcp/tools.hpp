// The tools of `kprof mcp` (internal to src/mcp): each a name, its JSON Schemas and a function
// from arguments to a result, over the library's own entry points.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/mcp.hpp"
#include "kprof/profiler.hpp"
#include "kprof/run.hpp"
#include "mcp/resources.hpp"

namespace kprof::mcp {

/// A resource a result points at (a resource_link in protocol 2025-06-18).
struct ResourceLink {
  std::string uri;
  std::string name;
  std::string description;
  std::string mime_type;
};

/// What a tool call gives back: text (the prompt, within the budget), structured facts that
/// match the tool's outputSchema, links to its resources.
struct ToolResult {
  std::string text;
  Json structured = Json::object();
  bool is_error = false;
  std::vector<ResourceLink> links;
};

/// The error as a tool result: "kprof: error: MESSAGE", the detail's last lines (a traceback's
/// tail), "(category C, exit code N)", and structured {"error": {category, exit_code, message,
/// detail}}.
ToolResult error_result(const Error& error);

/// What a tool can use of the server.
class ToolContext {
public:
  ToolContext() = default;
  virtual ~ToolContext() = default;
  ToolContext(const ToolContext&) = delete;
  ToolContext& operator=(const ToolContext&) = delete;
  ToolContext(ToolContext&&) = delete;
  ToolContext& operator=(ToolContext&&) = delete;

  /// A progress notification (when the client gave a progress token; else nothing).
  virtual void progress(const std::string& message) = 0;
  /// Runs `work` in the process lane: one call at a time runs processes, so cancelling it
  /// (kprof's cancellation is process-wide) stops only its own. False, without running `work`,
  /// when the call was cancelled while it waited.
  virtual bool in_process_lane(const std::function<void()>& work) = 0;
  [[nodiscard]] virtual bool cancelled() const = 0;
  virtual Resources& resources() = 0;
  /// The profiler kept between calls (its standby answers the next round: kprof/run.hpp).
  virtual ProfilerCache& profilers() = 0;
  [[nodiscard]] virtual const McpSettings& settings() const = 0;
};

struct ToolSpec {
  std::string name;
  std::string title;
  std::string description;
  bool read_only = true;
  Json input_schema;
  Json output_schema;
  std::function<ToolResult(const Json& arguments, ToolContext& context)> run;
  /// The arguments that are options of the table (include/kprof/options.hpp): their types are
  /// checked by its check_option_types(), so a wrong type reads as it does for Python.
  std::vector<std::string> option_keys;
  /// The other arguments that name files or directories (a string, or a list of strings):
  /// refused up front, by the library's check_path_text(), when they hold a NUL byte.
  std::vector<std::string> path_keys;
  /// Reads captures, reports or histories (McpSettings::read_slots): the server runs it in one
  /// of its read slots.
  bool reads_files = false;
};

/// Every tool, in the order tools/list shows them.
std::span<const ToolSpec> tool_specs();

/// The tool called `name`; nullptr when there is none.
const ToolSpec* find_tool(std::string_view name);

/// Checks `arguments` against the tool's input schema: an object, no unknown key, the required
/// ones there, each of its JSON type (option-table keys by the table's own check, in its words),
/// and every path (path_keys, the table's path options) without a NUL byte (check_path_text).
/// usage error naming the argument otherwise. Values (ranges, words, files) are checked by the
/// call, as the CLI checks them.
Result<void> check_arguments(const ToolSpec& tool, const Json& arguments);

} // namespace kprof::mcp

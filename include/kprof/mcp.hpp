// kprof: `kprof mcp`, kprof's capabilities as tools over the Model Context Protocol (docs/mcp.md).
//
// An MCP server over a pair of file descriptors (stdio for `kprof mcp`): JSON-RPC 2.0, one
// message per line, protocol versions 2025-06-18, 2025-03-26 and 2024-11-05. Its tools (profile,
// batch, report, diff, history, hot_lines, diagnosis) call the library directly, take their
// options through the option table (include/kprof/options.hpp), and answer with the prompt text
// of the result cut to a token budget; round directories and report documents stay reachable as
// MCP resources.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"

namespace kprof {

/// The largest message (one line, without its newline) the server reads: 4 MiB. A longer line
/// is answered with a JSON-RPC error (-32600) and skipped; the server goes on reading.
inline constexpr std::size_t k_mcp_max_message_bytes = std::size_t{4} << 20U;

/// Tokens a tool result may use per candidate unless the call sets `token_budget`.
inline constexpr std::size_t k_mcp_default_token_budget = 1500;

/// The protocol versions the server speaks, newest first. A client that asks for another gets
/// the newest.
inline constexpr std::array<std::string_view, 3> k_mcp_protocol_versions{"2025-06-18", "2025-03-26",
                                                                         "2024-11-05"};

struct McpSettings {
  /// Option-table values (include/kprof/options.hpp, keys such as "ncu", "python", "use_sudo")
  /// under every profile and batch call: what `kprof mcp --ncu ...` was given. A call's own
  /// arguments cannot set these keys.
  Json run_options = Json::object();
  /// Keep a standby (docs/standby.md) after each profile, so the next profile of the same
  /// problem with the same options answers sooner.
  bool standby = true;
  /// Tokens per candidate when a call does not set `token_budget`.
  std::size_t token_budget = k_mcp_default_token_budget;
  std::size_t max_message_bytes = k_mcp_max_message_bytes;
  /// Seconds between the progress notifications of a profile that has nothing new to say.
  int heartbeat_seconds = 5;
  /// How many calls that read captures or reports (report, diff, history, hot_lines,
  /// diagnosis) run at once; the others wait for one of them to end (a cancelled one stops
  /// waiting). 0: mcp_read_slots_for_host().
  std::size_t read_slots = 0;
  /// One line per event for a person (stderr); may be empty.
  std::function<void(const std::string&)> log;
};

/// Serves MCP, reading requests from `in_fd` and writing answers to `out_fd`, until `in_fd`
/// ends, `out_fd` breaks or kprof is interrupted (request_cancellation() from a signal). Runs
/// that are still going then are stopped (their process groups, see run_process) and waited for;
/// standbys are stopped. Never throws; returns once nothing it started is running.
void serve_mcp(const McpSettings& settings, int in_fd, int out_fd);

/// The read slots of a host (McpSettings::read_slots 0): one per CPU core and per 2 GiB of the
/// memory kprof may use (the physical memory, or the cgroup's memory.max when lower), the
/// smaller, at least 1 and at most 16 (the calls in flight). Reading is CPU-bound, so more
/// reads than cores only multiply the memory held; one read holds about what `kprof report`
/// holds of the file (151 MB for a 366 MB, 150,000-launch capture, docs/mcp.md).
std::size_t mcp_read_slots_for_host();

/// `kprof mcp`: serve_mcp() over standard input and output. Descriptors 0 and 1 are moved to
/// private close-on-exec copies first, and /dev/null and stderr put in their place, so nothing
/// that kprof or a child prints can reach the protocol stream. io error when that fails.
Result<void> serve_mcp_stdio(const McpSettings& settings);

/// kprof's token estimate: one token per three bytes of UTF-8 text, rounded up (docs/mcp.md:
/// it overestimates the tokenizers of today's models on kprof's text, so a budget holds).
std::size_t estimate_tokens(std::string_view text);

/// The text of a report document (render(Format::prompt, report)) within `budget` tokens by
/// estimate_tokens(): unchanged when it fits; otherwise fewer NCU findings, metric groups,
/// hot lines and, last, kernels (the shortest first), each cut said in a closing line that
/// names `more` (where the whole document is, such as a resource URI) when it is not empty. The
/// roofline verdict, the diagnosis and the top hot line of the dominant kernel are the last to
/// go. Never longer than `budget` tokens (a budget below 50 is taken as 50). Never fails.
std::string budgeted_report_text(const Json& report, std::size_t budget, std::string_view more);

} // namespace kprof

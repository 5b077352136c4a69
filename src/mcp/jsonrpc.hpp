// JSON-RPC 2.0 as MCP's stdio transport frames it: one message per line (internal to src/mcp).
//
// LineSplitter cuts a byte stream into lines without ever holding more than the limit of one
// line; parse_line() turns a line into messages (a batch is several) or the error to answer. No
// function here throws on any input; the unit tests feed them random bytes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/json_file.hpp"

namespace kprof::mcp {

/// The JSON-RPC error codes kprof answers with (MCP adds resource_not_found).
enum class RpcCode : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
  server_busy = -32000, ///< too many calls in flight
  resource_not_found = -32002,
};

/// Messages nested deeper than this are refused before they are parsed (a line of 4 MiB of
/// '[' must not recurse anywhere).
inline constexpr std::size_t k_max_nesting = 64;

/// One line of input, or the note that a line was longer than the limit (its bytes dropped).
struct InputLine {
  std::string text;
  bool too_long = false;
};

/// Cuts bytes into lines at '\n' (a '\r' before it is dropped; empty lines are skipped). A line
/// longer than `limit` bytes is reported once as too_long and skipped up to its newline, so
/// memory stays within the limit whatever arrives.
class LineSplitter {
public:
  explicit LineSplitter(std::size_t limit) : m_limit(limit) {}

  /// Feeds the next bytes; calls `emit` for every line they complete.
  void feed(std::string_view bytes, const std::function<void(InputLine)>& emit);
  /// The end of the stream: emits the last line when it had no newline.
  void finish(const std::function<void(InputLine)>& emit);

private:
  void emit_line(const std::function<void(InputLine)>& emit);

  std::size_t m_limit;
  std::string m_line;
  bool m_skipping = false; ///< inside a line that was too long
};

/// What one message is.
enum class MessageKind {
  request,      ///< method and id: answered
  notification, ///< method, no id: never answered
  response,     ///< result or error with an id: an answer to the server (kprof sends no requests)
  invalid,      ///< answered with `error_code` and `error_message` (id null unless it was valid)
};

struct Message {
  MessageKind kind = MessageKind::invalid;
  Json id; ///< a string or an integer; null when there is none or it is not valid
  std::string method;
  Json params; ///< an object (empty when the message has none)
  RpcCode error_code = RpcCode::invalid_request;
  std::string error_message;
};

/// A line's messages: one, or those of a batch (a JSON array of messages).
struct ParsedLine {
  bool batch = false;
  std::vector<Message> messages;
};

/// Parses one line. Not JSON (or not UTF-8): one invalid message with parse_error. Nested
/// deeper than k_max_nesting, not an object, no "jsonrpc": "2.0", a method that is no string,
/// an id that is neither a string nor an integer, params that are not an object, an empty
/// batch: invalid_request (invalid_params for params). Never throws.
ParsedLine parse_line(std::string_view line);

/// The depth of the deepest array or object of `text` (strings skipped), counting until it
/// passes `limit` (then limit + 1).
std::size_t nesting_depth(std::string_view text, std::size_t limit);

/// {"jsonrpc": "2.0", "id": id, "result": result}.
Json rpc_result(const Json& id, Json result);
/// {"jsonrpc": "2.0", "id": id, "error": {"code", "message", "data"?}}; data left out when null.
Json rpc_error(const Json& id, RpcCode code, std::string_view message, Json data = nullptr);
/// {"jsonrpc": "2.0", "method": method, "params": params}.
Json rpc_notification(std::string_view method, Json params);

/// The message as one line of text with its newline (json_text: invalid UTF-8 as U+FFFD).
std::string wire_text(const Json& message);

} // namespace kprof::mcp

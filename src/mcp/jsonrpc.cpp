// JSON-RPC 2.0 framing for MCP's stdio transport (see jsonrpc.hpp).
#include "mcp/jsonrpc.hpp"

#include <utility>

namespace kprof::mcp {

void LineSplitter::feed(std::string_view bytes, const std::function<void(InputLine)>& emit) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (!m_skipping) {
      if (m_line.size() + piece.size() > m_limit) {
        m_skipping = true;
        m_line.clear();
        m_line.shrink_to_fit();
        emit(InputLine{{}, true});
      } else {
        m_line.append(piece);
      }
    }
    if (newline == std::string_view::npos) {
      return;
    }
    if (m_skipping) {
      m_skipping = false;
    } else {
      emit_line(emit);
    }
    bytes.remove_prefix(newline + 1);
  }
}

void LineSplitter::finish(const std::function<void(InputLine)>& emit) {
  if (!m_skipping) {
    emit_line(emit);
  }
  m_skipping = false;
}

void LineSplitter::emit_line(const std::function<void(InputLine)>& emit) {
  if (!m_line.empty() && m_line.back() == '\r') {
    m_line.pop_back();
  }
  if (m_line.find_first_not_of(" \t") == std::string::npos) {
    m_line.clear();
    return;
  }
  emit(InputLine{std::exchange(m_line, std::string()), false});
}

std::size_t nesting_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) {
          return limit + 1;
        }
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

namespace {

Message invalid(RpcCode code, std::string message, Json id = nullptr) {
  Message out;
  out.kind = MessageKind::invalid;
  out.error_code = code;
  out.error_message = std::move(message);
  out.id = std::move(id);
  return out;
}

bool valid_id(const Json& id) {
  return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

Message classify(const Json& value) {
  if (!value.is_object()) {
    return invalid(RpcCode::invalid_request, "a JSON-RPC message must be an object");
  }
  const auto id_member = value.find("id");
  const bool has_id = id_member != value.end();
  Json id = has_id && valid_id(*id_member) ? *id_member : Json(nullptr);
  const auto version = value.find("jsonrpc");
  if (version == value.end() || !version->is_string() || version->get<std::string>() != "2.0") {
    return invalid(RpcCode::invalid_request, R"("jsonrpc" must be "2.0")", id);
  }
  if (has_id && !valid_id(*id_member)) {
    return invalid(RpcCode::invalid_request, "\"id\" must be a string or an integer");
  }
  const auto method = value.find("method");
  if (method == value.end()) {
    if (has_id && (value.contains("result") || value.contains("error"))) {
      Message response;
      response.kind = MessageKind::response;
      response.id = std::move(id);
      return response;
    }
    return invalid(RpcCode::invalid_request, "a request needs a \"method\"", id);
  }
  if (!method->is_string()) {
    return invalid(RpcCode::invalid_request, "\"method\" must be a string", id);
  }
  Message message;
  message.method = method->get<std::string>();
  message.params = Json::object();
  if (const auto params = value.find("params"); params != value.end()) {
    if (!params->is_object()) {
      return invalid(RpcCode::invalid_params, "\"params\" must be an object", id);
    }
    message.params = *params;
  }
  message.kind = has_id ? MessageKind::request : MessageKind::notification;
  message.id = std::move(id);
  return message;
}

} // namespace

ParsedLine parse_line(std::string_view line) {
  ParsedLine parsed;
  if (nesting_depth(line, k_max_nesting) > k_max_nesting) {
    parsed.messages.push_back(invalid(RpcCode::invalid_request,
                                      "the message is nested deeper than " +
                                          std::to_string(k_max_nesting) + " arrays or objects"));
    return parsed;
  }
  Json value = Json::parse(line, nullptr, false);
  if (value.is_discarded()) {
    parsed.messages.push_back(invalid(RpcCode::parse_error, "the line is not valid JSON"));
    return parsed;
  }
  if (!value.is_array()) {
    parsed.messages.push_back(classify(value));
    return parsed;
  }
  if (value.empty()) {
    parsed.messages.push_back(invalid(RpcCode::invalid_request, "an empty batch"));
    return parsed;
  }
  parsed.batch = true;
  for (const Json& item : value) {
    parsed.messages.push_back(classify(item));
  }
  return parsed;
}

Json rpc_result(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json rpc_error(const Json& id, RpcCode code, std::string_view message, Json data) {
  Json error{{"code", static_cast<int>(code)}, {"message", message}};
  if (!data.is_null()) {
    error["data"] = std::move(data);
  }
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

Json rpc_notification(std::string_view method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::string wire_text(const Json& message) {
  std::string text = json_text(message, -1);
  text += '\n';
  return text;
}

} // namespace kprof::mcp

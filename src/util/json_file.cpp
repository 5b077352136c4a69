#include "kprof/json_file.hpp"

#include <cmath>
#include <cstdint>

#include "kprof/files.hpp"

namespace kprof {

std::string json_text(const Json& doc, int indent) {
  std::string text = doc.dump(indent, ' ', false, Json::error_handler_t::replace);
  if (indent >= 0) {
    text += '\n';
  }
  return text;
}

Result<void> write_json_atomic(const std::filesystem::path& path, const Json& doc, int indent) {
  return write_file_atomic(path, json_text(doc, indent));
}

namespace {

/// 2^53: doubles below this magnitude hold every integer exactly.
constexpr double k_exact_integer_limit = 9007199254740992.0;

} // namespace

Json number_json(double value) {
  if (!std::isfinite(value)) {
    return Json(nullptr);
  }
  if (std::fabs(value) < k_exact_integer_limit && std::trunc(value) == value) {
    return Json(static_cast<std::int64_t>(value));
  }
  return Json(value);
}

Json number_json(std::optional<double> value) {
  return value ? number_json(*value) : Json(nullptr);
}

Json to_json(const Error& error) {
  return Json{{"category", std::string(to_string(error.category))},
              {"exit_code", exit_code(error.category)},
              {"message", error.message},
              {"detail", error.detail}};
}

Json error_json_schema() {
  return Json{{"type", "object"},
              {"properties", Json{{"category", Json{{"type", "string"}}},
                                  {"exit_code", Json{{"type", "integer"}}},
                                  {"message", Json{{"type", "string"}}},
                                  {"detail", Json{{"type", "string"}}}}},
              {"required", Json::array({"category", "exit_code", "message"})}};
}

Json to_json(const std::optional<Error>& error) {
  return error ? to_json(*error) : Json(nullptr);
}

std::optional<Error> error_from_json(const Json& json) {
  if (!json.is_object()) {
    return std::nullopt;
  }
  const auto text = [&json](const char* key) {
    const auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  Error error;
  error.category = parse_error_category(text("category")).value_or(ErrorCategory::internal);
  error.message = text("message");
  error.detail = text("detail");
  return error;
}

} // namespace kprof

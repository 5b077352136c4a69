#include "kprof/json_file.hpp"

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

Json to_json(const Error& error) {
  return Json{{"category", std::string(to_string(error.category))},
              {"message", error.message},
              {"detail", error.detail}};
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

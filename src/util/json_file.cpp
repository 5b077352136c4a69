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

} // namespace kprof

// JSON sink: the document itself, 2-space indented (or compact), with a trailing newline.
#include <memory>
#include <string>

#include "report/sinks.hpp"

namespace kprof::report_detail {

namespace {

class JsonSink final : public Sink {
public:
  [[nodiscard]] Format format() const override { return Format::json; }

  [[nodiscard]] std::string render(const Json& doc, const RenderOptions& options) const override {
    // `replace` turns invalid UTF-8 (a mangled kernel name) into U+FFFD instead of throwing.
    std::string text =
        doc.dump(options.compact ? -1 : 2, ' ', false, Json::error_handler_t::replace);
    text += '\n';
    return text;
  }
};

} // namespace

std::unique_ptr<Sink> make_json_sink() {
  return std::make_unique<JsonSink>();
}

} // namespace kprof::report_detail

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
    // json_text: the one JSON writer (invalid UTF-8 becomes U+FFFD instead of throwing).
    std::string text = json_text(doc, options.compact ? -1 : 2);
    if (options.compact) {
      text += '\n';
    }
    return text;
  }
};

} // namespace

std::unique_ptr<Sink> make_json_sink() {
  return std::make_unique<JsonSink>();
}

} // namespace kprof::report_detail

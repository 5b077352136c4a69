// The report document as the files of a round read it (kprof/report.hpp, ReportSource): a tree
// held in memory, or build_report's document of a capture made launch by launch.
//
// Design note. A 20,000-launch capture's document is 119 MB of JSON text and took about 1 GB as
// an nlohmann tree, held while report.json, metrics.csv, the KernelAgent file and the history row
// were written from it. A CaptureReport holds only the outline (metadata, summary, roofline and
// one launch per kernel name, the document build_report_of_representatives gives and the text
// sinks draw); each writer reads the launches one at a time, made again by the same functions
// build_report uses (report_parts.hpp), and the JSON text is write_report_json's. The tests in
// tests/unit/report/fixtures_test.cpp compare every file made from both kinds on the recorded
// fixtures.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/report.hpp"
#include "report/report_parts.hpp"
#include "report/sinks.hpp"
#include "util/unique_fd.hpp"

namespace kprof {

namespace {

/// Whether the next launch of `name` is among the first `per_name` of its name (0: all).
class PerName {
public:
  explicit PerName(int per_name) : m_per_name(per_name) {}
  bool take(std::string_view name) {
    if (m_per_name <= 0) {
      return true;
    }
    auto found = m_seen.find(name);
    if (found == m_seen.end()) {
      found = m_seen.emplace(std::string(name), 0).first;
    }
    return found->second++ < m_per_name;
  }

private:
  int m_per_name;
  std::map<std::string, int, std::less<>> m_seen;
};

} // namespace

void HeldReport::for_each_launch(const std::function<void(const Json&)>& each, bool /*diagnosis*/,
                                 int per_name) const {
  const Json* kernels = json_read::member(*m_doc, "kernels");
  if (kernels == nullptr || !kernels->is_array()) {
    return;
  }
  PerName taken(per_name);
  for (const Json& launch : *kernels) {
    if (taken.take(json_read::text_at(launch, "name"))) {
      each(launch);
    }
  }
}

std::vector<AgentMember> HeldReport::agent_members() const {
  std::vector<AgentMember> members;
  const Json* metrics = json_read::member(*m_doc, "metrics");
  if (metrics == nullptr || !metrics->is_object()) {
    return members;
  }
  for (const auto& [name, entry] : metrics->items()) {
    members.push_back(AgentMember{name, entry.is_array()});
  }
  return members;
}

void HeldReport::for_each_agent_record(const std::string& name,
                                       const std::function<void(const Json&)>& each) const {
  const Json* metrics = json_read::member(*m_doc, "metrics");
  const Json* entry = metrics != nullptr ? json_read::member(*metrics, name) : nullptr;
  if (entry == nullptr) {
    return;
  }
  if (!entry->is_array()) {
    each(*entry);
    return;
  }
  for (const Json& record : *entry) {
    each(record);
  }
}

void HeldReport::write_json(const RenderOptions& options, const TextOut& out) const {
  out(render(Format::json, *m_doc, options));
}

std::string HeldReport::document_text(bool compact) const {
  return json_text(*m_doc, compact ? -1 : 2);
}

namespace {

/// The caller's run facts with generated_at, so that every text made from one CaptureReport
/// names the same time. A run fact of that name is the caller's to give.
Json with_generation_time(const Json& run_metadata) {
  Json out = run_metadata.is_null() ? Json::object() : run_metadata;
  if (out.is_object() && !out.contains("generated_at")) {
    out["generated_at"] = utc_timestamp();
  }
  return out;
}

} // namespace

CaptureReport::CaptureReport(const Capture& capture, const Analysis& analysis,
                             const MetricSet& metrics, const Json& run_metadata, Json kept_members)
    : m_capture(&capture), m_analysis(&analysis), m_metrics(&metrics),
      m_run_metadata(with_generation_time(run_metadata)), m_kept_members(std::move(kept_members)),
      m_outline(build_report_of_representatives(capture, analysis, metrics, m_run_metadata)) {
  for (const auto& [key, value] : m_kept_members.items()) {
    m_outline[key] = value;
  }
  for (auto& [name, launches] : report_detail::launches_by_name(capture, analysis)) {
    m_agent_slot.try_emplace(std::string(name), m_agent_launches.size());
    m_agent_launches.emplace_back(std::string(name), std::move(launches));
  }
}

void CaptureReport::for_each_launch(const std::function<void(const Json&)>& each, bool diagnosis,
                                    int per_name) const {
  const std::vector<std::string> keys = report_detail::column_keys(*m_capture);
  std::optional<report_detail::DiagnosisContext> context;
  if (diagnosis) {
    context.emplace(*m_capture, m_analysis->gpu, m_metrics->name, m_outline.at("metadata"));
  }
  PerName taken(per_name);
  for (const std::size_t index : m_analysis->selected) {
    if (taken.take(m_capture->kernels[index].name)) {
      each(report_detail::kernel_json(*m_capture, m_capture->kernels[index], keys,
                                      context ? &*context : nullptr));
    }
  }
}

std::vector<AgentMember> CaptureReport::agent_members() const {
  std::vector<AgentMember> members;
  members.reserve(m_agent_launches.size());
  for (const auto& [name, launches] : m_agent_launches) {
    members.push_back(AgentMember{name, launches.size() > 1});
  }
  return members;
}

void CaptureReport::for_each_agent_record(const std::string& name,
                                          const std::function<void(const Json&)>& each) const {
  const auto slot = m_agent_slot.find(name);
  if (slot == m_agent_slot.end()) {
    return;
  }
  for (const std::size_t index : m_agent_launches[slot->second].second) {
    each(report_detail::agent_record(*m_capture, m_capture->kernels[index], *m_metrics));
  }
}

void CaptureReport::write_json(const RenderOptions& options, const TextOut& out) const {
  write_report_json(*m_capture, *m_analysis, *m_metrics, m_run_metadata, options, out,
                    m_kept_members);
}

namespace {

/// report.write_json's text in one string, allocated once: written twice, once to count it.
std::string counted_text(const ReportSource& report, bool compact) {
  RenderOptions options;
  options.compact = compact;
  std::size_t size = 0;
  report.write_json(options, [&size](std::string_view piece) { size += piece.size(); });
  std::string text;
  text.reserve(size);
  report.write_json(options, [&text](std::string_view piece) { text += piece; });
  if (compact && !text.empty()) {
    text.pop_back(); // the JSON sink's line break, which json_text(doc, -1) has not
  }
  return text;
}

/// Appends `text` to `out` without its whitespace between tokens, the state of a string left
/// open at the end of one piece carried in `in_string` and `escaped` to the next. Written through
/// a pointer into `out` grown once by `text`'s size (the compact text is never longer): appending
/// token by token was a tenth of a 20,000-launch round's time (docs/performance.md).
void append_compact(std::string& out, std::string_view text, bool& in_string, bool& escaped) {
  const std::size_t start = out.size();
  out.resize(start + text.size());
  char* to = out.data() + start;
  const char* at = text.data();
  const char* const end = at + text.size();
  while (at < end) {
    const char c = *at++;
    if (in_string) {
      *to++ = c;
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      continue;
    }
    *to++ = c;
    in_string = c == '"';
  }
  out.resize(static_cast<std::size_t>(to - out.data()));
}

} // namespace

std::string CaptureReport::document_text(bool compact) const {
  return counted_text(*this, compact);
}

namespace {

/// open_written_report's report: the text from the file it holds open, the rest `made`'s.
class WrittenReport final : public ReportSource {
public:
  WrittenReport(std::shared_ptr<const ReportSource> made, UniqueFd fd)
      : m_made(std::move(made)), m_fd(std::move(fd)) {}

  [[nodiscard]] const Json& outline() const override { return m_made->outline(); }
  [[nodiscard]] bool uniform_metrics() const override { return m_made->uniform_metrics(); }
  void for_each_launch(const std::function<void(const Json&)>& each, bool diagnosis = true,
                       int per_name = 0) const override {
    m_made->for_each_launch(each, diagnosis, per_name);
  }
  [[nodiscard]] std::vector<AgentMember> agent_members() const override {
    return m_made->agent_members();
  }
  void for_each_agent_record(const std::string& name,
                             const std::function<void(const Json& record)>& each) const override {
    m_made->for_each_agent_record(name, each);
  }
  /// The file's text in pieces of 1 MiB (compact: without its whitespace between tokens, and
  /// with the sink's one line break at the end).
  void write_json(const RenderOptions& options, const TextOut& out) const override;
  [[nodiscard]] std::string document_text(bool compact) const override {
    return counted_text(*this, compact);
  }

private:
  std::shared_ptr<const ReportSource> m_made;
  UniqueFd m_fd;
};

void WrittenReport::write_json(const RenderOptions& options, const TextOut& out) const {
  constexpr std::size_t k_piece = std::size_t{1} << 20U;
  std::string buffer(k_piece, '\0');
  std::string compact;
  bool in_string = false;
  bool escaped = false;
  off_t offset = 0;
  while (true) {
    const ssize_t got = ::pread(m_fd.get(), buffer.data(), k_piece, offset);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0 && offset == 0) {
      m_made->write_json(options, out);
      return;
    }
    if (got <= 0) {
      break;
    }
    offset += got;
    const std::string_view piece(buffer.data(), static_cast<std::size_t>(got));
    if (!options.compact) {
      out(piece);
      continue;
    }
    compact.clear();
    append_compact(compact, piece, in_string, escaped);
    out(compact);
  }
  if (options.compact) {
    out("\n");
  }
}

} // namespace

Result<std::shared_ptr<const ReportSource>>
open_written_report(std::shared_ptr<const ReportSource> made, const std::filesystem::path& path) {
  KPROF_ASSERT(made != nullptr);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat info {};
  if (!fd || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return make_error(ErrorCategory::io,
                      fmt::format("cannot read back {}: {}", path.string(),
                                  fd ? std::string("not a regular file") : errno_text(errno)));
  }
  return std::shared_ptr<const ReportSource>(
      std::make_shared<const WrittenReport>(std::move(made), std::move(fd)));
}

} // namespace kprof

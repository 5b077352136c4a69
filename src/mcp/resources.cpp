// The resources of a `kprof mcp` session (see resources.hpp).
#include "mcp/resources.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/report_view.hpp"
#include "kprof/round_layout.hpp"

namespace kprof::mcp {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t k_page_size = 200;
constexpr std::size_t k_max_kept_documents = 64;
constexpr std::size_t k_max_kept_bytes = std::size_t{128} << 20U;
constexpr std::string_view k_document_scheme = "kprof://report/";

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~' || c == '/';
}

std::string mime_type_of(const fs::path& path) {
  const std::string extension = path.extension().string();
  if (extension == ".json") {
    return "application/json";
  }
  if (extension == ".csv") {
    return "text/csv";
  }
  if (extension == ".py") {
    return "text/x-python";
  }
  return "text/plain";
}

/// "round007", "round007.attempt-2": a round directory's name.
bool is_round_name(const std::string& name) {
  if (!name.starts_with("round") || name.size() < 8) {
    return false;
  }
  const std::string_view digits = std::string_view(name).substr(5, 3);
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
         (name.size() == 8 || name.substr(8).starts_with(".attempt-") ||
          std::isdigit(static_cast<unsigned char>(name[8])) != 0);
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

Json resource(const fs::path& path, std::string name, std::string description, bool directory) {
  Json entry{{"uri", file_uri(path) + (directory ? "/" : "")},
             {"name", std::move(name)},
             {"description", std::move(description)},
             {"mimeType", directory ? "application/json" : mime_type_of(path)}};
  std::error_code ec;
  if (!directory) {
    if (const auto size = fs::file_size(path, ec); !ec) {
      entry["size"] = size;
    }
  }
  return entry;
}

/// The resources of one round directory: itself, and the documents in it and its candidates.
void add_round(const fs::path& round_dir, const std::string& prefix, std::vector<Json>& out) {
  const std::string name = round_dir.filename().string();
  out.push_back(resource(round_dir, prefix + name + "/",
                         fmt::format("round directory {}: its files", round_dir.string()), true));
  const auto add_documents = [&](const fs::path& dir, const std::string& label) {
    for (const std::string_view file :
         {RoundLayout::k_report, RoundLayout::k_error, RoundLayout::k_batch}) {
      const fs::path path = dir / file;
      std::error_code ec;
      if (fs::is_regular_file(path, ec)) {
        out.push_back(resource(path, fmt::format("{}{}", label, file),
                               fmt::format("{} of {}", file, dir.string()), false));
      }
    }
  };
  add_documents(round_dir, prefix + name + "/");
  for (const fs::path& entry : sorted_entries(round_dir)) {
    const std::string candidate = entry.filename().string();
    std::error_code ec;
    if (candidate.starts_with("cand") && fs::is_directory(entry, ec)) {
      add_documents(entry, fmt::format("{}{}/{}/", prefix, name, candidate));
    }
  }
}

Json directory_listing(const fs::path& dir) {
  Json files = Json::array();
  for (const fs::path& entry : sorted_entries(dir)) {
    std::error_code ec;
    const bool directory = fs::is_directory(entry, ec);
    Json file{{"name", entry.filename().string()},
              {"uri", file_uri(entry) + (directory ? "/" : "")},
              {"kind", directory ? "directory" : "file"}};
    if (!directory) {
      if (const auto size = fs::file_size(entry, ec); !ec) {
        file["size"] = size;
      }
    }
    files.push_back(std::move(file));
  }
  return Json{{"directory", dir.string()}, {"files", std::move(files)}};
}

} // namespace

std::string file_uri(const fs::path& path) {
  std::string uri = "file://";
  for (const char c : path.string()) {
    const auto byte = static_cast<unsigned char>(c);
    if (unreserved(byte)) {
      uri += c;
    } else {
      uri += fmt::format("%{:02X}", byte);
    }
  }
  return uri;
}

std::optional<fs::path> path_of_file_uri(std::string_view uri) {
  if (!uri.starts_with("file://")) {
    return std::nullopt;
  }
  uri.remove_prefix(7);
  if (uri.starts_with("localhost/")) {
    uri.remove_prefix(9);
  }
  if (!uri.starts_with('/')) {
    return std::nullopt;
  }
  std::string path;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      path += uri[i];
      continue;
    }
    unsigned value = 0;
    const char* first = uri.data() + i + 1;
    if (i + 2 >= uri.size() || std::from_chars(first, first + 2, value, 16).ptr != first + 2) {
      return std::nullopt;
    }
    path += static_cast<char>(value);
    i += 2;
  }
  if (path.find('\0') != std::string::npos) {
    return std::nullopt;
  }
  return fs::path(path);
}

void Resources::add_root(const fs::path& path, RootKind kind) {
  std::error_code ec;
  fs::path root = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) {
    root = fs::absolute(path, ec).lexically_normal();
  }
  if (root.filename().empty() && root.has_parent_path()) {
    root = root.parent_path(); // "dir/" names dir
  }
  const std::lock_guard<std::mutex> hold(m_mutex);
  Root entry{std::move(root), kind};
  if (std::find(m_roots.begin(), m_roots.end(), entry) == m_roots.end()) {
    m_roots.push_back(std::move(entry));
  }
}

void Resources::add_run_dir(const fs::path& dir) {
  add_root(dir, RootKind::run_dir);
}

void Resources::add_report_file(const fs::path& file) {
  std::error_code ec;
  const fs::path absolute = fs::weakly_canonical(fs::absolute(file, ec), ec);
  const fs::path parent = absolute.parent_path();
  if (is_round_name(parent.filename().string())) {
    add_root(parent, RootKind::round_dir);
  } else if (parent.filename().string().starts_with("cand") &&
             is_round_name(parent.parent_path().filename().string())) {
    add_root(parent.parent_path(), RootKind::round_dir);
  } else {
    add_root(absolute, RootKind::file);
  }
}

std::optional<std::string> Resources::keep_report(const ReportSource& report, std::string name) {
  // Without writing a launch: each kernel's launches as long as its representative's text.
  std::size_t estimate = 0;
  const ReportView view(report.outline());
  for (const ReportKernel& kernel : view.kernels()) {
    if (kernel.representative != nullptr) {
      estimate += kernel.launch_count * json_text(*kernel.representative).size();
    }
  }
  if (estimate > 4 * k_max_resource_bytes) {
    return std::nullopt;
  }
  std::string text;
  bool whole = true;
  report.write_json(RenderOptions{}, [&](std::string_view piece) {
    if (whole && text.size() + piece.size() > k_max_resource_bytes) {
      whole = false;
      std::string().swap(text);
    }
    if (whole) {
      text += piece;
    }
  });
  if (!whole) {
    return std::nullopt;
  }
  const std::lock_guard<std::mutex> hold(m_mutex);
  Kept kept{fmt::format("{}{}", k_document_scheme, m_next_document++), std::move(name),
            std::move(text)};
  m_kept_bytes += kept.text.size();
  std::string uri = kept.uri;
  m_kept.push_back(std::move(kept));
  while (m_kept.size() > 1 &&
         (m_kept.size() > k_max_kept_documents || m_kept_bytes > k_max_kept_bytes)) {
    m_kept_bytes -= m_kept.front().text.size();
    m_kept.pop_front();
  }
  return uri;
}

std::vector<Json> Resources::all_resources() const {
  std::vector<Root> roots;
  std::vector<Json> out;
  {
    const std::lock_guard<std::mutex> hold(m_mutex);
    roots = m_roots;
    for (const Kept& kept : m_kept) {
      out.push_back(Json{{"uri", kept.uri},
                         {"name", kept.name},
                         {"description", "a report document this session built"},
                         {"mimeType", "application/json"},
                         {"size", kept.text.size()}});
    }
  }
  std::sort(roots.begin(), roots.end(),
            [](const Root& a, const Root& b) { return a.path < b.path; });
  for (const Root& root : roots) {
    std::error_code ec;
    switch (root.kind) {
    case RootKind::file:
      if (fs::is_regular_file(root.path, ec)) {
        out.push_back(resource(root.path, root.path.filename().string(),
                               fmt::format("the report {}", root.path.string()), false));
      }
      break;
    case RootKind::round_dir:
      if (fs::is_directory(root.path, ec)) {
        add_round(root.path, "", out);
      }
      break;
    case RootKind::run_dir: {
      const std::string prefix = root.path.filename().string() + "/";
      for (const fs::path& entry : sorted_entries(root.path)) {
        if (is_round_name(entry.filename().string()) && fs::is_directory(entry, ec)) {
          add_round(entry, prefix, out);
        }
      }
      break;
    }
    }
  }
  return out;
}

std::variant<Json, RpcFailure> Resources::list(std::string_view cursor) const {
  std::size_t start = 0;
  if (!cursor.empty()) {
    const auto parsed = std::from_chars(cursor.data(), cursor.data() + cursor.size(), start);
    if (parsed.ec != std::errc() || parsed.ptr != cursor.data() + cursor.size()) {
      return RpcFailure{RpcCode::invalid_params,
                        fmt::format("cursor '{}' is not one this server gave", cursor)};
    }
  }
  const std::vector<Json> all = all_resources();
  Json page = Json::array();
  for (std::size_t i = start; i < all.size() && i < start + k_page_size; ++i) {
    page.push_back(all[i]);
  }
  Json result{{"resources", std::move(page)}};
  if (start + k_page_size < all.size()) {
    result["nextCursor"] = std::to_string(start + k_page_size);
  }
  return result;
}

bool Resources::readable(const fs::path& canonical) const {
  const std::lock_guard<std::mutex> hold(m_mutex);
  return std::any_of(m_roots.begin(), m_roots.end(), [&](const Root& root) {
    const auto [end, rest] =
        std::mismatch(root.path.begin(), root.path.end(), canonical.begin(), canonical.end());
    if (end != root.path.end()) {
      return false; // not under the root
    }
    switch (root.kind) {
    case RootKind::file:
      return rest == canonical.end();
    case RootKind::round_dir:
      return true;
    case RootKind::run_dir:
      // Only what lies in its round directories.
      return rest != canonical.end() && is_round_name(rest->string());
    }
    return false;
  });
}

std::variant<Json, RpcFailure> Resources::read(std::string_view uri) const {
  if (uri.starts_with(k_document_scheme)) {
    const std::lock_guard<std::mutex> hold(m_mutex);
    for (const Kept& kept : m_kept) {
      if (kept.uri == uri) {
        return Json{{"contents", Json::array({Json{{"uri", kept.uri},
                                                   {"mimeType", "application/json"},
                                                   {"text", kept.text}}})}};
      }
    }
    return RpcFailure{
        RpcCode::resource_not_found,
        fmt::format("no document {} (this session keeps the last {})", uri, k_max_kept_documents)};
  }
  const std::optional<fs::path> path = path_of_file_uri(uri);
  if (!path) {
    return RpcFailure{RpcCode::invalid_params, fmt::format("'{}' is not a file:// URI or a {}N URI",
                                                           uri, k_document_scheme)};
  }
  std::error_code ec;
  const fs::path canonical = fs::canonical(*path, ec);
  if (ec || !readable(canonical)) {
    return RpcFailure{RpcCode::resource_not_found,
                      fmt::format("{} is not a resource of this session (resources/list shows "
                                  "them: the rounds of the run directories its calls named)",
                                  path->string())};
  }
  if (fs::is_directory(canonical, ec)) {
    return Json{
        {"contents", Json::array({Json{{"uri", std::string(uri)},
                                       {"mimeType", "application/json"},
                                       {"text", json_text(directory_listing(canonical))}}})}};
  }
  if (!fs::is_regular_file(canonical, ec)) {
    return RpcFailure{RpcCode::resource_not_found,
                      fmt::format("{} is not a regular file", path->string())};
  }
  const auto size = fs::file_size(canonical, ec);
  if (ec || size > k_max_resource_bytes) {
    return RpcFailure{RpcCode::invalid_params,
                      fmt::format("{} is larger than {} MiB, the most resources/read returns",
                                  path->string(), k_max_resource_bytes >> 20U)};
  }
  auto text = read_file(canonical);
  if (!text) {
    return RpcFailure{RpcCode::resource_not_found, text.error().message};
  }
  if (text->find('\0') != std::string::npos) {
    return RpcFailure{RpcCode::invalid_params,
                      fmt::format("{} is a binary file (an Nsight Compute report opens in "
                                  "Nsight Compute); resources/read returns text files",
                                  path->string())};
  }
  return Json{{"contents", Json::array({Json{{"uri", std::string(uri)},
                                             {"mimeType", mime_type_of(canonical)},
                                             {"text", std::move(text).value()}}})}};
}

} // namespace kprof::mcp

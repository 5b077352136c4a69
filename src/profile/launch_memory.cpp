// The launch memory (src/profile/launch_memory.hpp). A file per problem under the directory,
// named by a hash of the problem's path: {"version": 1, "problem": PATH, "problem_hash": H,
// "many": BOOL, "filter": [WORD...]}, H the hash of the problem's text when it was written, the
// filter the ncu launch filters of its last round of representatives ([] with few launches).
#include "profile/launch_memory.hpp"

#include <algorithm>
#include <optional>

#include "kprof/files.hpp"
#include "kprof/json_file.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

constexpr int k_memory_version = 1;
constexpr std::size_t k_max_memory_bytes = std::size_t{64} << 10U;

/// The hash of the problem's text, nullopt when it cannot be read.
std::optional<std::string> text_hash(const fs::path& problem) {
  auto text = read_file(problem);
  if (!text) {
    return std::nullopt;
  }
  return file_name_hash(*text);
}

} // namespace

fs::path LaunchMemory::file_of(const std::string& problem) const {
  return m_dir / (file_name_hash(problem) + ".json");
}

const LaunchMemory::Known& LaunchMemory::known(const fs::path& problem) const {
  const std::string key = problem.string();
  if (auto found = m_known.find(key); found != m_known.end()) {
    return found->second;
  }
  Known found;
  if (!m_dir.empty()) {
    if (auto text = read_own_file(file_of(key), k_max_memory_bytes)) {
      const Json stored = Json::parse(*text, nullptr, false);
      const auto hash = text_hash(problem);
      if (stored.is_object() && stored.value("version", 0) == k_memory_version &&
          stored.value("problem", std::string()) == key && hash &&
          stored.value("problem_hash", std::string()) == *hash) {
        if (const auto many = stored.find("many"); many != stored.end() && many->is_boolean()) {
          found.many = many->get<bool>();
        }
        // Filters of an older kprof, or not all words, are none: the session then starts after
        // the timeline, as without them.
        if (const auto filter = stored.find("filter");
            found.many == true && filter != stored.end() && filter->is_array() &&
            std::all_of(filter->begin(), filter->end(),
                        [](const Json& word) { return word.is_string(); })) {
          found.filter = filter->get<std::vector<std::string>>();
        }
      }
    }
  }
  return m_known.emplace(key, std::move(found)).first->second;
}

std::optional<bool> LaunchMemory::recall(const fs::path& problem) const {
  const std::lock_guard<std::mutex> hold(m_mutex);
  return known(problem).many;
}

std::vector<std::string> LaunchMemory::filter(const fs::path& problem) const {
  const std::lock_guard<std::mutex> hold(m_mutex);
  return known(problem).filter;
}

void LaunchMemory::remember(const fs::path& problem, bool many,
                            std::vector<std::string> filter) const {
  const std::string key = problem.string();
  if (!many) {
    filter.clear();
  }
  Known now{many, std::move(filter)};
  {
    const std::lock_guard<std::mutex> hold(m_mutex);
    if (auto found = m_known.find(key); found != m_known.end() && found->second == now) {
      return; // nothing new: the file (if any) already says so
    }
    m_known[key] = now;
  }
  const auto hash = text_hash(problem);
  if (m_dir.empty() || !hash || !private_directory(m_dir, true)) {
    return;
  }
  const Json stored{{"version", k_memory_version},
                    {"problem", key},
                    {"problem_hash", *hash},
                    {"many", many},
                    {"filter", now.filter}};
  (void)write_json_atomic(file_of(key), stored);
}

} // namespace kprof

// Finding the PTX of a user's kernel in Triton's cache: `<cache>/<hash>/<kernel>.ptx`, one
// directory level, kept when its `.file` table names the user's file and it is not older than
// that file. Nothing here fails: an unreadable cache or entry is one with nothing to offer.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "kprof/hot_lines.hpp"
#include "source/ptx.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

fs::path canonical_or_same(const fs::path& path) {
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(path, error);
  return error ? path : canonical;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

bool names_file(std::string_view ptx, const fs::path& user_file) {
  const std::vector<std::string> paths = source::ptx_file_paths(ptx);
  return std::any_of(paths.begin(), paths.end(),
                     [&](const std::string& path) { return canonical_or_same(path) == user_file; });
}

/// The `<kernel>.ptx` files one level under `cache`, sorted by path.
std::vector<fs::path> ptx_candidates(const fs::path& cache,
                                     const std::vector<std::string>& kernel_names) {
  std::vector<fs::path> found;
  std::error_code error;
  for (fs::directory_iterator entry(cache, error), end; !error && entry != end;
       entry.increment(error)) {
    for (const std::string& kernel : kernel_names) {
      const fs::path ptx = entry->path() / (kernel + ".ptx");
      std::error_code ignored;
      if (fs::is_regular_file(ptx, ignored)) {
        found.push_back(ptx);
      }
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

} // namespace

std::vector<std::string> find_triton_ptx(const fs::path& triton_cache,
                                         const std::vector<std::string>& kernel_names,
                                         const fs::path& user_file, fs::file_time_type not_before) {
  const fs::path user = canonical_or_same(user_file);
  std::vector<std::string> texts;
  for (const fs::path& ptx : ptx_candidates(triton_cache, kernel_names)) {
    std::error_code error;
    const auto written = fs::last_write_time(ptx, error);
    if (error || written < not_before) {
      continue;
    }
    std::string text = read_text(ptx);
    if (!text.empty() && names_file(text, user)) {
      texts.push_back(std::move(text));
    }
  }
  return texts;
}

} // namespace kprof

// Finding ncu and reading its version.
//
// The search order puts what the user said first (--ncu, then $KPROF_NCU) and does not fall back
// when that names nothing: silently profiling with another ncu would be worse than stopping.
// `ncu --version` takes a second or so; its answer is cached per executable for the process.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/ncu.hpp"
#include "kprof/process.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

constexpr std::chrono::milliseconds k_version_timeout{10000};
constexpr std::string_view k_fix_hint =
    "install Nsight Compute (it comes with the CUDA toolkit), or pass --ncu PATH, or set "
    "KPROF_NCU=PATH";

bool is_executable_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

/// "2025.3.1" -> {2025, 3, 1}; names that are not dotted numbers sort as {} (oldest).
std::vector<std::int64_t> version_key(const std::string& name) {
  std::vector<std::int64_t> key;
  std::string_view rest = name;
  while (!rest.empty()) {
    const auto dot = rest.find('.');
    const std::string_view part = rest.substr(0, dot);
    std::int64_t number = 0;
    const auto* end = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(part.data(), end, number);
    if (ec != std::errc{} || ptr != end) {
      return {};
    }
    key.push_back(number);
    rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
  }
  return key;
}

/// <root>/<version>/ncu for every version directory under `root`, newest version first.
std::vector<fs::path> nsight_compute_candidates(const fs::path& root) {
  std::vector<std::pair<std::vector<std::int64_t>, fs::path>> found;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) {
      found.emplace_back(version_key(it->path().filename().string()), it->path() / "ncu");
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) {
      return a.first > b.first;
    }
    return a.second > b.second;
  });
  std::vector<fs::path> paths;
  paths.reserve(found.size());
  for (auto& entry : found) {
    paths.push_back(std::move(entry.second));
  }
  return paths;
}

std::string read_version(const fs::path& executable) {
  static std::mutex cache_mutex;
  static std::map<std::string, std::string> cache;
  const std::string key = executable.string();
  {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    if (const auto it = cache.find(key); it != cache.end()) {
      return it->second;
    }
  }
  ProcessSpec spec;
  spec.argv = {key, "--version"};
  spec.timeout = k_version_timeout;
  spec.max_captured_bytes = std::size_t{64} << 10U;
  auto result = run_process(spec);
  if (!result.ok()) {
    return {};
  }
  std::string version = parse_ncu_version(result->out).value_or(std::string{});
  if (version.empty() && result->succeeded()) {
    version = parse_ncu_version(result->err).value_or(std::string{});
  }
  // A failed run (timeout, crash) is not cached: the next attempt may work.
  if (!result->timed_out && !result->signaled) {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    cache.emplace(key, version);
  }
  return version;
}

NcuInstall make_install(fs::path executable) {
  std::error_code ec;
  fs::path absolute = fs::absolute(executable, ec);
  if (ec) {
    absolute = std::move(executable);
  }
  NcuInstall install;
  install.version = read_version(absolute);
  install.executable = std::move(absolute);
  return install;
}

/// An ncu the user named: it must say it is Nsight Compute (`--version` prints "Version X.Y"),
/// or profiling with it would fail later with a confusing error (or /bin/true would "succeed").
Result<NcuInstall> checked_install(const fs::path& executable, std::string_view named_by) {
  NcuInstall install = make_install(executable);
  if (install.version.empty()) {
    return make_error(ErrorCategory::ncu_not_found,
                      fmt::format("{} ({}) is not Nsight Compute: `{} --version` printed no ncu "
                                  "version; pass the path of Nsight Compute's ncu",
                                  named_by, executable.string(), executable.string()));
  }
  return install;
}

} // namespace

std::optional<std::string> parse_ncu_version(std::string_view version_output) {
  constexpr std::string_view k_marker = "Version ";
  std::size_t from = 0;
  while (from < version_output.size()) {
    const auto eol = version_output.find('\n', from);
    std::string_view line = version_output.substr(
        from, eol == std::string_view::npos ? std::string_view::npos : eol - from);
    from = eol == std::string_view::npos ? version_output.size() : eol + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      line.remove_prefix(1);
    }
    if (line.substr(0, k_marker.size()) != k_marker) {
      continue;
    }
    line.remove_prefix(k_marker.size());
    std::size_t length = 0;
    while (length < line.size() &&
           ((line[length] >= '0' && line[length] <= '9') || line[length] == '.')) {
      ++length;
    }
    std::string_view version = line.substr(0, length);
    while (!version.empty() && version.back() == '.') {
      version.remove_suffix(1);
    }
    if (!version.empty() && version.front() != '.' && version.find('.') != std::string_view::npos) {
      return std::string(version);
    }
  }
  return std::nullopt;
}

Result<NcuInstall> locate_ncu(const std::optional<fs::path>& explicit_path) {
  return locate_ncu(explicit_path, NcuSearchPlaces{});
}

Result<NcuInstall> locate_ncu(const std::optional<fs::path>& explicit_path,
                              const NcuSearchPlaces& places) {
  if (explicit_path && !explicit_path->empty()) {
    if (!is_executable_file(*explicit_path)) {
      return make_error(ErrorCategory::ncu_not_found,
                        fmt::format("the ncu given with --ncu ({}) is not an executable file; "
                                    "pass the path of Nsight Compute's ncu",
                                    explicit_path->string()));
    }
    return checked_install(*explicit_path, "the ncu given with --ncu");
  }
  if (const auto from_env = env_var("KPROF_NCU")) {
    if (!is_executable_file(*from_env)) {
      return make_error(ErrorCategory::ncu_not_found,
                        fmt::format("KPROF_NCU={} is not an executable file; set it to the path "
                                    "of Nsight Compute's ncu, or unset it to search PATH",
                                    *from_env));
    }
    return checked_install(*from_env, "KPROF_NCU");
  }

  std::vector<std::string> looked;
  looked.emplace_back("--ncu (not given)");
  looked.emplace_back("$KPROF_NCU (unset)");
  if (auto on_path = find_executable("ncu")) {
    return make_install(std::move(*on_path));
  }
  looked.push_back(fmt::format("PATH ({})", env_var("PATH").value_or("unset")));

  if (const auto cuda_home = env_var("CUDA_HOME")) {
    const fs::path candidate = fs::path(*cuda_home) / "bin" / "ncu";
    if (is_executable_file(candidate)) {
      return make_install(candidate);
    }
    looked.push_back(fmt::format("$CUDA_HOME/bin/ncu ({})", candidate.string()));
  } else {
    looked.emplace_back("$CUDA_HOME/bin/ncu (CUDA_HOME unset)");
  }

  const fs::path cuda_default = places.cuda_default / "bin" / "ncu";
  if (is_executable_file(cuda_default)) {
    return make_install(cuda_default);
  }
  looked.push_back(cuda_default.string());

  for (const auto& candidate : nsight_compute_candidates(places.nsight_compute_root)) {
    if (is_executable_file(candidate)) {
      return make_install(candidate);
    }
  }
  looked.push_back((places.nsight_compute_root / "*" / "ncu").string());

  return make_error(ErrorCategory::ncu_not_found,
                    fmt::format("ncu (Nsight Compute) was not found; looked in: {}; to fix: {}",
                                fmt::join(looked, ", "), k_fix_hint));
}

} // namespace kprof

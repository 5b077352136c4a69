// The metric check's cache (include/kprof/metric_check.hpp).
//
// The cache is an input another user may have written (a shared HOME, a planted directory), so a
// verdict is read only from a regular file that this user owns and nobody else can write, opened
// without following symlinks, and only when the key stored inside it is the one asked for (the
// file name is a hash of the key; a collision or a stale file reads as absent). A wrong or
// unreadable cache costs one `ncu --query-metrics`, never a wrong answer.
#include "kprof/metric_check.hpp"

#include <algorithm>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/json_file.hpp"
#include "kprof/strings.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

constexpr int k_cache_version = 1;
constexpr std::size_t k_max_verdict_bytes = std::size_t{1} << 20U;

/// "Model:   NVIDIA H200" -> "NVIDIA H200"; empty when `text` has no such line.
std::string field_of(std::string_view text, std::string_view name) {
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.size() > name.size() && line.substr(0, name.size()) == name &&
        line[name.size()] == ':') {
      return std::string(trim(line.substr(name.size() + 1)));
    }
  }
  return {};
}

/// The first word of the first line that looks like a driver version ("580.159.04"): the line
/// reads "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..." for the proprietary
/// module and "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release
/// Build ..." for the open one (recorded on the H200). Empty when there is none.
std::string driver_version_of(std::string_view text) {
  const auto lines = split_lines(text);
  if (lines.empty()) {
    return {};
  }
  std::string_view rest = lines.front();
  while (!rest.empty()) {
    const auto start = rest.find_first_not_of(" \t");
    if (start == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(start);
    const auto end = rest.find_first_of(" \t");
    const std::string_view word = rest.substr(0, end);
    const bool digits_and_dots = std::all_of(
        word.begin(), word.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
    if (digits_and_dots && word.find('.') != std::string_view::npos && word.front() != '.') {
      return std::string(word);
    }
    rest.remove_prefix(word.size());
  }
  return {};
}

std::vector<std::string> sorted_names(const MetricSet& set) {
  std::vector<std::string> names;
  names.reserve(set.metrics.size());
  for (const MetricSpec& metric : set.metrics) {
    names.push_back(metric.name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Json key_of(const std::string& ncu_version, const DeviceIdentity& device, const MetricSet& set) {
  return Json{{"ncu", ncu_version},
              {"driver", device.driver},
              {"gpus", device.gpus},
              {"metrics", sorted_names(set)}};
}

} // namespace

std::optional<DeviceIdentity> read_device_identity(const fs::path& proc_root) {
  auto version = read_file(proc_root / "version");
  if (!version) {
    return std::nullopt;
  }
  DeviceIdentity device;
  device.driver = driver_version_of(*version);
  if (device.driver.empty()) {
    return std::nullopt;
  }
  std::error_code ec;
  std::vector<fs::path> gpu_dirs;
  for (fs::directory_iterator it(proc_root / "gpus", ec), end; !ec && it != end; it.increment(ec)) {
    gpu_dirs.push_back(it->path());
  }
  std::sort(gpu_dirs.begin(), gpu_dirs.end()); // bus IDs: the driver's order
  for (const fs::path& gpu : gpu_dirs) {
    if (auto information = read_file(gpu / "information")) {
      if (std::string model = field_of(*information, "Model"); !model.empty()) {
        device.gpus.push_back(std::move(model));
      }
    }
  }
  if (device.gpus.empty()) {
    return std::nullopt;
  }
  return device;
}

fs::path MetricCheckCache::default_dir() {
  if (auto xdg = env_var("XDG_CACHE_HOME")) {
    return fs::path(*xdg) / "kprof" / "metric-check";
  }
  if (auto home = env_var("HOME")) {
    return fs::path(*home) / ".cache" / "kprof" / "metric-check";
  }
  return {};
}

std::optional<MetricVerdict> MetricCheckCache::find(const std::string& ncu_version,
                                                    const DeviceIdentity& device,
                                                    const MetricSet& set) const {
  if (m_dir.empty() || ncu_version.empty()) {
    return std::nullopt;
  }
  const Json key = key_of(ncu_version, device, set);
  auto text = read_own_file(m_dir / (file_name_hash(key.dump()) + ".json"), k_max_verdict_bytes);
  if (!text) {
    return std::nullopt;
  }
  const Json stored = Json::parse(*text, nullptr, false);
  if (!stored.is_object() || stored.value("version", 0) != k_cache_version ||
      !stored.contains("key") || stored["key"] != key || !stored.contains("unknown") ||
      !stored["unknown"].is_array()) {
    return std::nullopt;
  }
  MetricVerdict verdict;
  for (const Json& name : stored["unknown"]) {
    if (!name.is_string()) {
      return std::nullopt;
    }
    verdict.unknown.push_back(name.get<std::string>());
  }
  if (stored.contains("checked_at") && stored["checked_at"].is_string()) {
    verdict.checked_at = stored["checked_at"].get<std::string>();
  }
  return verdict;
}

bool MetricCheckCache::store(const std::string& ncu_version, const DeviceIdentity& device,
                             const MetricSet& set, const MetricVerdict& verdict) const {
  if (m_dir.empty() || ncu_version.empty() || !private_directory(m_dir, true)) {
    return false;
  }
  const Json key = key_of(ncu_version, device, set);
  const Json stored{{"version", k_cache_version},
                    {"key", key},
                    {"unknown", verdict.unknown},
                    {"checked_at", verdict.checked_at}};
  return write_json_atomic(m_dir / (file_name_hash(key.dump()) + ".json"), stored).ok();
}

} // namespace kprof

// kprof: the metric check's cache. `ncu --query-metrics` takes about 1.3 s on an H200, and its
// answer for a metric set changes only with ncu, the driver or the GPUs, so a verdict is kept per
// (ncu version, driver, GPUs, metric set) in the user's cache directory.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/metric_sets.hpp"

namespace kprof {

/// The NVIDIA driver's proc directory (the environment variable KPROF_NVIDIA_PROC names another,
/// for tests that replay a recorded one).
inline constexpr std::string_view k_nvidia_proc_dir = "/proc/driver/nvidia";

/// What decides which metric names a device has, besides ncu: the driver and the GPUs' names.
struct DeviceIdentity {
  std::string driver;            ///< "580.159.04"
  std::vector<std::string> gpus; ///< "NVIDIA H200", one per GPU, in the driver's order
};

/// Reads the driver version (`version`) and each GPU's model (`gpus/*/information`) from the
/// NVIDIA driver's proc directory; costs no process. nullopt when the directory, the driver
/// version or every GPU model is missing (no NVIDIA driver here): then nothing is cached.
std::optional<DeviceIdentity> read_device_identity(
    const std::filesystem::path& proc_root = std::filesystem::path(k_nvidia_proc_dir));

/// The verdict of one metric check: the names of the set that the device does not know.
struct MetricVerdict {
  std::vector<std::string> unknown;
  std::string checked_at; ///< UTC time of the `ncu --query-metrics` it came from
};

/// Verdicts on disk, one small JSON file per key under `dir` (created 0700). A file is trusted
/// only when it is a regular file (no symlink) owned by this user and writable by nobody else,
/// and when the key written inside it equals the one asked for; anything else reads as absent.
class MetricCheckCache {
public:
  explicit MetricCheckCache(std::filesystem::path dir) : m_dir(std::move(dir)) {}

  /// $XDG_CACHE_HOME/kprof/metric-check, else $HOME/.cache/kprof/metric-check; empty (no cache)
  /// when neither is set.
  static std::filesystem::path default_dir();

  /// The verdict for this ncu version, device and set; nullopt when none is kept.
  [[nodiscard]] std::optional<MetricVerdict>
  find(const std::string& ncu_version, const DeviceIdentity& device, const MetricSet& set) const;

  /// Keeps a verdict; a cache that cannot be written is not an error (false is returned).
  bool store(const std::string& ncu_version, const DeviceIdentity& device, const MetricSet& set,
             const MetricVerdict& verdict) const;

  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir; }

private:
  std::filesystem::path m_dir;
};

} // namespace kprof

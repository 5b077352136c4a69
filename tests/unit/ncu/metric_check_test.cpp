// The metric check's cache: the device identity read from the driver's proc directory, and
// verdicts kept per (ncu version, driver, GPUs, metric set) that only this user can have written.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprof/files.hpp"
#include "kprof/metric_check.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

const fs::path k_recorded_h200 = fs::path(KPROF_FIXTURES_DIR) / "nvidia-proc" / "h200";

MetricSet set_of(std::initializer_list<const char*> names) {
  MetricSet set;
  set.name = "test";
  for (const char* name : names) {
    set.metrics.push_back({name, name, "Memory"});
  }
  return set;
}

DeviceIdentity h200() {
  return {"580.159.04", {"NVIDIA H200"}};
}

class MetricCheckCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create("kprof-metric-check");
    ASSERT_TRUE(dir.ok());
    m_dir.emplace(std::move(dir).value());
  }
  [[nodiscard]] fs::path dir() const { return m_dir->path() / "cache"; }
  /// The one verdict file the cache holds.
  [[nodiscard]] fs::path only_file() const {
    fs::path found;
    for (const auto& entry : fs::directory_iterator(dir())) {
      EXPECT_TRUE(found.empty()) << "more than one file in the cache";
      found = entry.path();
    }
    return found;
  }

private:
  std::optional<TempDir> m_dir;
};

TEST(DeviceIdentity, ReadsTheDriverVersionAndEachGpuModelFromARecordedProcDirectory) {
  const auto device = read_device_identity(k_recorded_h200);
  ASSERT_TRUE(device.has_value());
  EXPECT_EQ(device->driver, "580.159.04");
  ASSERT_EQ(device->gpus.size(), 1U);
  EXPECT_EQ(device->gpus[0], "NVIDIA H200");
}

TEST(DeviceIdentity, ReadsTheVersionFromTheProprietaryModulesLineToo) {
  auto dir = TempDir::create("kprof-nvidia-proc");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(
      write_file_atomic(dir->path() / "version",
                        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 "
                        "22:23:56 UTC 2024\n")
          .ok());
  ASSERT_TRUE(write_file_atomic(dir->path() / "gpus" / "0000:19:00.0" / "information",
                                "Model: \t\t NVIDIA H100 80GB HBM3\n")
                  .ok());
  const auto device = read_device_identity(dir->path());
  ASSERT_TRUE(device.has_value());
  EXPECT_EQ(device->driver, "550.54.15");
  EXPECT_EQ(device->gpus, std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
}

TEST(DeviceIdentity, IsAbsentWithoutTheNvidiaDriver) {
  EXPECT_FALSE(read_device_identity("/nonexistent/driver/nvidia").has_value());
}

TEST_F(MetricCheckCacheTest, GivesBackAStoredVerdictForTheSameNcuDeviceAndSet) {
  const MetricCheckCache cache(dir());
  const MetricSet set = set_of({"dram__bytes_read.sum", "gpu__time_duration.sum"});
  EXPECT_FALSE(cache.find("2025.3.1.0", h200(), set).has_value());
  ASSERT_TRUE(cache.store("2025.3.1.0", h200(), set, {{"gpu__time_duration.sum"}, "T"}));
  const auto verdict = cache.find("2025.3.1.0", h200(), set);
  ASSERT_TRUE(verdict.has_value());
  ASSERT_EQ(verdict->unknown.size(), 1U);
  EXPECT_EQ(verdict->unknown[0], "gpu__time_duration.sum");
  EXPECT_EQ(verdict->checked_at, "T");
  // The same names in another order are the same set.
  EXPECT_TRUE(
      cache.find("2025.3.1.0", h200(), set_of({"gpu__time_duration.sum", "dram__bytes_read.sum"}))
          .has_value());
}

TEST_F(MetricCheckCacheTest, KeepsNoVerdictAcrossAnotherNcuDriverGpuOrSet) {
  const MetricCheckCache cache(dir());
  const MetricSet set = set_of({"dram__bytes_read.sum"});
  ASSERT_TRUE(cache.store("2025.3.1.0", h200(), set, {{}, "T"}));
  EXPECT_FALSE(cache.find("2025.2.0.0", h200(), set).has_value());
  EXPECT_FALSE(cache.find("2025.3.1.0", {"580.95.05", {"NVIDIA H200"}}, set).has_value());
  EXPECT_FALSE(
      cache.find("2025.3.1.0", {"580.159.04", {"NVIDIA H100 80GB HBM3"}}, set).has_value());
  EXPECT_FALSE(
      cache.find("2025.3.1.0", h200(), set_of({"dram__bytes_read.sum", "sm__cycles_elapsed.avg"}))
          .has_value());
}

TEST_F(MetricCheckCacheTest, MakesItsDirectoryPrivate) {
  const MetricCheckCache cache(dir());
  ASSERT_TRUE(cache.store("2025.3.1.0", h200(), set_of({"a"}), {{}, "T"}));
  struct stat info {};
  ASSERT_EQ(::stat(dir().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777U, 0700U);
}

TEST_F(MetricCheckCacheTest, IgnoresAVerdictThatOthersCanWrite) {
  const MetricCheckCache cache(dir());
  const MetricSet set = set_of({"a"});
  ASSERT_TRUE(cache.store("2025.3.1.0", h200(), set, {{}, "T"}));
  ASSERT_EQ(::chmod(only_file().c_str(), 0666), 0);
  EXPECT_FALSE(cache.find("2025.3.1.0", h200(), set).has_value());
}

TEST_F(MetricCheckCacheTest, IgnoresAVerdictReachedThroughASymlink) {
  const MetricCheckCache cache(dir());
  const MetricSet set = set_of({"a"});
  ASSERT_TRUE(cache.store("2025.3.1.0", h200(), set, {{}, "T"}));
  const fs::path file = only_file();
  fs::rename(file, dir().parent_path() / "elsewhere.json");
  fs::create_symlink(dir().parent_path() / "elsewhere.json", file);
  EXPECT_FALSE(cache.find("2025.3.1.0", h200(), set).has_value());
}

TEST_F(MetricCheckCacheTest, IgnoresAVerdictWhoseStoredKeyIsAnotherOne) {
  const MetricCheckCache cache(dir());
  const MetricSet set = set_of({"a"});
  ASSERT_TRUE(cache.store("2025.3.1.0", h200(), set, {{}, "T"}));
  const fs::path file = only_file();
  auto text = read_file(file);
  ASSERT_TRUE(text.ok());
  std::string edited = *text;
  edited.replace(edited.find("580.159.04"), 10, "999.999.99");
  ASSERT_TRUE(write_file_atomic(file, edited).ok());
  EXPECT_FALSE(cache.find("2025.3.1.0", h200(), set).has_value());
}

TEST_F(MetricCheckCacheTest, IgnoresAVerdictOfAnotherUser) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give the file to another user";
  }
  const MetricCheckCache cache(dir());
  const MetricSet set = set_of({"a"});
  ASSERT_TRUE(cache.store("2025.3.1.0", h200(), set, {{}, "T"}));
  ASSERT_EQ(::chown(only_file().c_str(), 65534, 65534), 0);
  EXPECT_FALSE(cache.find("2025.3.1.0", h200(), set).has_value());
}

TEST_F(MetricCheckCacheTest, StoresNothingWithoutADirectory) {
  const MetricCheckCache cache{fs::path()};
  EXPECT_FALSE(cache.store("2025.3.1.0", h200(), set_of({"a"}), {{}, "T"}));
  EXPECT_FALSE(cache.find("2025.3.1.0", h200(), set_of({"a"})).has_value());
}

} // namespace
} // namespace kprof

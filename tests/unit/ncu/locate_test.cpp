// Finding ncu (search order, explicit paths, the not-found message) and reading its version.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "kprof/ncu.hpp"
#include "unit/ncu/ncu_test_support.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;
using test::ScopedEnv;

/// A sandbox where nothing outside the temp dir can be found: empty PATH directory, no
/// KPROF_NCU/CUDA_HOME, and the fixed places pointing into the temp dir.
struct Sandbox {
  TempDir dir = test::make_temp_dir();
  ScopedEnv env;
  NcuSearchPlaces places;

  Sandbox() {
    fs::create_directories(dir.path() / "path-bin");
    env.set("PATH", (dir.path() / "path-bin").string());
    env.unset("KPROF_NCU");
    env.unset("CUDA_HOME");
    places.cuda_default = dir.path() / "usr-local-cuda";
    places.nsight_compute_root = dir.path() / "opt-nsight-compute";
  }
  fs::path path_ncu() const { return dir.path() / "path-bin" / "ncu"; }
};

TEST(ParseNcuVersion, ReadsTheReleaseFromTheRealVersionText) {
  const std::string text = "NVIDIA (R) Nsight Compute Command Line Profiler\n"
                           "Copyright (c) 2018-2025 NVIDIA Corporation\n"
                           "Version 2025.3.1.0 (build 36398880) (public-release)\n";
  EXPECT_EQ(parse_ncu_version(text), "2025.3.1.0");
}

TEST(ParseNcuVersion, AcceptsWindowsLineEndingsAndNoTrailingNewline) {
  EXPECT_EQ(parse_ncu_version("NVIDIA (R) Nsight Compute\r\nVersion 2024.1.0.0 (build 1)"),
            "2024.1.0.0");
}

TEST(ParseNcuVersion, ReturnsNothingForTextWithoutAVersionLine) {
  EXPECT_EQ(parse_ncu_version("sh: 1: ncu: not found\n"), std::nullopt);
  EXPECT_EQ(parse_ncu_version("Version unknown\n"), std::nullopt);
  EXPECT_EQ(parse_ncu_version(""), std::nullopt);
}

TEST(LocateNcu, PrefersTheExplicitPathOverEverythingElse) {
  Sandbox box;
  const auto explicit_ncu = test::write_fake_ncu(box.dir.path() / "mine" / "ncu", "2023.1.0.0");
  test::write_fake_ncu(box.path_ncu(), "2025.3.1.0");
  box.env.set("KPROF_NCU", test::write_fake_ncu(box.dir.path() / "env" / "ncu", "1.0").string());

  const auto found = locate_ncu(explicit_ncu, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->executable, explicit_ncu);
  EXPECT_EQ(found->version, "2023.1.0.0");
}

TEST(LocateNcu, FailsWhenTheExplicitPathDoesNotExistEvenIfNcuIsOnPath) {
  Sandbox box;
  test::write_fake_ncu(box.path_ncu(), "2025.3.1.0");
  const fs::path missing = box.dir.path() / "nowhere" / "ncu";

  const auto found = locate_ncu(missing, box.places);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().category, ErrorCategory::ncu_not_found);
  EXPECT_NE(found.error().message.find(missing.string()), std::string::npos);
}

TEST(LocateNcu, UsesKprofNcuBeforePath) {
  Sandbox box;
  test::write_fake_ncu(box.path_ncu(), "2025.3.1.0");
  const auto env_ncu = test::write_fake_ncu(box.dir.path() / "env" / "ncu", "2024.2.0.0");
  box.env.set("KPROF_NCU", env_ncu.string());

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->executable, env_ncu);
  EXPECT_EQ(found->version, "2024.2.0.0");
}

TEST(LocateNcu, FailsWhenKprofNcuNamesNoExecutable) {
  Sandbox box;
  test::write_fake_ncu(box.path_ncu(), "2025.3.1.0");
  box.env.set("KPROF_NCU", (box.dir.path() / "typo" / "ncu").string());

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().category, ErrorCategory::ncu_not_found);
  EXPECT_NE(found.error().message.find("KPROF_NCU"), std::string::npos);
}

TEST(LocateNcu, FindsNcuOnPathBeforeCudaHome) {
  Sandbox box;
  test::write_fake_ncu(box.path_ncu(), "2025.3.1.0");
  test::write_fake_ncu(box.dir.path() / "cuda-home" / "bin" / "ncu", "2022.1.0.0");
  box.env.set("CUDA_HOME", (box.dir.path() / "cuda-home").string());

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->executable, box.path_ncu());
}

TEST(LocateNcu, FallsBackToCudaHomeBeforeTheDefaultCudaDirectory) {
  Sandbox box;
  const auto home_ncu = test::write_fake_ncu(box.dir.path() / "cuda-home" / "bin" / "ncu", "2.0");
  test::write_fake_ncu(box.places.cuda_default / "bin" / "ncu", "1.0");
  box.env.set("CUDA_HOME", (box.dir.path() / "cuda-home").string());

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->executable, home_ncu);
}

TEST(LocateNcu, FallsBackToTheDefaultCudaDirectoryBeforeNsightComputeInstalls) {
  Sandbox box;
  const auto cuda_ncu = test::write_fake_ncu(box.places.cuda_default / "bin" / "ncu", "1.0");
  test::write_fake_ncu(box.places.nsight_compute_root / "2025.3.1" / "ncu", "2025.3.1.0");

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->executable, cuda_ncu);
}

TEST(LocateNcu, PicksTheNewestNsightComputeVersionComparingNumbers) {
  Sandbox box;
  const fs::path& root = box.places.nsight_compute_root;
  test::write_fake_ncu(root / "2024.9.0" / "ncu", "2024.9.0.0");
  test::write_fake_ncu(root / "2023.3.1" / "ncu", "2023.3.1.0");
  const auto newest = test::write_fake_ncu(root / "2024.10.1" / "ncu", "2024.10.1.0");
  test::write_fake_ncu(root / "latest" / "ncu", "0.0");

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->executable, newest);
  EXPECT_EQ(found->version, "2024.10.1.0");
}

TEST(LocateNcu, SkipsANewerNsightComputeDirectoryWithoutNcu) {
  Sandbox box;
  const fs::path& root = box.places.nsight_compute_root;
  fs::create_directories(root / "2026.1.0");
  const auto usable = test::write_fake_ncu(root / "2025.3.1" / "ncu", "2025.3.1.0");

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->executable, usable);
}

TEST(LocateNcu, ListsEveryPlaceLookedAndHowToFixItWhenNothingIsFound) {
  Sandbox box;
  box.env.set("CUDA_HOME", (box.dir.path() / "cuda-home").string());

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_FALSE(found.ok());
  const Error& error = found.error();
  EXPECT_EQ(error.category, ErrorCategory::ncu_not_found);
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
  for (const std::string& expected :
       {std::string("--ncu"), std::string("KPROF_NCU"), (box.dir.path() / "path-bin").string(),
        (box.dir.path() / "cuda-home" / "bin" / "ncu").string(),
        (box.places.cuda_default / "bin" / "ncu").string(),
        (box.places.nsight_compute_root / "*" / "ncu").string(),
        std::string("install Nsight Compute")}) {
    EXPECT_NE(error.message.find(expected), std::string::npos)
        << "missing '" << expected << "' in: " << error.message;
  }
}

TEST(LocateNcu, IgnoresANonExecutableNcuFile) {
  Sandbox box;
  { std::ofstream(box.path_ncu()) << "not a program\n"; }
  fs::permissions(box.path_ncu(), fs::perms::owner_read | fs::perms::owner_write);
  const auto cuda_ncu = test::write_fake_ncu(box.places.cuda_default / "bin" / "ncu", "1.0");

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->executable, cuda_ncu);
}

TEST(LocateNcu, RunsVersionOnlyOncePerExecutable) {
  Sandbox box;
  const fs::path counter = box.dir.path() / "runs.txt";
  const auto ncu = test::write_script(box.dir.path() / "counted" / "ncu",
                                      "#!/bin/sh\necho run >> '" + counter.string() +
                                          "'\necho 'Version 2025.3.1.0 (build 1)'\n");

  const auto first = locate_ncu(ncu, box.places);
  const auto second = locate_ncu(ncu, box.places);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->version, "2025.3.1.0");
  EXPECT_EQ(second->version, "2025.3.1.0");
  EXPECT_EQ(test::read_text(counter), "run\n");
}

TEST(LocateNcu, LeavesTheVersionEmptyWhenAnNcuFoundOnPathDoesNotPrintOne) {
  Sandbox box;
  test::write_script(box.path_ncu(), "#!/bin/sh\necho 'something else'\n");

  const auto found = locate_ncu(std::nullopt, box.places);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->version, "");
}

TEST(LocateNcu, RefusesAnExplicitNcuThatIsNotNsightCompute) {
  Sandbox box;
  const auto script =
      test::write_script(box.dir.path() / "odd" / "ncu", "#!/bin/sh\necho 'something else'\n");
  for (const fs::path& named : {script, fs::path("/bin/true")}) {
    const auto found = locate_ncu(named, box.places);
    ASSERT_FALSE(found.ok()) << named;
    EXPECT_EQ(found.error().category, ErrorCategory::ncu_not_found);
    EXPECT_NE(found.error().message.find("is not Nsight Compute"), std::string::npos)
        << found.error().message;
  }
  box.env.set("KPROF_NCU", script.string());
  const auto from_env = locate_ncu(std::nullopt, box.places);
  ASSERT_FALSE(from_env.ok());
  EXPECT_EQ(from_env.error().category, ErrorCategory::ncu_not_found);
}

TEST(LocateNcu, ReadsTheVersionOfTheStandInNcu) {
  const auto found = locate_ncu(test::k_fake_ncu);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->version, "2025.3.1.0");
}

} // namespace
} // namespace kprof

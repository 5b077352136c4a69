#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "kprof/round_layout.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

TEST(RoundLayout, NamesEveryFileOfARunDirectory) {
  const RoundLayout layout("/runs/out");
  EXPECT_EQ(layout.round_dir(7), fs::path("/runs/out/round007"));
  EXPECT_EQ(layout.kernelagent_file(7, std::nullopt),
            fs::path("/runs/out/round007_ncu_metrics.json"));
  EXPECT_EQ(layout.kernelagent_file(12, 3), fs::path("/runs/out/round012_cand3_ncu_metrics.json"));
  EXPECT_EQ(layout.history_db(), fs::path("/runs/out/kprof.db"));
  EXPECT_EQ(layout.attempt_dir(7, 2), fs::path("/runs/out/round007.attempt-2"));
  EXPECT_EQ(layout.kernel_dir(7, 2), fs::path("/runs/out/round007.kernel-2"));
  EXPECT_EQ(RoundLayout::candidate_dir("/r", std::nullopt), fs::path("/r"));
  EXPECT_EQ(RoundLayout::candidate_dir("/r", 2), fs::path("/r/cand2"));
  EXPECT_EQ(RoundLayout::session_dir("/r", true, 1, 0), fs::path("/r/gpu1-part0"));
  EXPECT_EQ(RoundLayout::session_dir("/r", false, 1, 0), fs::path("/r"));
}

TEST(RoundLayout, AStagingDirectoryNamesItsOwner) {
  const RoundLayout layout("/o");
  const std::string tag = RoundLayout::staging_tag();
  const fs::path staging = layout.staging_dir(3, tag);
  EXPECT_EQ(staging.filename().string().rfind(".round003.staging-", 0), 0U);
  EXPECT_EQ(RoundLayout::staging_owner(staging.filename().string()), ::getpid());
  EXPECT_EQ(RoundLayout::staging_owner(".round003.staging-4242-0badcafe"), 4242);
  EXPECT_EQ(RoundLayout::staging_owner(".round003.old-77-0badcafe"), 77);
  EXPECT_EQ(RoundLayout::staging_owner("round003"), std::nullopt);
  EXPECT_EQ(RoundLayout::staging_owner(".round003.staging-x-1"), std::nullopt);
}

TEST(RoundLayout, TheNextAttemptFollowsTheHighestKept) {
  auto dir = TempDir::create("kprof-layout");
  ASSERT_TRUE(dir.ok());
  const RoundLayout layout(dir->path());
  EXPECT_EQ(layout.next_attempt(1), 1);
  ASSERT_TRUE(kprof::create_directories(layout.attempt_dir(1, 1)).ok());
  ASSERT_TRUE(kprof::create_directories(layout.attempt_dir(1, 4)).ok());
  ASSERT_TRUE(kprof::create_directories(layout.attempt_dir(2, 9)).ok());
  EXPECT_EQ(layout.next_attempt(1), 5);
}

TEST(RoundLayout, TheNextKernelDirectoryFollowsTheHighestAndIgnoresAttempts) {
  auto dir = TempDir::create("kprof-layout");
  ASSERT_TRUE(dir.ok());
  const RoundLayout layout(dir->path());
  EXPECT_EQ(layout.next_kernel(1), 1);
  ASSERT_TRUE(kprof::create_directories(layout.kernel_dir(1, 2)).ok());
  ASSERT_TRUE(kprof::create_directories(layout.attempt_dir(1, 7)).ok());
  EXPECT_EQ(layout.next_kernel(1), 3);
  EXPECT_EQ(layout.next_attempt(1), 8);
}

} // namespace
} // namespace kprof

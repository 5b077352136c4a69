// kprof model's candidate (kprof/model.hpp): only the exact text kprof writes for a problem,
// uncompiled, is taken for the problem's Model itself (is_model_reference_candidate), whatever a
// candidate says of itself.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "kprof/model.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

class ModelCandidate : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create("kprof-model-test");
    ASSERT_TRUE(dir.ok());
    m_dir.emplace(std::move(dir).value());
    problem = m_dir->path() / "problem.py";
    write(problem, "class Model: ...\n");
  }

  static void write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }

  [[nodiscard]] const fs::path& dir() const { return m_dir->path(); }

  fs::path problem;

private:
  std::optional<TempDir> m_dir;
};

TEST_F(ModelCandidate, TheUncompiledCandidateKprofWroteIsTheReferenceItself) {
  auto written = write_model_candidate(problem, dir() / "out", false);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_TRUE(is_model_reference_candidate(*written, problem));
  // However the problem is spelled: relative, through "..", or a symbolic link to it.
  const fs::path spelled = dir() / "out" / ".." / "problem.py";
  EXPECT_TRUE(is_model_reference_candidate(*written, spelled));
  fs::create_symlink(problem, dir() / "linked.py");
  EXPECT_TRUE(is_model_reference_candidate(*written, dir() / "linked.py"));
}

TEST_F(ModelCandidate, NothingElseIsTakenForTheReference) {
  // Compiled: torch.compile's Model is not the reference (both are timed).
  auto compiled = write_model_candidate(problem, dir() / "compiled", true);
  ASSERT_TRUE(compiled.ok()) << compiled.error().message;
  EXPECT_FALSE(is_model_reference_candidate(*compiled, problem));
  // The candidate of another problem.
  const fs::path other = dir() / "other.py";
  write(other, "class Model: ...\n");
  auto written = write_model_candidate(problem, dir() / "out", false);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_FALSE(is_model_reference_candidate(*written, other));
  // A byte changed: a candidate that looks like kprof's but runs something else of its own.
  const fs::path edited = dir() / "edited.py";
  write(edited, model_candidate_text(problem, false) + "kernel_function = lambda *a: None\n");
  EXPECT_FALSE(is_model_reference_candidate(edited, problem));
  // The text exactly, in a file another user may write: not kprof's, whatever it says.
  const fs::path open = dir() / "open.py";
  write(open, model_candidate_text(problem, false));
  fs::permissions(open, fs::perms::others_write, fs::perm_options::add);
  EXPECT_FALSE(is_model_reference_candidate(open, problem));
  EXPECT_FALSE(is_model_reference_candidate(dir() / "missing.py", problem));
}

TEST(ModelDefaults, AreTheModelsOwnWhereTheCallerGaveNoneAndWhatIsGivenWins) {
  const Json none = with_model_defaults(Json::object());
  EXPECT_EQ(none, model_option_defaults());
  EXPECT_EQ(none.at("launches"), "many");
  EXPECT_EQ(none.at("check"), false);
  const Json given = with_model_defaults({{"launches", "all"}, {"check", true}, {"warmup", 1}});
  EXPECT_EQ(given.at("launches"), "all");
  EXPECT_EQ(given.at("check"), true);
  EXPECT_EQ(given.at("warmup"), 1);
}

} // namespace
} // namespace kprof

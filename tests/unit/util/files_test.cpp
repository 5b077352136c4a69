#include "kprof/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

kprof::TempDir make_temp_dir() {
  auto dir = kprof::TempDir::create("kprof-files-test");
  KPROF_ASSERT(dir.ok());
  return std::move(dir).value();
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

TEST(WriteFileAtomic, WritesTheWholeContentAndLeavesNoTempFile) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "report.json";
  const std::string data = std::string("{\"a\": 1}\n") + std::string(1u << 20u, 'x');
  ASSERT_TRUE(kprof::write_file_atomic(target, data).ok());
  auto back = kprof::read_file(target);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(*back == data);
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"report.json"});
}

TEST(WriteFileAtomic, KeepsBinaryDataIntact) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "blob.bin";
  const std::string data("a\0b\r\n\xff", 6);
  ASSERT_TRUE(kprof::write_file_atomic(target, data).ok());
  auto back = kprof::read_file(target);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, data);
}

TEST(WriteFileAtomic, ReplacesAnExistingFileWhole) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "out.csv";
  ASSERT_TRUE(kprof::write_file_atomic(target, std::string(10000, 'o')).ok());
  ASSERT_TRUE(kprof::write_file_atomic(target, "new").ok());
  auto back = kprof::read_file(target);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, "new");
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"out.csv"});
}

TEST(WriteFileAtomic, CreatesMissingParentDirectories) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "a" / "b" / "round001.json";
  ASSERT_TRUE(kprof::write_file_atomic(target, "{}").ok());
  auto back = kprof::read_file(target);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, "{}");
}

TEST(WriteFileAtomic, FailsWithAnIoErrorAndRemovesTheTempFileWhenTheRenameFails) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "taken";
  fs::create_directory(target); // a directory of that name: rename() over it fails
  ASSERT_TRUE(kprof::write_file_atomic(target / "inside", "x").ok());
  auto written = kprof::write_file_atomic(target, "data");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().category, kprof::ErrorCategory::io);
  EXPECT_NE(written.error().message.find(target.string()), std::string::npos)
      << written.error().message;
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"taken"});
  EXPECT_EQ(names_in(target), std::set<std::string>{"inside"});
}

TEST(WriteFileAtomic, FailsWithAnIoErrorInAnUnwritableDirectory) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "running as root: directory permissions do not stop root from writing";
  }
  const kprof::TempDir dir = make_temp_dir();
  const fs::path locked = dir.path() / "locked";
  fs::create_directory(locked);
  ASSERT_EQ(::chmod(locked.c_str(), 0555), 0);
  auto written = kprof::write_file_atomic(locked / "out.json", "{}");
  ::chmod(locked.c_str(), 0755);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().category, kprof::ErrorCategory::io);
  EXPECT_NE(written.error().message.find("Permission denied"), std::string::npos)
      << written.error().message;
  EXPECT_TRUE(names_in(locked).empty());
}

TEST(WriteFileAtomic, FailsWithAnIoErrorWhenTheParentIsAFile) {
  const kprof::TempDir dir = make_temp_dir();
  ASSERT_TRUE(kprof::write_file_atomic(dir.path() / "file", "x").ok());
  auto written = kprof::write_file_atomic(dir.path() / "file" / "out.json", "{}");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().category, kprof::ErrorCategory::io);
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"file"});
}

using FileList = std::vector<std::pair<std::string_view, std::string_view>>;

std::string read_text(const fs::path& path) {
  auto text = kprof::read_file(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? *text : std::string{};
}

TEST(WriteDirectoryAtomic, WritesEveryFileAndLeavesNothingElseBesideIt) {
  const kprof::TempDir dir = make_temp_dir();
  const FileList files{{"a.py", "print('a')\n"}, {"b.py", ""}, {"c.txt", "c"}};
  ASSERT_TRUE(kprof::write_directory_atomic(dir.path() / "sub" / "pkg", files).ok());
  EXPECT_EQ(names_in(dir.path() / "sub"), std::set<std::string>{"pkg"});
  EXPECT_EQ(names_in(dir.path() / "sub" / "pkg"), (std::set<std::string>{"a.py", "b.py", "c.txt"}));
  EXPECT_EQ(read_text(dir.path() / "sub" / "pkg" / "a.py"), "print('a')\n");
  EXPECT_EQ(read_text(dir.path() / "sub" / "pkg" / "b.py"), "");
}

TEST(WriteDirectoryAtomic, ReplacesAnOlderCopyWholeFilesItNoLongerHasIncluded) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path pkg = dir.path() / "pkg";
  ASSERT_TRUE(kprof::write_directory_atomic(pkg, FileList{{"old.py", "1"}, {"a.py", "1"}}).ok());
  ASSERT_TRUE(kprof::write_directory_atomic(pkg, FileList{{"a.py", "2"}}).ok());
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"pkg"});
  EXPECT_EQ(names_in(pkg), std::set<std::string>{"a.py"});
  EXPECT_EQ(read_text(pkg / "a.py"), "2");
}

TEST(WriteDirectoryAtomic, ReplacesASymbolicLinkWithoutTouchingWhatItPointsTo) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path elsewhere = dir.path() / "elsewhere";
  ASSERT_TRUE(kprof::write_file_atomic(elsewhere / "keep.py", "mine").ok());
  fs::create_directory_symlink(elsewhere, dir.path() / "pkg");
  ASSERT_TRUE(kprof::write_directory_atomic(dir.path() / "pkg", FileList{{"a.py", "x"}}).ok());
  EXPECT_FALSE(fs::is_symlink(dir.path() / "pkg"));
  EXPECT_EQ(names_in(dir.path() / "pkg"), std::set<std::string>{"a.py"});
  EXPECT_EQ(read_text(elsewhere / "keep.py"), "mine");
}

TEST(WriteDirectoryAtomic, MakesNothingWritableByOtherUsersEvenUnderUmask000) {
  const kprof::TempDir dir = make_temp_dir();
  const mode_t previous = ::umask(0);
  auto written = kprof::write_directory_atomic(dir.path() / "pkg", FileList{{"a.py", "x"}});
  ::umask(previous);
  ASSERT_TRUE(written.ok());
  for (const fs::path& path : {dir.path() / "pkg", dir.path() / "pkg" / "a.py"}) {
    struct stat info {};
    ASSERT_EQ(::lstat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & (S_IWGRP | S_IWOTH), 0U) << path;
  }
}

TEST(WriteDirectoryAtomic, FailsWithAnIoErrorAndLeavesNoTempDirectoryWhenAFileCannotBeWritten) {
  const kprof::TempDir dir = make_temp_dir();
  auto written =
      kprof::write_directory_atomic(dir.path() / "pkg", FileList{{"a.py", "x"}, {"no/b.py", "y"}});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().category, kprof::ErrorCategory::io);
  EXPECT_NE(written.error().message.find("no/b.py"), std::string::npos) << written.error().message;
  EXPECT_TRUE(names_in(dir.path()).empty());
}

TEST(WriteDirectoryAtomic, FailsWithAnIoErrorWhenTheParentIsAFile) {
  const kprof::TempDir dir = make_temp_dir();
  ASSERT_TRUE(kprof::write_file_atomic(dir.path() / "file", "x").ok());
  auto written = kprof::write_directory_atomic(dir.path() / "file" / "pkg", FileList{{"a", "x"}});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().category, kprof::ErrorCategory::io);
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"file"});
}

TEST(AtomicFile, ShowsNothingAtThePathUntilCommitThenThePiecesInOrder) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "report.json";
  ASSERT_TRUE(kprof::write_file_atomic(target, "old").ok());
  auto file = kprof::AtomicFile::create(target);
  ASSERT_TRUE(file.ok()) << file.error().message;
  file->write("{\"a\": ");
  file->write(std::string(1u << 20u, '1'));
  file->write("}\n");
  auto before = kprof::read_file(target);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(*before, "old") << "the old file stays whole while the new one is written";
  ASSERT_TRUE(file->commit().ok());
  auto back = kprof::read_file(target);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(*back == "{\"a\": " + std::string(1u << 20u, '1') + "}\n");
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"report.json"});
}

TEST(AtomicFile, LeavesNoFileWhenDestroyedWithoutCommit) {
  const kprof::TempDir dir = make_temp_dir();
  {
    auto file = kprof::AtomicFile::create(dir.path() / "out.json");
    ASSERT_TRUE(file.ok()) << file.error().message;
    file->write("partial");
    EXPECT_EQ(names_in(dir.path()).size(), 1U) << "the temp file exists while writing";
  }
  EXPECT_TRUE(names_in(dir.path()).empty());
}

TEST(AtomicFile, ReportsAFailedRenameOnCommitAndRemovesTheTempFile) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "taken";
  fs::create_directory(target);
  ASSERT_TRUE(kprof::write_file_atomic(target / "inside", "x").ok());
  auto file = kprof::AtomicFile::create(target);
  ASSERT_TRUE(file.ok()) << file.error().message;
  file->write("data");
  auto committed = file->commit();
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(committed.error().category, kprof::ErrorCategory::io);
  EXPECT_NE(committed.error().message.find("cannot write " + target.string()), std::string::npos)
      << committed.error().message;
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"taken"});
}

TEST(ReadFile, ReportsAMissingFileAsInputNotFoundWithItsPath) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path missing = dir.path() / "missing.csv";
  auto read = kprof::read_file(missing);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().category, kprof::ErrorCategory::input_not_found);
  EXPECT_EQ(read.error().message,
            "cannot open " + missing.string() + ": No such file or directory");
}

TEST(ReadFile, ReportsADirectoryAsInputNotFound) {
  const kprof::TempDir dir = make_temp_dir();
  auto read = kprof::read_file(dir.path());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().category, kprof::ErrorCategory::input_not_found);
}

TEST(ReadFile, ReadsAnEmptyFile) {
  const kprof::TempDir dir = make_temp_dir();
  ASSERT_TRUE(kprof::write_file_atomic(dir.path() / "empty", "").ok());
  auto read = kprof::read_file(dir.path() / "empty");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(*read, "");
}

TEST(CreateDirectories, CreatesNestedDirectoriesAndAcceptsExistingOnes) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path nested = dir.path() / "x" / "y" / "z";
  ASSERT_TRUE(kprof::create_directories(nested).ok());
  EXPECT_TRUE(fs::is_directory(nested));
  EXPECT_TRUE(kprof::create_directories(nested).ok());
}

TEST(CreateDirectories, FailsWithAnIoErrorWhenAFileHasTheName) {
  const kprof::TempDir dir = make_temp_dir();
  ASSERT_TRUE(kprof::write_file_atomic(dir.path() / "plain", "x").ok());
  auto created = kprof::create_directories(dir.path() / "plain");
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().category, kprof::ErrorCategory::io);
  EXPECT_NE(created.error().message.find("plain"), std::string::npos) << created.error().message;
}

mode_t mode_of(const fs::path& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

/// The umask for the scope of one test.
class ScopedUmask {
public:
  explicit ScopedUmask(mode_t mask) : m_saved(::umask(mask)) {}
  ~ScopedUmask() { ::umask(m_saved); }
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;

private:
  mode_t m_saved;
};

std::string refusal(const fs::path& path, bool create) {
  auto made = kprof::private_directory(path, create);
  EXPECT_FALSE(made.ok()) << path;
  if (made.ok()) {
    return {};
  }
  EXPECT_EQ(made.error().category, kprof::ErrorCategory::io);
  return made.error().message;
}

TEST(PrivateDirectory, MakesThePathAndItsMissingParentsThatNoOtherUserCanWriteEvenUnderUmask000) {
  const kprof::TempDir dir = make_temp_dir();
  const ScopedUmask open(0);
  const fs::path cache = dir.path() / "cache" / "kprof" / "triton";
  ASSERT_TRUE(kprof::private_directory(cache, true).ok());
  EXPECT_EQ(mode_of(cache), 0700U);
  EXPECT_EQ(mode_of(cache.parent_path()), 0755U);
  EXPECT_TRUE(kprof::private_directory(cache, false).ok());      // as it is now
  EXPECT_TRUE(kprof::private_directory(cache / "", false).ok()); // "dir/" names dir
}

TEST(PrivateDirectory, MakesAnOpenDirectoryOfThisUser0700WhenCreatingAndRefusesItWhenOnlyReading) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path open = dir.path() / "open";
  ASSERT_EQ(::mkdir(open.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
  EXPECT_NE(refusal(open, false).find("writable by other users"), std::string::npos);
  EXPECT_EQ(mode_of(open), 0777U); // reading changes nothing
  ASSERT_TRUE(kprof::private_directory(open, true).ok());
  EXPECT_EQ(mode_of(open), 0700U);
}

TEST(PrivateDirectory, RefusesASymbolicLinkAFileAndAMissingPathWhenOnlyReading) {
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "target";
  ASSERT_TRUE(kprof::private_directory(target, true).ok());
  fs::create_directory_symlink(target, dir.path() / "link");
  EXPECT_NE(refusal(dir.path() / "link", true).find("a symbolic link"), std::string::npos);
  ASSERT_TRUE(kprof::write_file_atomic(dir.path() / "file", "x").ok());
  EXPECT_NE(refusal(dir.path() / "file", false).find("not a directory"), std::string::npos);
  EXPECT_NE(refusal(dir.path() / "missing", false).find("missing"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.path() / "missing"));
}

TEST(PrivateDirectory, RefusesADirectoryWhoseParentOthersMayWriteUnlessThatParentIsSticky) {
  // Another user could rename the directory away through such a parent and put theirs instead;
  // the sticky bit (as on /tmp) forbids that.
  const kprof::TempDir dir = make_temp_dir();
  const fs::path shared = dir.path() / "shared";
  const fs::path mine = shared / "mine";
  ASSERT_TRUE(kprof::private_directory(mine, true).ok());
  ASSERT_EQ(::chmod(shared.c_str(), 0777), 0);
  const std::string why = refusal(mine, true);
  EXPECT_NE(why.find(shared.string() + " is writable by other users"), std::string::npos) << why;
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  EXPECT_TRUE(kprof::private_directory(mine, true).ok());
}

TEST(SafeDirectoryChain, FollowsALinkOfThisUserAndRefusesALinkOfAnotherUserOnTheWay) {
  // Another user's link (in a sticky directory, as /tmp) could be pointed elsewhere later.
  const kprof::TempDir dir = make_temp_dir();
  const fs::path target = dir.path() / "target";
  ASSERT_TRUE(kprof::private_directory(target, true).ok());
  const fs::path shared = dir.path() / "shared";
  fs::create_directories(shared);
  fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
  const fs::path link = shared / "link";
  fs::create_directory_symlink(target, link);
  EXPECT_FALSE(kprof::safe_directory_chain(link / "out").ok()); // missing: nothing to check
  ASSERT_TRUE(kprof::create_directories(link / "out").ok());
  EXPECT_TRUE(kprof::safe_directory_chain(link / "out").ok());
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give the link to uid 65534";
  }
  ASSERT_EQ(::lchown(link.c_str(), 65534, 65534), 0);
  auto chain = kprof::safe_directory_chain(link / "out");
  ASSERT_FALSE(chain.ok());
  EXPECT_NE(chain.error().message.find(link.string() + " is a symbolic link of uid 65534"),
            std::string::npos)
      << chain.error().message;
}

TEST(PrivateDirectory, RefusesADirectoryAnotherUserMadeAndOneUnderADirectoryOfAnotherUser) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give a directory to uid 65534";
  }
  const kprof::TempDir dir = make_temp_dir();
  const fs::path theirs = dir.path() / "theirs";
  ASSERT_EQ(::mkdir(theirs.c_str(), 0700), 0);
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
  EXPECT_NE(refusal(theirs, true).find("belongs to uid 65534"), std::string::npos);
  EXPECT_NE(refusal(theirs / "mine", true).find("belongs to uid 65534"), std::string::npos);
}

TEST(TempDir, CreatesAFreshPrivateDirectoryWithThePrefix) {
  auto first = kprof::TempDir::create("kprof-prefix");
  auto second = kprof::TempDir::create("kprof-prefix");
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_NE(first->path(), second->path());
  EXPECT_TRUE(fs::is_directory(first->path()));
  EXPECT_TRUE(first->path().filename().string().starts_with("kprof-prefix-"));
  EXPECT_EQ(first->path().parent_path(), fs::temp_directory_path());
  EXPECT_EQ(fs::status(first->path()).permissions() & fs::perms::all, fs::perms::owner_all);
}

TEST(TempDir, RemovesItsDirectoryAndContentsOnDestruction) {
  fs::path path;
  {
    kprof::TempDir dir = make_temp_dir();
    path = dir.path();
    ASSERT_TRUE(kprof::write_file_atomic(path / "sub" / "file.txt", "x").ok());
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(TempDir, KeepsItsDirectoryWhenAsked) {
  fs::path path;
  {
    kprof::TempDir dir = make_temp_dir();
    path = dir.path();
    dir.keep();
  }
  EXPECT_TRUE(fs::is_directory(path));
  fs::remove_all(path);
}

TEST(TempDir, MovingTransfersOwnership) {
  kprof::TempDir outer = make_temp_dir();
  const fs::path outer_path = outer.path();
  fs::path moved_path;
  {
    kprof::TempDir source = make_temp_dir();
    moved_path = source.path();
    outer = std::move(source); // the old outer directory goes now
  }
  EXPECT_FALSE(fs::exists(outer_path));
  EXPECT_TRUE(fs::is_directory(moved_path)) << "the moved-from TempDir removed the directory";
  EXPECT_EQ(outer.path(), moved_path);
}

TEST(UtcTimestamp, IsIso8601InUtc) {
  const std::string stamp = kprof::utc_timestamp();
  EXPECT_TRUE(std::regex_match(stamp, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << stamp;
}

TEST(EnvVar, TreatsUnsetAndEmptyAlike) {
  ::unsetenv("KPROF_TEST_ENV_VAR");
  EXPECT_FALSE(kprof::env_var("KPROF_TEST_ENV_VAR").has_value());
  ASSERT_EQ(::setenv("KPROF_TEST_ENV_VAR", "", 1), 0);
  EXPECT_FALSE(kprof::env_var("KPROF_TEST_ENV_VAR").has_value());
  ASSERT_EQ(::setenv("KPROF_TEST_ENV_VAR", "value", 1), 0);
  EXPECT_EQ(kprof::env_var("KPROF_TEST_ENV_VAR"), "value");
  ::unsetenv("KPROF_TEST_ENV_VAR");
}

TEST(EnvFlag, AcceptsTheUsualBooleanWordsInAnyCase) {
  for (const char* yes : {"1", "true", "TRUE", "True", "yes", "Yes", "on", "ON"}) {
    auto parsed = kprof::parse_env_flag("KPROF_X", yes);
    ASSERT_TRUE(parsed.ok()) << yes << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, std::optional<bool>(true)) << yes;
  }
  for (const char* no : {"0", "false", "FALSE", "False", "no", "NO", "off", "Off"}) {
    auto parsed = kprof::parse_env_flag("KPROF_X", no);
    ASSERT_TRUE(parsed.ok()) << no << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, std::optional<bool>(false)) << no;
  }
}

TEST(EnvFlag, AnEmptyValueIsUnset) {
  auto parsed = kprof::parse_env_flag("KPROF_X", "");
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->has_value());
  ::unsetenv("KPROF_TEST_ENV_FLAG");
  auto unset = kprof::env_flag("KPROF_TEST_ENV_FLAG");
  ASSERT_TRUE(unset.ok());
  EXPECT_FALSE(unset->has_value());
  ASSERT_EQ(::setenv("KPROF_TEST_ENV_FLAG", "", 1), 0);
  auto empty = kprof::env_flag("KPROF_TEST_ENV_FLAG");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
  ASSERT_EQ(::setenv("KPROF_TEST_ENV_FLAG", "Off", 1), 0);
  auto off = kprof::env_flag("KPROF_TEST_ENV_FLAG");
  ::unsetenv("KPROF_TEST_ENV_FLAG");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(*off, std::optional<bool>(false));
}

TEST(EnvFlag, RefusesAnyOtherValueNamingTheVariableAndTheValidWords) {
  for (const char* other : {"maybe", " 1", "1 ", "2", "y", "n", "enable", "-1", "0x0"}) {
    auto parsed = kprof::parse_env_flag("KPROF_COMPILE_AHEAD", other);
    ASSERT_FALSE(parsed.ok()) << other;
    EXPECT_EQ(parsed.error().category, kprof::ErrorCategory::usage);
    EXPECT_NE(parsed.error().message.find(std::string("KPROF_COMPILE_AHEAD='") + other + "'"),
              std::string::npos)
        << parsed.error().message;
    EXPECT_NE(parsed.error().message.find("1, true, yes, on, 0, false, no, off"), std::string::npos)
        << parsed.error().message;
  }
}

} // namespace

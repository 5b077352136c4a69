// HistoryStore::open_read_only(): `kprof history` and `kprof diff` read a history they cannot
// (or must not) write: a 0444 file in a 0555 directory, a database of an older schema, an empty
// file. A read-only open never creates, migrates or writes anything.
//
// The tests run as root in CI, where file modes do not stop writes; so they check what a write
// would leave behind (the bytes, size and mtime of the file, no -wal/-shm beside it), and the
// file-mode case runs in a child process that drops to the `nobody` user.
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "unit/history/documents.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;
using testing::simple_report;

/// Everything a write into the database would change.
struct FileState {
  std::string bytes;
  fs::file_time_type mtime;
  bool wal = false;
  bool shm = false;

  static FileState of(const fs::path& path) {
    FileState state;
    std::ifstream in(path, std::ios::binary);
    state.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::error_code ec;
    state.mtime = fs::last_write_time(path, ec);
    state.wal = fs::exists(path.string() + "-wal");
    state.shm = fs::exists(path.string() + "-shm");
    return state;
  }

  bool operator==(const FileState&) const = default;
};

class ReadOnlyHistory : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create("kprof-readonly-test");
    ASSERT_TRUE(dir.ok());
    m_dir.emplace(std::move(dir).value());
  }
  void TearDown() override {
    // Give the directory back its modes, so that a non-root run can remove it.
    std::error_code ec;
    for (const auto& entry : fs::recursive_directory_iterator(dir(), ec)) {
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::permissions(dir(), fs::perms::owner_all, fs::perm_options::add, ec);
  }

  [[nodiscard]] const fs::path& dir() const { return m_dir->path(); }

  /// A history of two ok rounds, written by the ordinary (read-write) store and closed.
  fs::path recorded_history(const fs::path& path) {
    auto store = HistoryStore::open(path);
    EXPECT_TRUE(store.ok()) << store.error().message;
    for (int round = 1; round <= 2; ++round) {
      RoundEntry entry;
      entry.round = round;
      entry.label = "kernel.py";
      entry.document = simple_report(round, std::nullopt, 2.0e6 / round, 45.0 * round);
      auto recorded = store->record_round(entry);
      EXPECT_TRUE(recorded.ok()) << recorded.error().message;
    }
    return path;
  }

private:
  std::optional<TempDir> m_dir;
};

void exec_sql(const fs::path& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &message), SQLITE_OK)
      << (message != nullptr ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

TEST_F(ReadOnlyHistory, ReadsRowsDocumentsAndDiffsWithoutChangingTheFile) {
  const fs::path path = recorded_history(dir() / "kprof.db");
  const FileState before = FileState::of(path);
  ASSERT_FALSE(before.wal || before.shm) << "the writer should have cleaned up";
  {
    auto store = HistoryStore::open_read_only(path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    EXPECT_EQ(store->schema_version(), k_history_schema_version);
    auto rows = store->rows();
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 2U);
    EXPECT_TRUE((*rows)[1].best);
    auto a = store->document(RoundRef{1, std::nullopt});
    auto b = store->document(RoundRef{2, std::nullopt});
    ASSERT_TRUE(a.ok() && b.ok());
    auto diff = diff_reports(*a, *b);
    ASSERT_TRUE(diff.ok()) << diff.error().message;
    EXPECT_NE(render_diff(*diff, Format::prompt).find("2.00x faster"), std::string::npos);
    EXPECT_EQ(FileState::of(path), before) << "-wal/-shm created or the file changed while open";
  }
  EXPECT_EQ(FileState::of(path), before);
}

TEST_F(ReadOnlyHistory, SeesRoundsAWriterHasCommittedButNotCheckpointed) {
  const fs::path path = dir() / "kprof.db";
  auto writer = HistoryStore::open(path);
  ASSERT_TRUE(writer.ok());
  RoundEntry entry;
  entry.round = 7;
  entry.label = "kernel.py";
  entry.document = simple_report(7, std::nullopt, 1.0e6, 50);
  ASSERT_TRUE(writer->record_round(entry).ok());
  ASSERT_TRUE(fs::exists(path.string() + "-wal")); // the round is in the WAL

  auto reader = HistoryStore::open_read_only(path);
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  auto rows = reader->rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ(rows->front().round, 7);
}

TEST_F(ReadOnlyHistory, RefusesWritesWithoutChangingTheFile) {
  const fs::path path = recorded_history(dir() / "kprof.db");
  const FileState before = FileState::of(path);
  {
    auto store = HistoryStore::open_read_only(path);
    ASSERT_TRUE(store.ok());
    RoundEntry entry;
    entry.round = 3;
    entry.label = "kernel.py";
    entry.document = simple_report(3, std::nullopt, 1.0e6, 50);
    auto recorded = store->record_round(entry);
    ASSERT_FALSE(recorded.ok());
    EXPECT_EQ(recorded.error().category, ErrorCategory::database);
  }
  EXPECT_EQ(FileState::of(path), before);
}

TEST_F(ReadOnlyHistory, ReportsAnEmptyFileAndLeavesItEmpty) {
  const fs::path path = dir() / "kprof.db";
  std::ofstream(path).close();
  ASSERT_EQ(fs::file_size(path), 0U);
  auto read_only = HistoryStore::open_read_only(path);
  ASSERT_FALSE(read_only.ok());
  EXPECT_EQ(read_only.error().category, ErrorCategory::database);
  EXPECT_NE(read_only.error().message.find("is empty (0 bytes): not a kprof history"),
            std::string::npos)
      << read_only.error().message;
  EXPECT_EQ(fs::file_size(path), 0U);

  // The read-write open refuses it too, instead of writing a schema into it.
  auto read_write = HistoryStore::open(path);
  ASSERT_FALSE(read_write.ok());
  EXPECT_NE(read_write.error().message.find("is empty (0 bytes): not a kprof history"),
            std::string::npos)
      << read_write.error().message;
  EXPECT_EQ(fs::file_size(path), 0U);
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
}

TEST_F(ReadOnlyHistory, RefusesAMissingFileWithoutCreatingIt) {
  const fs::path path = dir() / "none" / "kprof.db";
  auto store = HistoryStore::open_read_only(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().category, ErrorCategory::input_not_found);
  EXPECT_FALSE(fs::exists(dir() / "none"));
}

TEST_F(ReadOnlyHistory, SaysADirectoryIsNotAHistory) {
  auto store = HistoryStore::open_read_only(dir());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().category, ErrorCategory::io);
  EXPECT_NE(store.error().message.find("is a directory"), std::string::npos);
}

TEST_F(ReadOnlyHistory, SaysAFileThatIsNotSqliteIsNotAHistory) {
  const fs::path path = dir() / "kprof.db";
  ASSERT_TRUE(write_file_atomic(path, "round,kernel\n1,k\n").ok());
  const FileState before = FileState::of(path);
  auto store = HistoryStore::open_read_only(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().category, ErrorCategory::database);
  EXPECT_NE(store.error().message.find("not an SQLite database"), std::string::npos)
      << store.error().message;
  EXPECT_EQ(FileState::of(path), before);
}

TEST_F(ReadOnlyHistory, ReadsASchemaVersionOneDatabaseWithoutMigratingIt) {
  // The first layout, written by hand as kprof 0.1 wrote it: a later kprof (schema 2 and on)
  // must still read it read-only, without adding its newer tables or columns.
  const fs::path path = dir() / "kprof.db";
  exec_sql(path, R"sql(
CREATE TABLE runs (id INTEGER PRIMARY KEY, round INTEGER NOT NULL, candidate INTEGER,
  label TEXT NOT NULL, status TEXT NOT NULL, error_category TEXT, error_message TEXT,
  error_detail TEXT, created_at TEXT NOT NULL, total_duration_ns REAL, dominant_kernel TEXT,
  bottleneck TEXT, compute_sol_pct REAL, memory_sol_pct REAL, document TEXT);
CREATE TABLE kernels (run_id INTEGER NOT NULL, name TEXT NOT NULL, launches INTEGER,
  duration_ns REAL, share REAL);
CREATE TABLE metrics (run_id INTEGER NOT NULL, kernel TEXT NOT NULL, launch INTEGER NOT NULL,
  metric TEXT NOT NULL, value REAL, text TEXT, unit TEXT);
CREATE TABLE rooflines (run_id INTEGER NOT NULL, kernel TEXT NOT NULL, bottleneck TEXT,
  compute_sol_pct REAL, memory_sol_pct REAL, headroom_pct REAL, tensor_cores_used INTEGER);
INSERT INTO runs (round, candidate, label, status, created_at, total_duration_ns,
  dominant_kernel, bottleneck, compute_sol_pct, memory_sol_pct)
  VALUES (1, NULL, 'kernel.py', 'ok', '2026-01-02T03:04:05Z', 1500, 'k', 'memory', 20, 80);
INSERT INTO runs (round, candidate, label, status, error_category, error_message, created_at)
  VALUES (2, NULL, 'kernel.py', 'failed', 'kernel_raised', 'boom', '2026-01-02T03:05:05Z');
PRAGMA user_version = 1;
)sql");
  const FileState before = FileState::of(path);
  {
    auto store = HistoryStore::open_read_only(path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    EXPECT_EQ(store->schema_version(), 1);
    auto rows = store->rows();
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 2U);
    EXPECT_EQ((*rows)[0].max_sol_pct, 80.0);
    ASSERT_TRUE((*rows)[1].error);
    EXPECT_EQ((*rows)[1].error->category, ErrorCategory::kernel_raised);
  }
  EXPECT_EQ(FileState::of(path), before);
}

TEST_F(ReadOnlyHistory, RefusesANewerSchemaVersion) {
  const fs::path path = recorded_history(dir() / "kprof.db");
  exec_sql(path, ("PRAGMA user_version = " + std::to_string(k_history_schema_version + 1)).c_str());
  auto store = HistoryStore::open_read_only(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().category, ErrorCategory::database);
  EXPECT_NE(store.error().message.find("newer kprof"), std::string::npos);
}

TEST_F(ReadOnlyHistory, SaysAnSqliteDatabaseWithoutTheSchemaIsNotAHistory) {
  const fs::path path = dir() / "other.db";
  exec_sql(path, "CREATE TABLE t (x INTEGER);");
  const FileState before = FileState::of(path);
  auto store = HistoryStore::open_read_only(path);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("without a kprof history"), std::string::npos)
      << store.error().message;
  EXPECT_EQ(FileState::of(path), before);
}

/// Exit codes of the child of ReadsA0444FileInA0555DirectoryAsAnotherUser.
enum ChildExit { child_ok = 0, child_no_privileges = 2, child_open_failed = 3, child_bad_rows = 4 };

TEST_F(ReadOnlyHistory, ReadsA0444FileInA0555DirectoryAsAnotherUser) {
  const fs::path history_dir = dir() / "history";
  const fs::path path = recorded_history(history_dir / "kprof.db");
  // The temp dir (0700) must be enterable by the other user; the history itself is read-only.
  fs::permissions(dir(), fs::perms::owner_all | fs::perms::others_exec);
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(history_dir, fs::perms::owner_read | fs::perms::owner_exec |
                                   fs::perms::group_read | fs::perms::group_exec |
                                   fs::perms::others_read | fs::perms::others_exec);
  const FileState before = FileState::of(path);
  const bool root = ::geteuid() == 0;

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // As root, become `nobody` (65534), for whom the modes hold; otherwise the modes hold already.
    if (root && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      std::_Exit(child_no_privileges);
    }
    auto store = HistoryStore::open_read_only(path);
    if (!store.ok()) {
      std::fprintf(stderr, "open_read_only: %s\n", store.error().message.c_str());
      std::_Exit(child_open_failed);
    }
    auto rows = store->rows();
    std::_Exit(rows.ok() && rows->size() == 2 ? child_ok : child_bad_rows);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == child_no_privileges) {
    GTEST_SKIP() << "cannot switch to the nobody user (uid 65534) in this sandbox";
  }
  EXPECT_EQ(WEXITSTATUS(status), child_ok);
  EXPECT_EQ(FileState::of(path), before);
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
  EXPECT_FALSE(fs::exists(path.string() + "-shm"));
}

} // namespace
} // namespace kprof

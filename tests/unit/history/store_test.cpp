#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"
#include "unit/history/documents.hpp"
#include "unit/many_launches.hpp"

namespace kprof {
namespace {

using testing::make_report;
using testing::simple_report;

TempDir make_temp_dir() {
  auto dir = TempDir::create("kprof-history-test");
  KPROF_ASSERT(dir.ok());
  return std::move(dir).value();
}

HistoryStore open_store(const std::filesystem::path& path) {
  auto store = HistoryStore::open(path);
  if (!store) {
    ADD_FAILURE() << store.error().message;
  }
  KPROF_ASSERT(store.ok());
  return std::move(store).value();
}

RoundEntry ok_entry(int round, std::optional<int> candidate, double duration_ns,
                    double memory_sol_pct = 45) {
  RoundEntry entry;
  entry.round = round;
  entry.candidate = candidate;
  entry.label = "kernel.py";
  entry.document = simple_report(round, candidate, duration_ns, memory_sol_pct);
  return entry;
}

RoundEntry failed_entry(int round, std::optional<int> candidate) {
  RoundEntry entry;
  entry.round = round;
  entry.candidate = candidate;
  entry.label = "kernel_bad.py";
  entry.status = CandidateStatus::failed;
  entry.error = make_error(ErrorCategory::kernel_import, "kernel.py: SyntaxError: invalid syntax",
                           "Traceback (most recent call last):\n  ...");
  return entry;
}

/// Runs a query returning one integer through a separate raw connection.
long long query_int(const std::filesystem::path& db_path, const char* sql) {
  sqlite3* db = nullptr;
  KPROF_ASSERT(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  KPROF_ASSERT(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK);
  KPROF_ASSERT(sqlite3_step(stmt) == SQLITE_ROW);
  const long long value = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

std::string query_text(const std::filesystem::path& db_path, const char* sql) {
  sqlite3* db = nullptr;
  KPROF_ASSERT(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  KPROF_ASSERT(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK);
  KPROF_ASSERT(sqlite3_step(stmt) == SQLITE_ROW);
  const unsigned char* text = sqlite3_column_text(stmt, 0);
  std::string value = text != nullptr ? reinterpret_cast<const char*>(text) : "";
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

TEST(HistoryStore, OpenCreatesTheFileAndItsSchema) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "out" / "kprof.db";
  { HistoryStore store = open_store(path); }
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), k_history_schema_version);
  EXPECT_EQ(query_text(path, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                            "('runs', 'kernels', 'metrics', 'rooflines')"),
            4);
}

TEST(HistoryStore, ReopeningKeepsRecordedRounds) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  {
    HistoryStore store = open_store(path);
    ASSERT_TRUE(store.record_round(ok_entry(1, std::nullopt, 2.0e6)).ok());
  }
  HistoryStore store = open_store(path);
  auto rows = store.rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ(rows->front().round, 1);
  EXPECT_EQ(rows->front().total_duration_ns, 2.0e6);
}

TEST(HistoryStore, RefusesADatabaseWrittenByANewerKprof) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  { HistoryStore store = open_store(path); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  auto reopened = HistoryStore::open(path);
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.error().category, ErrorCategory::database);
  EXPECT_NE(reopened.error().message.find("written by a newer kprof"), std::string::npos)
      << reopened.error().message;
  EXPECT_NE(reopened.error().message.find(path.string()), std::string::npos);
}

TEST(HistoryStore, RefusesAFileThatIsNotADatabase) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  std::ofstream(path) << "round,candidate\n1,0\n" << std::string(200, 'x') << "\n";
  auto store = HistoryStore::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().category, ErrorCategory::database);
  EXPECT_NE(store.error().message.find("not an SQLite database"), std::string::npos)
      << store.error().message;
}

/// ok_entry() with the report's truth (issue 43): measured median, speed-up, SOL share, check.
RoundEntry measured_entry(int round, double duration_ns, double median_us) {
  RoundEntry entry = ok_entry(round, std::nullopt, duration_ns);
  (*entry.document)["truth"] = Json{{"timing", {{"median_us", median_us}}},
                                    {"reference", {{"speedup", 2500.0 / median_us}}},
                                    {"speed_of_light", {{"share", 250.0 / median_us}}},
                                    {"check", {{"verdict", "pass"}}}};
  return entry;
}

TEST(HistoryStore, RowsKeepTheTruthAndTheBestIsTheFastestMeasuredNotNcusShortest) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  ASSERT_TRUE(store.record_round(measured_entry(1, 2.0e6, 1000.0)).ok());
  ASSERT_TRUE(store.record_round(measured_entry(2, 1.0e6, 1200.0)).ok()); // ncu's best only
  ASSERT_TRUE(store.record_round(measured_entry(3, 1.5e6, 500.0)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(4, std::nullopt, 0.5e6)).ok()); // --no-timing
  auto rows = store.rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 4U);
  const HistoryRow& third = (*rows)[2];
  ASSERT_TRUE(third.measured_median_us.has_value());
  EXPECT_DOUBLE_EQ(*third.measured_median_us, 500.0);
  EXPECT_DOUBLE_EQ(third.speedup.value_or(0), 5.0);
  EXPECT_DOUBLE_EQ(third.speed_of_light_share.value_or(0), 0.5);
  EXPECT_EQ(third.check, "pass");
  EXPECT_FALSE((*rows)[3].measured_median_us.has_value());
  std::vector<bool> marked;
  for (const auto& row : *rows) {
    marked.push_back(row.best_so_far);
  }
  EXPECT_EQ(marked, (std::vector<bool>{true, false, true, false}));
  EXPECT_TRUE(third.best);
  const std::string table = render_history(*rows, Format::table);
  EXPECT_NE(table.find("measured"), std::string::npos) << table;
  EXPECT_NE(table.find("5.00x"), std::string::npos) << table;
  EXPECT_NE(table.find("lowest measured median"), std::string::npos) << table;
  const std::string csv = render_history(*rows, Format::csv);
  EXPECT_NE(csv.find(",speed_of_light_share,check,measured_mode,measured_eager_us\n"),
            std::string::npos)
      << csv;
}

TEST(HistoryStore, RoundsTimedInDifferentModesAreRankedOnTheirEagerMedians) {
  // A call of thousands of launches timed eagerly in one round and as a CUDA graph's replay in
  // the next: the graph's median leaves out the host's launches, so the rounds are compared on
  // their eager medians, and the table says which medians are a graph's.
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  ASSERT_TRUE(store.record_round(measured_entry(1, 8.1e6, 35'700.0)).ok());
  RoundEntry graph = measured_entry(2, 8.1e6, 8'000.0);
  (*graph.document)["truth"]["timing"]["mode"] = "graph";
  (*graph.document)["truth"]["timing"]["eager_median_us"] = 36'100.0;
  ASSERT_TRUE(store.record_round(graph).ok());
  ASSERT_TRUE(store.record_round(measured_entry(3, 8.1e6, 34'000.0)).ok());
  auto rows = store.rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 3U);
  EXPECT_EQ((*rows)[0].measured_mode, "eager");
  EXPECT_EQ((*rows)[1].measured_mode, "graph");
  EXPECT_DOUBLE_EQ((*rows)[1].measured_eager_us.value_or(0), 36'100.0);
  EXPECT_DOUBLE_EQ((*rows)[2].measured_eager_us.value_or(0), 34'000.0);
  std::vector<bool> marked;
  for (const auto& row : *rows) {
    marked.push_back(row.best_so_far);
  }
  EXPECT_EQ(marked, (std::vector<bool>{true, false, true}));
  EXPECT_TRUE((*rows)[2].best);
  const std::string table = render_history(*rows, Format::table);
  EXPECT_NE(table.find("8.00 ms (graph)"), std::string::npos) << table;
  EXPECT_NE(table.find("lowest eager median"), std::string::npos) << table;
  const std::string json = render_history(*rows, Format::json);
  EXPECT_NE(json.find("\"ranked_on\": \"measured_eager\""), std::string::npos) << json;
}

TEST(HistoryStore, RecordedRoundsReadBackWithTheBestSoFarMarked) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  ASSERT_TRUE(store.record_round(ok_entry(1, std::nullopt, 2.0e6)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(2, 0, 1.8e6)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(2, 1, 1.7e6, 60)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(3, std::nullopt, 1.9e6)).ok());
  ASSERT_TRUE(store.record_round(failed_entry(4, std::nullopt)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(5, std::nullopt, 1.5e6)).ok());

  auto rows = store.rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 6U);
  std::vector<std::pair<int, std::optional<int>>> order;
  std::vector<bool> marked;
  for (const auto& row : *rows) {
    order.emplace_back(row.round, row.candidate);
    marked.push_back(row.best_so_far);
  }
  const std::vector<std::pair<int, std::optional<int>>> expected_order = {
      {1, std::nullopt}, {2, 0}, {2, 1}, {3, std::nullopt}, {4, std::nullopt}, {5, std::nullopt}};
  EXPECT_EQ(order, expected_order);
  // Round 1 sets the first record, round 2 candidate 1 beats it, round 3 does not, round 5 does.
  EXPECT_EQ(marked, (std::vector<bool>{true, false, true, false, false, true}));
  EXPECT_TRUE(rows->back().best);
  EXPECT_FALSE((*rows)[2].best);

  const HistoryRow& candidate = (*rows)[2];
  EXPECT_EQ(candidate.label, "kernel.py");
  EXPECT_EQ(candidate.status, CandidateStatus::ok);
  EXPECT_EQ(candidate.dominant_kernel, "scale_kernel");
  EXPECT_EQ(candidate.bottleneck, "memory");
  EXPECT_EQ(candidate.compute_sol_pct, 20);
  EXPECT_EQ(candidate.memory_sol_pct, 60);
  EXPECT_EQ(candidate.max_sol_pct, 60);
  EXPECT_FALSE(candidate.error.has_value());
  EXPECT_FALSE(candidate.created_at.empty());
}

TEST(HistoryStore, ReRecordingARoundReplacesIt) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  HistoryStore store = open_store(path);
  ASSERT_TRUE(store.record_round(ok_entry(3, std::nullopt, 2.0e6)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(3, 0, 2.2e6)).ok());
  const long long metrics_per_run = query_int(path, "SELECT count(*) FROM metrics") / 2;
  ASSERT_TRUE(store.record_round(ok_entry(3, std::nullopt, 1.0e6)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(3, 0, 1.1e6)).ok());

  auto rows = store.rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2U);
  EXPECT_EQ((*rows)[0].total_duration_ns, 1.0e6);
  EXPECT_EQ((*rows)[1].total_duration_ns, 1.1e6);
  // The replaced runs took their kernels, metrics and rooflines with them.
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM metrics"), 2 * metrics_per_run);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM kernels"), 2);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM rooflines"), 2);
}

TEST(HistoryStore, FailedRoundIsRecordedWithItsError) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  ASSERT_TRUE(store.record_round(failed_entry(2, 1)).ok());

  auto rows = store.rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1U);
  const HistoryRow& row = rows->front();
  EXPECT_EQ(row.status, CandidateStatus::failed);
  EXPECT_EQ(row.label, "kernel_bad.py");
  ASSERT_TRUE(row.error.has_value());
  EXPECT_EQ(row.error->category, ErrorCategory::kernel_import);
  EXPECT_EQ(row.error->message, "kernel.py: SyntaxError: invalid syntax");
  EXPECT_EQ(row.error->detail, "Traceback (most recent call last):\n  ...");
  EXPECT_FALSE(row.total_duration_ns.has_value());
  EXPECT_FALSE(row.best_so_far);

  auto document = store.document(2, 1);
  ASSERT_FALSE(document.ok());
  EXPECT_EQ(document.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(document.error().message.find("kernel_import"), std::string::npos)
      << document.error().message;
}

TEST(HistoryStore, StoresKernelsMetricValuesAndRooflines) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  HistoryStore store = open_store(path);
  ASSERT_TRUE(store.record_round(ok_entry(1, std::nullopt, 2.0e6, 91)).ok());

  EXPECT_EQ(query_int(path, "SELECT count(*) FROM metrics"), 4);
  EXPECT_EQ(query_text(path, "SELECT value FROM metrics WHERE metric = "
                             "'dram__throughput.avg.pct_of_peak_sustained_elapsed'"),
            "91.0");
  EXPECT_EQ(query_text(path, "SELECT unit FROM metrics WHERE metric = "
                             "'dram__throughput.avg.pct_of_peak_sustained_elapsed'"),
            "%");
  EXPECT_EQ(query_text(path, "SELECT text FROM metrics WHERE metric = 'launch__func_cache_config'"),
            "CachePreferNone");
  EXPECT_EQ(query_int(path, "SELECT value IS NULL FROM metrics WHERE metric = "
                            "'launch__func_cache_config'"),
            1);
  EXPECT_EQ(query_text(path, "SELECT name FROM kernels"), "scale_kernel");
  EXPECT_EQ(query_int(path, "SELECT launches FROM kernels"), 1);
  EXPECT_EQ(query_text(path, "SELECT bottleneck || ' ' || memory_sol_pct || ' ' || "
                             "tensor_cores_used FROM rooflines WHERE kernel = 'scale_kernel'"),
            "memory 91.0 0");
}

TEST(HistoryStore, ReloadsTheRecordedDocument) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  const RoundEntry entry = ok_entry(4, std::nullopt, 1234.5);
  ASSERT_TRUE(store.record_round(entry).ok());
  auto document = store.document(4, std::nullopt);
  ASSERT_TRUE(document.ok()) << document.error().message;
  EXPECT_EQ(*document, *entry.document);
  EXPECT_EQ(document->dump(), entry.document->dump());
}

TEST(HistoryStore, RecordsTheDocumentAndMetricValuesOfThousandsOfLaunchesReadOneAtATime) {
  // A report of 3,000 launches (compact text of several MB: several pieces written into the
  // row), recorded from its capture without its tree: the row's document is the tree's text,
  // and the metric rows hold each kernel's first k_metric_rows_launches launches.
  const TempDir dir = make_temp_dir();
  const std::filesystem::path csv = dir.path() / "many.csv";
  testing::write_many_launches(csv, 3000);
  Result<Capture> capture = read_ncu_csv_file(csv);
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok()) << analysis.error().message;
  const MetricSet set = *find_metric_set("default");
  const Json run{{"generated_at", "2026-12-06T00:00:00Z"}};
  const Json tree = build_report(*capture, *analysis, set, run);
  RoundEntry entry;
  entry.round = 1;
  entry.label = "many.csv";
  entry.report_source = std::make_shared<const CaptureReport>(*capture, *analysis, set, run);
  const std::filesystem::path path = dir.path() / "kprof.db";
  {
    HistoryStore store = open_store(path);
    ASSERT_TRUE(store.record_round(entry).ok());
    auto document = store.document(1, std::nullopt);
    ASSERT_TRUE(document.ok()) << document.error().message;
    EXPECT_TRUE(*document == tree);
    // Its outline, read in pieces: what kprof mcp's diagnosis and hot_lines read.
    auto outline = store.document_outline(RoundRef{1, std::nullopt});
    ASSERT_TRUE(outline.ok()) << outline.error().message;
    EXPECT_TRUE(*outline == report_outline(tree));
    EXPECT_EQ((*outline)["kernels"].size(), 1U);
  }
  EXPECT_GT(query_int(path, "SELECT length(document) FROM documents"), 4LL << 20);
  EXPECT_EQ(query_int(path, "SELECT length(document) FROM documents"),
            static_cast<long long>(json_text(tree, -1).size()));
  std::size_t values = 0;
  std::map<std::string, int> launches_of;
  for (const Json& launch : tree["kernels"]) {
    if (launches_of[launch["name"].get<std::string>()]++ < k_metric_rows_launches) {
      values += launch["metrics"].size();
    }
  }
  ASSERT_EQ(launches_of.size(), 1U);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM metrics"), static_cast<long long>(values));
  EXPECT_EQ(query_int(path, "SELECT count(DISTINCT launch) FROM metrics"), k_metric_rows_launches);
  EXPECT_EQ(query_int(path, "SELECT max(launch) FROM metrics"), k_metric_rows_launches - 1);
}

TEST(HistoryStore, ARoundWithoutCandidateResolvesToItsBestCandidate) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  ASSERT_TRUE(store.record_round(ok_entry(2, 0, 1.8e6)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(2, 1, 1.7e6)).ok());
  ASSERT_TRUE(store.record_round(failed_entry(2, 2)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(3, 0, 1.9e6)).ok());

  auto best = store.resolve(RoundRef{2, std::nullopt});
  ASSERT_TRUE(best.ok()) << best.error().message;
  EXPECT_EQ(*best, (RoundRef{2, 1}));
  auto only = store.resolve(RoundRef{3, std::nullopt});
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(*only, (RoundRef{3, 0}));

  auto document = store.document(RoundRef{2, std::nullopt});
  ASSERT_TRUE(document.ok()) << document.error().message;
  EXPECT_EQ((*document)["metadata"]["candidate"], 1);
  auto named = store.document(2, 0);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ((*named)["metadata"]["candidate"], 0);
}

TEST(HistoryStore, UnknownRoundsAndCandidatesAreNotFound) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  ASSERT_TRUE(store.record_round(ok_entry(2, 0, 1.8e6)).ok());
  ASSERT_TRUE(store.record_round(failed_entry(5, 0)).ok());
  ASSERT_TRUE(store.record_round(failed_entry(5, 1)).ok());

  for (const RoundRef& ref :
       {RoundRef{9, std::nullopt}, RoundRef{2, 7}, RoundRef{5, std::nullopt}}) {
    auto document = store.document(ref);
    ASSERT_FALSE(document.ok()) << to_string(ref);
    EXPECT_EQ(document.error().category, ErrorCategory::input_not_found) << to_string(ref);
  }
}

TEST(HistoryStore, RejectsEntriesItCannotRecord) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");

  RoundEntry negative = ok_entry(-1, std::nullopt, 1.0e6);
  EXPECT_EQ(store.record_round(negative).error().category, ErrorCategory::usage);

  RoundEntry empty;
  empty.round = 1;
  EXPECT_EQ(store.record_round(empty).error().category, ErrorCategory::usage);

  RoundEntry malformed = ok_entry(1, std::nullopt, 1.0e6);
  malformed.document->erase("summary");
  auto recorded = store.record_round(malformed);
  ASSERT_FALSE(recorded.ok());
  EXPECT_EQ(recorded.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(recorded.error().message.find("round 1"), std::string::npos)
      << recorded.error().message;

  auto rows = store.rows();
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());
}

TEST(HistoryStore, TakesTheLabelFromTheDocumentWhenNoneIsGiven) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  RoundEntry entry = ok_entry(1, std::nullopt, 1.0e6);
  entry.label.clear();
  entry.created_at = "2026-01-02T03:04:05Z";
  ASSERT_TRUE(store.record_round(entry).ok());
  auto rows = store.rows();
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->front().label, "kernel.py");
  EXPECT_EQ(rows->front().created_at, "2026-01-02T03:04:05Z");
}

/// Everything rows() says about a row, as one line, so that two histories compare in one go.
std::string describe(const HistoryRow& row) {
  std::string text = to_string(row.ref());
  text += " id=" + std::to_string(row.id) + " label=" + row.label;
  text += " status=" + std::string(to_string(row.status)) + " at=" + row.created_at;
  text += " total=" + (row.total_duration_ns ? std::to_string(*row.total_duration_ns) : "-");
  text += " dominant=" + row.dominant_kernel + " bottleneck=" + row.bottleneck;
  text += " sol=" + (row.max_sol_pct ? std::to_string(*row.max_sol_pct) : "-");
  if (row.error) {
    text += " error=" + std::string(to_string(row.error->category)) + ":" + row.error->message +
            ":" + row.error->detail;
  }
  text += " attempt=" + std::to_string(row.attempt) + " kept_at=" + row.kept_at;
  text += row.best_so_far ? " best_so_far" : "";
  text += row.best ? " best" : "";
  text += row.latest ? " latest" : "";
  return text;
}

std::vector<std::string> describe_history(const HistoryStore& store) {
  auto rows = store.rows();
  if (!rows) {
    ADD_FAILURE() << rows.error().message;
    return {};
  }
  std::vector<std::string> lines;
  for (const auto& row : *rows) {
    lines.push_back(describe(row));
  }
  return lines;
}

/// A shard of a batch round as the submitting process imports it: candidates, a failed one, a
/// failed attempt kept beside a good candidate, and its re-run.
std::vector<RoundEntry> shard_entries() {
  std::vector<RoundEntry> entries = {ok_entry(2, 0, 1.8e6), ok_entry(2, 1, 1.7e6, 60),
                                     failed_entry(2, 2), ok_entry(2, 3, 1.9e6)};
  RoundEntry kept = failed_entry(2, 3);
  kept.kept_at = "round002.candidate-3.attempt-1";
  entries.push_back(kept);
  entries.push_back(ok_entry(2, 3, 1.6e6));
  for (auto& entry : entries) {
    entry.created_at = "2026-01-02T03:04:05Z";
  }
  return entries;
}

TEST(HistoryStore, RecordRoundsRecordsEveryEntryAsRecordRoundWouldOneByOne) {
  const TempDir dir = make_temp_dir();
  HistoryStore one_by_one = open_store(dir.path() / "a" / "kprof.db");
  HistoryStore at_once = open_store(dir.path() / "b" / "kprof.db");
  const auto earlier = ok_entry(1, std::nullopt, 2.0e6);
  ASSERT_TRUE(one_by_one.record_round(earlier).ok());
  ASSERT_TRUE(at_once.record_round(earlier).ok());
  const std::vector<RoundEntry> entries = shard_entries();

  std::vector<std::int64_t> expected_ids;
  for (const auto& entry : entries) {
    auto id = one_by_one.record_round(entry);
    ASSERT_TRUE(id.ok()) << id.error().message;
    expected_ids.push_back(*id);
  }
  auto ids = at_once.record_rounds(entries);
  ASSERT_TRUE(ids.ok()) << ids.error().message;

  EXPECT_EQ(*ids, expected_ids);
  const auto history = describe_history(at_once);
  EXPECT_EQ(history, describe_history(one_by_one));
  // Round 1 and candidates 0, 1, 2 and 3 in place, plus the kept attempt of candidate 3.
  EXPECT_EQ(history.size(), 6U);
  for (const char* sql : {"SELECT count(*) FROM kernels", "SELECT count(*) FROM metrics",
                          "SELECT count(*) FROM rooflines", "SELECT count(*) FROM runs"}) {
    EXPECT_EQ(query_int(at_once.path(), sql), query_int(one_by_one.path(), sql)) << sql;
  }
  auto doc = at_once.document(2, 1);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(*doc, *entries[1].document);
}

TEST(HistoryStore, OneEntryRecordRoundWouldRefuseMakesRecordRoundsRecordNone) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  HistoryStore store = open_store(path);
  ASSERT_TRUE(store.record_round(ok_entry(1, std::nullopt, 2.0e6)).ok());
  const auto before = describe_history(store);
  const long long metrics_before = query_int(path, "SELECT count(*) FROM metrics");

  RoundEntry neither;
  neither.round = 2;
  neither.candidate = 1;
  RoundEntry negative = ok_entry(2, 1, 1.0e6);
  negative.round = -2;
  RoundEntry malformed = ok_entry(2, 1, 1.0e6);
  malformed.document->erase("summary");
  const std::vector<std::pair<RoundEntry, ErrorCategory>> bad_entries = {
      {neither, ErrorCategory::usage},
      {negative, ErrorCategory::usage},
      {malformed, ErrorCategory::malformed_input}};
  for (const auto& [bad, category] : bad_entries) {
    const std::vector<RoundEntry> entries = {ok_entry(2, 0, 1.8e6), bad, ok_entry(2, 2, 1.7e6)};
    auto recorded = store.record_rounds(entries);
    ASSERT_FALSE(recorded.ok());
    EXPECT_EQ(recorded.error().category, category);
    // The message names the entry at fault.
    const std::string named = bad.round < 0 ? "round -2 candidate 1" : "round 2 candidate 1";
    EXPECT_NE(recorded.error().message.find(named), std::string::npos) << recorded.error().message;
    EXPECT_EQ(describe_history(store), before);
    EXPECT_EQ(query_int(path, "SELECT count(*) FROM metrics"), metrics_before);
  }
}

TEST(HistoryStore, ADatabaseFailureOnALaterEntryRollsBackTheEarlierEntriesOfRecordRounds) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  HistoryStore store = open_store(path);
  {
    // SQLite itself refuses candidate 2, after candidates 0 and 1 went in.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TRIGGER refuse_candidate_2 BEFORE INSERT ON runs "
                           "WHEN NEW.candidate = 2 BEGIN SELECT RAISE(ABORT, 'refused by the "
                           "test'); END",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  const std::vector<RoundEntry> entries = {ok_entry(1, 0, 1.8e6), ok_entry(1, 1, 1.7e6),
                                           ok_entry(1, 2, 1.6e6), ok_entry(1, 3, 1.5e6)};
  auto recorded = store.record_rounds(entries);
  ASSERT_FALSE(recorded.ok());
  EXPECT_EQ(recorded.error().category, ErrorCategory::database);
  EXPECT_NE(recorded.error().message.find("round 1 candidate 2"), std::string::npos)
      << recorded.error().message;
  EXPECT_NE(recorded.error().message.find("refused by the test"), std::string::npos)
      << recorded.error().message;
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM runs"), 0);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM metrics"), 0);
  // The store is still usable afterwards: nothing was left open.
  ASSERT_TRUE(store.record_round(ok_entry(1, 0, 1.8e6)).ok());
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM runs"), 1);
}

TEST(HistoryStore, AnInPlaceEntryOfRecordRoundsReplacesTheEarlierRowOfItsRoundAndCandidate) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  HistoryStore store = open_store(path);
  ASSERT_TRUE(store.record_round(ok_entry(3, 0, 2.2e6)).ok());
  ASSERT_TRUE(store.record_round(ok_entry(3, 1, 2.1e6)).ok());
  const long long metrics_per_run = query_int(path, "SELECT count(*) FROM metrics") / 2;

  // Candidate 0 re-run, and candidate 1 recorded twice in the same call: the later one stays.
  const std::vector<RoundEntry> entries = {ok_entry(3, 0, 1.1e6), ok_entry(3, 1, 1.4e6),
                                           ok_entry(3, 1, 1.2e6)};
  auto ids = store.record_rounds(entries);
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  ASSERT_EQ(ids->size(), 3U);

  auto rows = store.rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2U);
  EXPECT_EQ((*rows)[0].ref(), (RoundRef{3, 0}));
  EXPECT_EQ((*rows)[0].total_duration_ns, 1.1e6);
  EXPECT_EQ((*rows)[0].attempt, 2);
  EXPECT_EQ((*rows)[0].id, (*ids)[0]);
  EXPECT_EQ((*rows)[1].ref(), (RoundRef{3, 1}));
  EXPECT_EQ((*rows)[1].total_duration_ns, 1.2e6);
  EXPECT_EQ((*rows)[1].attempt, 3);
  EXPECT_EQ((*rows)[1].id, (*ids)[2]);
  // The replaced runs took their kernels, metrics and rooflines with them.
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM metrics"), 2 * metrics_per_run);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM kernels"), 2);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM rooflines"), 2);
}

TEST(HistoryStore, RecordRoundsOfNoEntriesRecordsNothingAndSucceeds) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  HistoryStore store = open_store(path);
  auto ids = store.record_rounds({});
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  EXPECT_TRUE(ids->empty());
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM runs"), 0);
  // Even on a store that cannot write: no transaction is begun for nothing.
  auto read_only = HistoryStore::open_read_only(path);
  ASSERT_TRUE(read_only.ok()) << read_only.error().message;
  auto none = read_only->record_rounds({});
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->empty());
}

/// The body of one child process: opens its own store and records ten rounds as candidate
/// `child`. Returns the exit status (0: all recorded).
int record_ten_rounds(const std::filesystem::path& path, int child) {
  auto store = HistoryStore::open(path);
  if (!store) {
    std::fprintf(stderr, "child %d: %s\n", child, store.error().message.c_str());
    return 1;
  }
  for (int round = 0; round < 10; ++round) {
    auto recorded = store->record_round(ok_entry(round, child, 1.0e6 + round * 1000 + child));
    if (!recorded) {
      std::fprintf(stderr, "child %d: %s\n", child, recorded.error().message.c_str());
      return 1;
    }
  }
  return 0;
}

TEST(HistoryStore, FourProcessesRecordingAtOnceAllSucceed) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db"; // created by the children, concurrently
  std::vector<pid_t> children;
  for (int child = 0; child < 4; ++child) {
    std::fflush(nullptr);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      _exit(record_ten_rounds(path, child));
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << pid << " did not exit normally";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << pid << " failed to record";
  }
  HistoryStore store = open_store(path);
  auto rows = store.rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->size(), 40U);
  EXPECT_EQ(query_int(path, "SELECT count(DISTINCT round || ':' || candidate) FROM runs"), 40);
}

TEST(HistoryStore, AFailedAttemptKeptBesideAGoodRoundIsAddedAndMarkedLatest) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  ASSERT_TRUE(store.record_round(ok_entry(1, std::nullopt, 2.0e6)).ok());
  RoundEntry attempt = failed_entry(1, std::nullopt);
  attempt.kept_at = "round001.attempt-1";
  ASSERT_TRUE(store.record_round(attempt).ok());

  auto rows = store.rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2U);
  EXPECT_EQ((*rows)[0].status, CandidateStatus::ok);
  EXPECT_EQ((*rows)[0].attempt, 1);
  EXPECT_FALSE((*rows)[0].latest);
  EXPECT_TRUE((*rows)[0].best);
  EXPECT_EQ((*rows)[1].status, CandidateStatus::failed);
  EXPECT_EQ((*rows)[1].attempt, 2);
  EXPECT_EQ((*rows)[1].kept_at, "round001.attempt-1");
  EXPECT_TRUE((*rows)[1].latest);
  // The round's result is still the good one.
  auto doc = store.document(1, std::nullopt);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->at("summary").at("total_duration_ns"), 2.0e6);

  // A good re-run replaces the in-place row and keeps the attempt.
  ASSERT_TRUE(store.record_round(ok_entry(1, std::nullopt, 1.0e6)).ok());
  rows = store.rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2U);
  EXPECT_EQ((*rows)[0].kept_at, "round001.attempt-1");
  EXPECT_EQ((*rows)[1].attempt, 3);
  EXPECT_EQ((*rows)[1].total_duration_ns, 1.0e6);
  EXPECT_TRUE((*rows)[1].latest);
}

TEST(HistoryStore, AnEntryThatDisplacesAnotherKernelsResultKeepsItsRowUnderItsNewDirectory) {
  const TempDir dir = make_temp_dir();
  HistoryStore store = open_store(dir.path() / "kprof.db");
  ASSERT_TRUE(store.record_round(ok_entry(1, std::nullopt, 2.0e6)).ok());
  RoundEntry candidate = ok_entry(1, std::nullopt, 1.0e6);
  candidate.label = "kernel_round_1_sol.py";
  candidate.displaced_to = "round001.kernel-1";
  ASSERT_TRUE(store.record_round(candidate).ok());

  auto rows = store.rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2U);
  EXPECT_EQ((*rows)[0].label, "kernel.py");
  EXPECT_EQ((*rows)[0].kept_at, "round001.kernel-1");
  EXPECT_EQ((*rows)[0].total_duration_ns, 2.0e6);
  EXPECT_EQ((*rows)[1].label, "kernel_round_1_sol.py");
  EXPECT_EQ((*rows)[1].kept_at, "");
  EXPECT_TRUE((*rows)[1].latest);
  auto doc = store.document(1, std::nullopt);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->at("summary").at("total_duration_ns"), 1.0e6);
}

TEST(HistoryStore, AVersion1DatabaseIsMigratedAndItsRowsStillRead) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  {
    // The released version 1 layout of runs, with one recorded round.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* v1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY, round INTEGER NOT NULL CHECK (round >= 0),
  candidate INTEGER CHECK (candidate IS NULL OR candidate >= 0), label TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'partial', 'failed')), error_category TEXT,
  error_message TEXT, error_detail TEXT, created_at TEXT NOT NULL, total_duration_ns REAL,
  dominant_kernel TEXT, bottleneck TEXT, compute_sol_pct REAL, memory_sol_pct REAL,
  document TEXT);
CREATE UNIQUE INDEX runs_round_candidate ON runs (round, coalesce(candidate, -1));
CREATE INDEX runs_round ON runs (round, candidate);
CREATE TABLE kernels (run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name TEXT NOT NULL, launches INTEGER, duration_ns REAL, share REAL);
CREATE TABLE metrics (run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kernel TEXT NOT NULL, launch INTEGER NOT NULL, metric TEXT NOT NULL, value REAL, text TEXT,
  unit TEXT);
CREATE TABLE rooflines (run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kernel TEXT NOT NULL, bottleneck TEXT, compute_sol_pct REAL, memory_sol_pct REAL,
  headroom_pct REAL, tensor_cores_used INTEGER);
INSERT INTO runs (round, candidate, label, status, created_at, total_duration_ns)
  VALUES (4, NULL, 'kernel.py', 'ok', '2026-01-01T00:00:00Z', 3000000.0);
PRAGMA user_version = 1;
)sql";
    ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  HistoryStore store = open_store(path);
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), k_history_schema_version);
  auto rows = store.rows();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ(rows->front().round, 4);
  EXPECT_EQ(rows->front().status, CandidateStatus::ok);
  EXPECT_EQ(rows->front().attempt, 1);
  EXPECT_TRUE(rows->front().latest);
  EXPECT_TRUE(rows->front().kept_at.empty());
  ASSERT_TRUE(store.record_round(ok_entry(4, std::nullopt, 1.0e6)).ok());
  rows = store.rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1U) << "an in-place re-run still replaces the v1 row";
  EXPECT_EQ(rows->front().attempt, 2);
}

TEST(HistoryStore, AVersion2DatabasesDocumentsAreStillReadOnceItIsMigrated) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  const RoundEntry entry = ok_entry(2, std::nullopt, 1234.5);
  {
    // A round recorded by a version 2 kprof: its document in runs.document.
    HistoryStore store = open_store(path);
    ASSERT_TRUE(store.record_round(entry).ok());
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* update = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE runs SET document = ?1", -1, &update, nullptr),
              SQLITE_OK);
    const std::string text = json_text(*entry.document, -1);
    sqlite3_bind_text(update, 1, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(update), SQLITE_DONE);
    sqlite3_finalize(update);
    // Back to version 2's layout: no documents table (v3), no truth columns (v4).
    ASSERT_EQ(sqlite3_exec(db,
                           "DROP TABLE documents; ALTER TABLE runs DROP COLUMN measured_median_us; "
                           "ALTER TABLE runs DROP COLUMN speedup; ALTER TABLE runs DROP COLUMN "
                           "sol_share; ALTER TABLE runs DROP COLUMN check_verdict; "
                           "ALTER TABLE runs DROP COLUMN measured_mode; ALTER TABLE runs DROP "
                           "COLUMN measured_eager_us; PRAGMA user_version = 2;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  {
    auto read_only = HistoryStore::open_read_only(path);
    ASSERT_TRUE(read_only.ok()) << read_only.error().message;
    EXPECT_EQ(read_only->schema_version(), 2);
    auto document = read_only->document(2, std::nullopt);
    ASSERT_TRUE(document.ok()) << document.error().message;
    EXPECT_EQ(*document, *entry.document);
    auto outline = read_only->document_outline(RoundRef{2, std::nullopt});
    ASSERT_TRUE(outline.ok()) << outline.error().message;
    EXPECT_EQ(*outline, report_outline(*entry.document));
  }
  HistoryStore store = open_store(path);
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), k_history_schema_version);
  auto document = store.document(2, std::nullopt);
  ASSERT_TRUE(document.ok()) << document.error().message;
  EXPECT_EQ(*document, *entry.document);
  // A round recorded now keeps its document in the documents table; both are read.
  ASSERT_TRUE(store.record_round(ok_entry(3, std::nullopt, 1000.0)).ok());
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM documents"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM runs WHERE document IS NOT NULL"), 1);
  ASSERT_TRUE(store.document(3, std::nullopt).ok());
  ASSERT_TRUE(store.document(2, std::nullopt).ok());
}

TEST(HistoryStore, AVersion5DatabaseIndexesItsMetricRowsByRunOnceMigrated) {
  const TempDir dir = make_temp_dir();
  const auto path = dir.path() / "kprof.db";
  {
    HistoryStore store = open_store(path);
    ASSERT_TRUE(store.record_round(ok_entry(3, std::nullopt, 2.0e6)).ok());
  }
  const long long metrics = query_int(path, "SELECT count(*) FROM metrics");
  ASSERT_GT(metrics, 0);
  {
    // Back to version 5's index of the metric rows (by run and kernel), without version 7's
    // columns.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "DROP INDEX metrics_run; CREATE INDEX metrics_run ON metrics (run_id, "
                           "kernel); ALTER TABLE runs DROP COLUMN measured_mode; ALTER TABLE runs "
                           "DROP COLUMN measured_eager_us; PRAGMA user_version = 5;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  ASSERT_EQ(query_int(path, "SELECT count(*) FROM pragma_index_info('metrics_run')"), 2);
  HistoryStore store = open_store(path);
  EXPECT_EQ(query_int(path, "PRAGMA user_version"), k_history_schema_version);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM pragma_index_info('metrics_run')"), 1);
  EXPECT_EQ(query_text(path, "SELECT name FROM pragma_index_info('metrics_run')"), "run_id");
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM metrics"), metrics);
  // Re-recording the round still takes the replaced run's metric rows with it.
  ASSERT_TRUE(store.record_round(ok_entry(3, std::nullopt, 1.0e6)).ok());
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM metrics"), metrics);
}

TEST(RoundRef, ParsesARoundAlone) {
  auto ref = parse_round_ref("3");
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(*ref, (RoundRef{3, std::nullopt}));
}

TEST(RoundRef, ParsesARoundAndACandidate) {
  auto ref = parse_round_ref("12:0");
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(*ref, (RoundRef{12, 0}));
}

TEST(RoundRef, RejectsAnythingElseAsUsageError) {
  for (const char* text :
       {"", ":", "3:", ":1", "-1", "+3", " 3", "3 ", "3:1:2", "a", "3:b", "99999999999", "3.0"}) {
    auto ref = parse_round_ref(text);
    ASSERT_FALSE(ref.ok()) << "'" << text << "'";
    EXPECT_EQ(ref.error().category, ErrorCategory::usage);
    EXPECT_NE(ref.error().message.find(text), std::string::npos);
  }
}

TEST(RoundRef, NamesARoundInWords) {
  EXPECT_EQ(to_string(RoundRef{3, std::nullopt}), "round 3");
  EXPECT_EQ(to_string(RoundRef{3, 1}), "round 3 candidate 1");
}

} // namespace
} // namespace kprof

// Committed rounds whose rows may not be in the history yet (kprof/history.hpp, "committed rounds
// and their rows"; docs/history.md, "A round without its row").
//
// Design note. The rename that puts a round in place and the SQLite transaction that records it
// cannot be one step, so the writer leaves a note in the round: `.history-pending.json`, written
// into the staging directory before the rename and removed after the rows are in. The note holds
// the entries without their documents (those are the candidates' report.json beside it) and
// the created_at stamp the rows get, which is what makes recording idempotent: a row of the same
// round, candidate, kept_at, created_at, status and label is that entry (HistoryStore::holds), so
// the writer and a later writer that finds the note cannot both add it. Only the note says that
// rows are missing: a round written with record_history off has none and is never recorded.
#include <algorithm>
#include <system_error>

#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/report_view.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/status.hpp"

namespace kprof {

namespace fs = std::filesystem;

namespace {

constexpr int k_pending_version = 1;

Json entry_json(const RoundEntry& entry) {
  Json out = Json::object();
  out["round"] = entry.round;
  out["candidate"] = entry.candidate ? Json(*entry.candidate) : Json(nullptr);
  out["label"] = entry.label;
  out["status"] = std::string(to_string(entry.status));
  out["created_at"] = entry.created_at;
  out["displaced_to"] = entry.displaced_to;
  out["report"] = entry.document.has_value() || entry.report_source != nullptr;
  out["error"] = to_json(entry.error);
  return out;
}

/// The entry of one element of the note, its document loaded from `dir`; nullopt when the
/// element is not one this kprof wrote or its report.json cannot be loaded.
std::optional<RoundEntry> entry_from_json(const Json& json, const fs::path& dir,
                                          const std::string& kept_at) {
  if (!json.is_object()) {
    return std::nullopt;
  }
  const std::optional<int> round = json_read::index_at(json, "round");
  const auto status = parse_candidate_status(json_read::text_at(json, "status"));
  if (!round || !status) {
    return std::nullopt;
  }
  RoundEntry entry;
  entry.round = *round;
  entry.candidate = json_read::index_at(json, "candidate");
  entry.label = json_read::text_at(json, "label");
  entry.status = *status;
  entry.created_at = json_read::text_at(json, "created_at");
  entry.kept_at = kept_at;
  entry.displaced_to = json_read::text_at(json, "displaced_to");
  if (const Json* error = json_read::member(json, "error"); error != nullptr) {
    entry.error = error_from_json(*error);
  }
  if (json_read::bool_at(json, "report").value_or(false)) {
    auto report =
        load_report(RoundLayout::candidate_dir(dir, entry.candidate) / RoundLayout::k_report);
    if (!report) {
      return std::nullopt;
    }
    entry.document = std::move(report).value();
  }
  return entry;
}

/// The pending round in `dir` (a round directory named `name`), or nullopt.
std::optional<PendingRound> read_pending_round(const fs::path& dir,
                                               const RoundLayout::RoundDirName& name) {
  auto text = read_file(dir / RoundLayout::k_history_pending);
  if (!text) {
    return std::nullopt;
  }
  const Json note = Json::parse(*text, nullptr, false);
  const Json* entries = json_read::member(note, "entries");
  if (note.is_discarded() || entries == nullptr || !entries->is_array() ||
      json_read::index_at(note, "schema_version").value_or(0) != k_pending_version) {
    return std::nullopt;
  }
  const std::string kept_at = name.attempt == 0 ? std::string() : dir.filename().string();
  PendingRound pending{dir, {}};
  for (const Json& element : *entries) {
    std::optional<RoundEntry> entry = entry_from_json(element, dir, kept_at);
    if (!entry || entry->round != name.round) {
      return std::nullopt;
    }
    pending.entries.push_back(std::move(*entry));
  }
  return pending;
}

} // namespace

Result<void> write_pending_round(const fs::path& dir, std::span<const RoundEntry> entries) {
  Json note = Json::object();
  note["schema_version"] = k_pending_version;
  note["entries"] = Json::array();
  for (const RoundEntry& entry : entries) {
    note["entries"].push_back(entry_json(entry));
  }
  return write_json_atomic(dir / RoundLayout::k_history_pending, note);
}

namespace {

struct NotedDir {
  RoundLayout::RoundDirName name;
  fs::path dir;
};

/// The round directories of `out_dir` that hold a note, in the order of their commits.
std::vector<NotedDir> noted_dirs(const fs::path& out_dir) {
  std::vector<NotedDir> found;
  std::error_code ec;
  for (fs::directory_iterator it(out_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = RoundLayout::parse_round_dir_name(it->path().filename().string());
    std::error_code exists_ec;
    if (name && fs::exists(it->path() / RoundLayout::k_history_pending, exists_ec)) {
      found.push_back(NotedDir{*name, it->path()});
    }
  }
  std::sort(found.begin(), found.end(), [](const NotedDir& a, const NotedDir& b) {
    return std::pair(a.name.round, a.name.attempt) < std::pair(b.name.round, b.name.attempt);
  });
  return found;
}

} // namespace

std::vector<PendingRound> pending_rounds(const fs::path& out_dir) {
  std::vector<PendingRound> pending;
  for (const NotedDir& noted : noted_dirs(out_dir)) {
    if (std::optional<PendingRound> read = read_pending_round(noted.dir, noted.name)) {
      pending.push_back(std::move(*read));
    }
  }
  return pending;
}

std::size_t record_pending_rounds(HistoryStore& store, const fs::path& out_dir,
                                  const fs::path& except) {
  std::size_t added = 0;
  for (const NotedDir& noted : noted_dirs(out_dir)) {
    if (!except.empty() && noted.dir.filename() == except.filename()) {
      continue; // before reading it: the caller has its documents in memory
    }
    const std::optional<PendingRound> pending = read_pending_round(noted.dir, noted.name);
    if (!pending) {
      continue;
    }
    // A round that cannot be recorded now keeps its note: `kprof history` shows it, and the
    // next writer tries again.
    if (auto recorded = store.record_missing_rounds(pending->entries); recorded) {
      added += recorded->size();
      std::error_code ignored;
      fs::remove(noted.dir / RoundLayout::k_history_pending, ignored);
    }
  }
  return added;
}

Result<std::vector<HistoryRow>> history_rows(const HistoryStore* store, const fs::path& out_dir) {
  std::vector<HistoryRow> rows;
  if (store != nullptr) {
    auto recorded = store->rows();
    if (!recorded) {
      return std::move(recorded).error();
    }
    rows = std::move(recorded).value();
  }
  const std::size_t recorded_rows = rows.size();
  for (const PendingRound& pending : pending_rounds(out_dir)) {
    for (const RoundEntry& entry : pending.entries) {
      if (store != nullptr) {
        auto held = store->holds(entry);
        if (!held) {
          return std::move(held).error();
        }
        if (*held) {
          continue;
        }
      }
      if (auto row = unrecorded_row(entry); row) {
        rows.push_back(std::move(row).value());
      }
    }
  }
  if (rows.size() == recorded_rows) {
    return rows;
  }
  // By round and candidate (a plain round first); the recorded rows keep their order (attempt),
  // an unrecorded one, being the newest, comes after them.
  std::stable_sort(rows.begin(), rows.end(), [](const HistoryRow& a, const HistoryRow& b) {
    return std::pair(a.round, a.candidate.value_or(-1)) <
           std::pair(b.round, b.candidate.value_or(-1));
  });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].latest = i + 1 == rows.size() || rows[i + 1].round != rows[i].round ||
                     rows[i + 1].candidate != rows[i].candidate;
  }
  return rows;
}

} // namespace kprof

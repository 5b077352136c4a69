#include "profile/staged_round.hpp"

#include <cerrno>
#include <csignal>
#include <future>
#include <system_error>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/kernelagent.hpp"
#include "kprof/report.hpp"
#include "kprof/report_view.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

/// Removes the staging (and half-replaced) directories that a kprof killed mid-round left in
/// out_dir: those whose owner pid is no longer alive. A live owner's are left alone, whatever
/// round they belong to, and so is anything of another user's (in an out_dir shared like /tmp,
/// a name of theirs could lead the removal elsewhere); failures are ignored (the next run tries
/// again).
void remove_dead_leftovers(const fs::path& out_dir) {
  std::error_code ec;
  for (fs::directory_iterator it(out_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto owner = RoundLayout::staging_owner(it->path().filename().string());
    if (owner && ::kill(*owner, 0) != 0 && errno == ESRCH && is_own_directory(it->path())) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
}

/// KernelAgent's roundNNN_ncu_metrics.json of `report` at `path`, written as it is made.
Result<void> write_kernelagent_file(const fs::path& path, const ReportSource& report) {
  auto file = AtomicFile::create(path);
  if (!file) {
    return std::move(file).error();
  }
  write_kernelagent_round_json(report, [&file](std::string_view piece) { file->write(piece); });
  return file->commit();
}

} // namespace

Result<StagedRound> StagedRound::begin(RoundLayout layout, int round, bool batch) {
  if (auto created = kprof::create_directories(layout.out_dir()); !created) {
    return created.error();
  }
  remove_dead_leftovers(layout.out_dir());
  fs::path staging = layout.staging_dir(round, RoundLayout::staging_tag());
  if (auto created = kprof::create_directories(staging); !created) {
    return created.error();
  }
  return StagedRound(std::move(layout), round, batch, std::move(staging));
}

StagedRound::StagedRound(StagedRound&& other) noexcept
    : m_layout(std::move(other.m_layout)), m_round(other.m_round), m_batch(other.m_batch),
      m_staging(std::move(other.m_staging)), m_destination(std::move(other.m_destination)),
      m_in_place(other.m_in_place) {
  other.m_staging.clear();
}

StagedRound::~StagedRound() {
  if (!m_staging.empty()) {
    std::error_code ignored;
    fs::remove_all(m_staging, ignored);
  }
}

fs::path StagedRound::script() const {
  return m_staging / RoundLayout::k_harness_script;
}

fs::path StagedRound::session_dir(int gpu, int part) const {
  return RoundLayout::session_dir(m_staging, m_batch, gpu, part);
}

std::optional<int> StagedRound::candidate_key(int index) const {
  return m_batch ? std::optional<int>(index) : std::nullopt;
}

fs::path StagedRound::staged_candidate_dir(int index) const {
  return RoundLayout::candidate_dir(m_staging, candidate_key(index));
}

fs::path StagedRound::final_candidate_dir(int index) const {
  return RoundLayout::candidate_dir(m_destination, candidate_key(index));
}

namespace {

/// True when `round_dir` holds a report of a plain round or of some candidate of a batch round.
bool holds_a_report(const fs::path& round_dir) {
  std::error_code ec;
  if (fs::exists(round_dir / RoundLayout::k_report, ec)) {
    return true;
  }
  for (fs::directory_iterator it(round_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind("cand", 0) == 0 &&
        fs::exists(it->path() / RoundLayout::k_report, ec)) {
      return true;
    }
  }
  return false;
}

/// The kernel file named by the result in a plain round's directory (its report.json, else its
/// error.json), "" when there is none or it names none.
std::string kernel_file_of(const fs::path& round_dir) {
  for (const std::string_view name : {RoundLayout::k_report, RoundLayout::k_error}) {
    auto text = read_file(round_dir / name);
    if (!text) {
      continue;
    }
    const Json doc = Json::parse(*text, nullptr, false);
    if (const Json* metadata = json_read::member(doc, "metadata"); metadata != nullptr) {
      return json_read::text_at(*metadata, "kernel_file");
    }
  }
  return {};
}

} // namespace

fs::path StagedRound::settle(bool good, const fs::path& kernel) {
  const fs::path round_dir = m_layout.round_dir(m_round);
  m_in_place = good || !holds_a_report(round_dir);
  m_displaced.clear();
  const bool another_kernel = !m_batch && !kernel.empty() && [&] {
    const std::string there = kernel_file_of(round_dir);
    return !there.empty() && there != kernel.string();
  }();
  if (another_kernel) {
    const fs::path aside = m_layout.kernel_dir(m_round, m_layout.next_kernel(m_round));
    m_destination = m_in_place ? round_dir : aside;
    if (m_in_place) {
      m_displaced = aside;
    }
    return m_destination;
  }
  m_destination =
      m_in_place ? round_dir : m_layout.attempt_dir(m_round, m_layout.next_attempt(m_round));
  return m_destination;
}

Result<void> StagedRound::write_report(int index, const ReportSource& report) const {
  const fs::path dir = staged_candidate_dir(index);
  // The CSV is written by a thread of its own while the JSON is (the report is only read, and
  // its sources hold no caches): on a round of 20,000 launches the CSV's time hides behind the
  // JSON's (docs/performance.md).
  std::future<Result<void>> csv_written = std::async(std::launch::async, [&]() -> Result<void> {
    auto csv = AtomicFile::create(dir / RoundLayout::k_metrics_csv);
    if (!csv) {
      return std::move(csv).error();
    }
    write_report_csv(report, [&csv](std::string_view piece) { csv->write(piece); });
    return csv->commit();
  });
  Result<void> json_written = [&]() -> Result<void> {
    auto file = AtomicFile::create(dir / RoundLayout::k_report);
    if (!file) {
      return std::move(file).error();
    }
    report.write_json(RenderOptions{}, [&file](std::string_view piece) { file->write(piece); });
    return file->commit();
  }();
  Result<void> csv_result = csv_written.get();
  return json_written ? csv_result : json_written;
}

Result<void> StagedRound::write_error(int index, const Json& failure) const {
  return write_json_atomic(staged_candidate_dir(index) / RoundLayout::k_error, failure);
}

Result<void> StagedRound::write_batch(const Json& batch) const {
  return write_json_atomic(m_staging / RoundLayout::k_batch, batch);
}

std::vector<RoundEntry> StagedRound::history_entries(const std::vector<CandidateResult>& candidates,
                                                     const fs::path& final_dir) const {
  const std::string created_at = utc_timestamp_micros();
  std::vector<RoundEntry> entries;
  entries.reserve(candidates.size());
  for (const auto& candidate : candidates) {
    RoundEntry entry;
    entry.round = m_round;
    entry.candidate = candidate_key(candidate.index);
    entry.label = candidate.kernel.filename().string();
    entry.status = candidate.status;
    entry.error = candidate.error;
    entry.document = candidate.report;
    entry.report_source = candidate.streamed_report;
    entry.created_at = created_at; // set here, so that the pending note names these rows
    if (!m_in_place) {
      entry.kept_at = final_dir.filename().string();
    } else if (!m_displaced.empty()) {
      entry.displaced_to = m_displaced.filename().string();
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

Result<fs::path> StagedRound::commit(std::vector<CandidateResult>& candidates,
                                     const CommitSettings& settings) {
  KPROF_ASSERT(!m_staging.empty());
  const fs::path final_dir = m_destination;
  // The rows cannot be written in the step that moves the round into place: the note of them
  // goes in with the round, and goes once they are in kprof.db (kprof/history.hpp).
  std::vector<RoundEntry> entries;
  if (settings.record_history) {
    entries = history_entries(candidates, final_dir);
    if (auto noted = write_pending_round(m_staging, entries); !noted) {
      return noted.error();
    }
  }
  std::error_code ec;
  if (m_in_place && fs::exists(final_dir, ec)) {
    const fs::path old =
        !m_displaced.empty()
            ? m_displaced
            : m_layout.out_dir() / fmt::format(".{}.old-{}", RoundLayout::round_name(m_round),
                                               RoundLayout::staging_tag());
    fs::rename(final_dir, old, ec);
    if (ec) {
      return make_error(ErrorCategory::io,
                        fmt::format("cannot replace {}: {}", final_dir.string(), ec.message()));
    }
    if (m_displaced.empty()) {
      fs::remove_all(old, ec);
    }
  }
  fs::rename(m_staging, final_dir, ec);
  if (ec) {
    return make_error(ErrorCategory::io, fmt::format("cannot move round into {}: {}",
                                                     final_dir.string(), ec.message()));
  }
  m_staging.clear();
  for (auto& candidate : candidates) {
    candidate.dir = final_candidate_dir(candidate.index);
  }

  // KernelAgent-layout files next to the round directory, and in KernelAgent's logs_dir, written
  // by a thread of their own while the history records the round (both only read the reports:
  // on a round of 20,000 launches the files' time hides behind the history's).
  std::future<Result<void>> agent_files = std::async(std::launch::async, [&]() -> Result<void> {
    for (const auto& candidate : candidates) {
      if ((!candidate.report && !candidate.streamed_report) || !m_in_place) {
        continue;
      }
      std::optional<HeldReport> held;
      if (candidate.report) {
        held.emplace(*candidate.report);
      }
      const ReportSource& report = held ? *held : *candidate.streamed_report;
      const std::optional<int> key = candidate_key(candidate.index);
      const bool logs_only = settings.logs_dir && settings.kernelagent_logs_only;
      if (!logs_only) {
        if (auto w = write_kernelagent_file(m_layout.kernelagent_file(m_round, key), report); !w) {
          return w;
        }
      }
      if (settings.logs_dir) {
        if (auto made = kprof::create_directories(*settings.logs_dir); !made) {
          return made;
        }
        const fs::path copy = *settings.logs_dir / RoundLayout::kernelagent_file_name(m_round, key);
        if (auto w = write_kernelagent_file(copy, report); !w) {
          return w;
        }
      }
    }
    return {};
  });
  Result<void> recorded = [&]() -> Result<void> {
    if (!settings.record_history) {
      return {};
    }
    auto store = HistoryStore::open(m_layout.history_db());
    if (!store) {
      return store.error().with_context("while recording the round in the history");
    }
    // Rounds of writers that were killed after their rename first, in the order they were
    // committed, so that attempt numbers keep counting; then this one, from memory.
    record_pending_rounds(*store, m_layout.out_dir(), final_dir);
    if (auto done = store->record_missing_rounds(entries); !done) {
      return done.error().with_context("while recording the round in the history");
    }
    std::error_code ignored; // a note left behind names rows that are in: the next writer drops it
    fs::remove(final_dir / RoundLayout::k_history_pending, ignored);
    return {};
  }();
  if (auto written = agent_files.get(); !written) {
    return written.error();
  }
  if (!recorded) {
    return recorded.error();
  }
  return final_dir;
}

} // namespace kprof

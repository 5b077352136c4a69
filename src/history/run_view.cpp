// load_run_view() / write_run_view(): the facts of a run directory's page (`kprof view DIR`),
// read from its history through HistoryStore, and the page written next to it.
#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/run_view.hpp"

namespace kprof {
namespace fs = std::filesystem;

Result<Json> load_run_view(const fs::path& dir, const ConvergenceOptions& convergence) {
  const fs::path db = dir / "kprof.db";
  std::error_code ec;
  if (!fs::exists(db, ec)) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("no history in {} (expected {})", dir.string(), db.string()));
  }
  auto store = HistoryStore::open_read_only(db);
  if (!store) {
    return store.error();
  }
  auto rows = store->rows();
  if (!rows) {
    return rows.error();
  }
  auto verdict = converged(*rows, convergence);
  if (!verdict) {
    return verdict.error();
  }

  Json run = Json::object();
  run["directory"] = dir.string();
  Json listed = Json::parse(render_history(*rows, Format::json))["rows"];
  const HistoryRow* first_ok = nullptr;
  const HistoryRow* best = nullptr;
  std::optional<Json> first_doc;
  std::optional<Json> best_doc;
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const HistoryRow& row = (*rows)[i];
    Json& entry = listed[i];
    entry["document"] = nullptr;
    if (row.status == CandidateStatus::failed) {
      continue;
    }
    // A row without a document (or one that no longer validates) shows as such; it does not
    // stop the page.
    auto doc = store->document(row.ref());
    if (!doc) {
      continue;
    }
    entry["document"] = *doc;
    if (row.status == CandidateStatus::ok && row.total_duration_ns && first_ok == nullptr) {
      first_ok = &row;
      first_doc = *doc;
    }
    if (row.best) {
      best = &row;
      best_doc = *doc;
    }
  }
  run["rows"] = std::move(listed);
  run["convergence"] = to_json(*verdict);
  run["diff"] = nullptr;
  run["diff_error"] = nullptr;
  if (first_ok == nullptr || best == nullptr) {
    run["diff_error"] = "No diff: no successful round with a duration.";
  } else if (first_ok == best) {
    run["diff_error"] = fmt::format("No diff: the best row is the first successful one ({}).",
                                    to_string(best->ref()));
  } else {
    DiffOptions options;
    options.label_a = to_string(first_ok->ref());
    options.label_b = to_string(best->ref());
    auto diff = diff_reports(*first_doc, *best_doc, options);
    if (diff) {
      run["diff"] = std::move(diff).value();
    } else {
      run["diff_error"] = "No diff: " + diff.error().message;
    }
  }
  return run;
}

Result<fs::path> write_run_view(const fs::path& dir, const ConvergenceOptions& convergence) {
  auto run = load_run_view(dir, convergence);
  if (!run) {
    return run.error();
  }
  const fs::path page = dir / "index.html";
  if (auto written = write_file_atomic(page, render_run_html(*run)); !written) {
    return written.error();
  }
  return page;
}

} // namespace kprof

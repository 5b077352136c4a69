// kprof: the page of a run directory (`kprof view DIR`, docs/html.md): its facts read from the
// history and drawn by the report module's render_run_html() (kprof/html.hpp). This header
// belongs to the history module, which may use the report module; html.hpp names nothing of it.
#pragma once

#include <filesystem>

#include "kprof/error.hpp"
#include "kprof/history.hpp"
#include "kprof/html.hpp"

namespace kprof {

/// Reads DIR/kprof.db through HistoryStore (rows(), document()), judges convergence with
/// `convergence` and diffs the first ok row against the best one: the JSON render_run_html()
/// draws. input_not_found when DIR has no kprof.db; database or usage errors as
/// HistoryStore::open, rows() and converged() give them.
Result<Json> load_run_view(const std::filesystem::path& dir,
                           const ConvergenceOptions& convergence = {});

/// load_run_view(dir) rendered by render_run_html() and written atomically to DIR/index.html.
/// Returns the path written; errors as load_run_view(), io when the file cannot be written.
Result<std::filesystem::path> write_run_view(const std::filesystem::path& dir,
                                             const ConvergenceOptions& convergence = {});

} // namespace kprof

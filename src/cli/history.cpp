// kprof history DIR: the rounds recorded in DIR/kprof.db, or the convergence verdict.
#include <algorithm>
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "kprof/history.hpp"

namespace kprof::cli {
namespace fs = std::filesystem;
namespace {

class HistoryCommand final : public Command {
public:
  explicit HistoryCommand(CLI::App& parent)
      : Command(parent.add_subcommand("history", "Rounds recorded in DIR/kprof.db, best marked")) {
    CLI::App* app = this->app();
    app->add_option("DIR", m_dir, "Output directory of profile/batch")->required();
    app->add_option("--format", m_format, "table|json|csv");
    app->add_flag("--converged", m_converged, "Say whether to stop optimizing (exit 0 yes, 1 no)");
    add_convergence_options(app, m_convergence);
  }

  Result<Outcome> run() override {
    // Read-only: `kprof history` never creates, migrates or writes kprof.db (a shared run
    // directory may belong to another user, or be on a read-only disk).
    const fs::path db = fs::path(m_dir) / "kprof.db";
    std::optional<HistoryStore> store;
    if (fs::exists(db)) {
      auto opened = HistoryStore::open_read_only(db);
      if (!opened) {
        return std::move(opened).error();
      }
      store.emplace(std::move(opened).value());
    }
    auto rows = history_rows(store ? &*store : nullptr, m_dir);
    if (!rows) {
      return std::move(rows).error();
    }
    if (!store && rows->empty()) {
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("no history in {} (expected {})", m_dir, db.string()));
    }
    auto format = choose_format(m_format, Format::json);
    if (!format) {
      return std::move(format).error();
    }
    Outcome outcome;
    if (!m_converged) {
      outcome.text = render_history(*rows, *format);
      return outcome;
    }
    // The verdict is that of the recorded rows: what kprof.db holds.
    std::vector<HistoryRow> recorded;
    std::copy_if(rows->begin(), rows->end(), std::back_inserter(recorded),
                 [](const HistoryRow& row) { return row.recorded; });
    auto verdict = converged(recorded, m_convergence);
    if (!verdict) {
      return std::move(verdict).error();
    }
    outcome.text = render(*format, convergence_document(*verdict), render_options());
    outcome.exit_code = verdict->converged ? 0 : k_exit_not_converged;
    return outcome;
  }

private:
  std::string m_dir;
  std::string m_format;
  bool m_converged = false;
  ConvergenceOptions m_convergence;
};

} // namespace

std::unique_ptr<Command> add_history_command(CLI::App& app) {
  return std::make_unique<HistoryCommand>(app);
}

} // namespace kprof::cli

// `kprof view DIR`: the self-contained HTML page of a run directory (docs/html.md).
#include <fmt/format.h>

#include "cli/command.hpp"
#include "kprof/history.hpp"
#include "kprof/run_view.hpp"

namespace kprof::cli {

namespace {

class ViewCommand final : public Command {
public:
  explicit ViewCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "view",
            "Write DIR/index.html: every round and candidate of a run directory as one page")) {
    CLI::App* app = this->app();
    app->add_option("DIR", m_dir, "Output directory of profile/batch (holds kprof.db)")->required();
    add_convergence_options(app, m_convergence);
  }

  Result<Outcome> run() override {
    auto page = write_run_view(m_dir, m_convergence);
    if (!page) {
      return std::move(page).error();
    }
    Outcome outcome;
    outcome.notes.push_back(fmt::format("wrote {}", page->string()));
    return outcome;
  }

private:
  std::string m_dir;
  ConvergenceOptions m_convergence;
};

} // namespace

std::unique_ptr<Command> add_view_command(CLI::App& app) {
  return std::make_unique<ViewCommand>(app);
}

} // namespace kprof::cli

// `kprof view DIR`: the self-contained HTML page of a run directory (docs/html.md).
#include "cli/view.hpp"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "kprof/html.hpp"

namespace kprof {

CLI::App* add_view_command(CLI::App& app, ViewWords& words) {
  auto* view = app.add_subcommand(
      "view", "Write DIR/index.html: every round and candidate of a run directory as one page");
  view->add_option("DIR", words.dir, "Output directory of profile/batch (holds kprof.db)")
      ->required();
  view->add_option("--sol-threshold", words.sol_threshold_pct, "Converged at this SOL %")
      ->default_val(95.0);
  view->add_option("--window", words.window, "Rounds without improvement that mean converged")
      ->default_val(5);
  view->add_option("--min-improvement", words.min_improvement, "Relative improvement that counts")
      ->default_val(0.01);
  return view;
}

int run_view(const ViewWords& words) {
  ConvergenceOptions convergence;
  convergence.sol_threshold_pct = words.sol_threshold_pct;
  convergence.window = words.window;
  convergence.min_improvement = words.min_improvement;
  auto page = write_run_view(words.dir, convergence);
  if (!page) {
    std::fprintf(stderr, "kprof: error: %s\n", page.error().message.c_str());
    return exit_code(page.error().category);
  }
  std::fprintf(stderr, "kprof: wrote %s\n", page->string().c_str());
  return 0;
}

} // namespace kprof

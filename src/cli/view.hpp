// kprof CLI, internal: `kprof view DIR`, the HTML page of a run directory.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace kprof {

/// The words of `kprof view`, filled by CLI11.
struct ViewWords {
  std::string dir;
  double sol_threshold_pct = 95;
  int window = 5;
  double min_improvement = 0.01;
};

/// Adds the `view` subcommand to `app`; its words land in `words`.
CLI::App* add_view_command(CLI::App& app, ViewWords& words);

/// Writes DIR/index.html (write_run_view) and says where on stderr. Returns the exit code: 0, or
/// the category's code after printing `kprof: error: ...`.
int run_view(const ViewWords& words);

} // namespace kprof

// The pieces every subcommand of the kprof CLI shares (internal to src/cli).
//
// A subcommand registers its words on a CLI11 App and, when chosen, returns an Outcome; one
// handler (cli.cpp) prints it and maps errors to exit codes. Subcommands do not print, and do not
// format beyond choosing a sink (text.hpp holds the artefacts that have no sink yet).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "kprof/error.hpp"
#include "kprof/history.hpp"
#include "kprof/json_file.hpp"
#include "kprof/report.hpp"

namespace kprof::cli {

/// What a subcommand produced.
struct Outcome {
  std::string text; ///< printed on stdout, or written to `out_file`
  /// When set, produces the text piece by piece instead of `text` (a big report written without
  /// holding it whole); called once with the destination.
  std::function<void(const TextOut&)> stream;
  std::filesystem::path out_file; ///< empty: stdout; else written atomically
  std::vector<std::string> notes; ///< lines for stderr, printed as "kprof: LINE" after the text
  std::optional<Error> error;     ///< a failure reported after the text (a partial round)
  int exit_code = 0;              ///< the code when `error` is empty (history --converged: 1)
};

/// One subcommand: its words (bound when it is added) and the call they make.
class Command {
public:
  explicit Command(CLI::App* app) : m_app(app) {}
  virtual ~Command() = default;
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;
  Command(Command&&) = delete;
  Command& operator=(Command&&) = delete;

  /// Runs the command with the parsed words. Never prints.
  virtual Result<Outcome> run() = 0;

  [[nodiscard]] CLI::App* app() const { return m_app; }

private:
  CLI::App* m_app;
};

// One function per subcommand file: adds the subcommand to `app` and returns it bound to its words.
std::unique_ptr<Command> add_report_command(CLI::App& app);
std::unique_ptr<Command> add_metrics_command(CLI::App& app);
std::unique_ptr<Command> add_profile_command(CLI::App& app);
std::unique_ptr<Command> add_batch_command(CLI::App& app);
std::unique_ptr<Command> add_model_command(CLI::App& app);
std::unique_ptr<Command> add_serve_command(CLI::App& app);
std::unique_ptr<Command> add_harness_command(CLI::App& app);
std::unique_ptr<Command> add_history_command(CLI::App& app);
std::unique_ptr<Command> add_diff_command(CLI::App& app);
std::unique_ptr<Command> add_doctor_command(CLI::App& app);
std::unique_ptr<Command> add_view_command(CLI::App& app);
std::unique_ptr<Command> add_mcp_command(CLI::App& app);

// ---- shared by the subcommands (cli.cpp) ------------------------------------------------------

bool stdout_is_terminal();
bool stderr_is_terminal();

/// Writes `text` to stderr after `prefix`, made printable (kprof/strings.hpp: control characters
/// and bytes that are not UTF-8 shown as `\xNN`); each further line of it is indented by two
/// spaces. The one way kprof writes messages, notes and progress to stderr.
void print_message(std::string_view prefix, std::string_view text);

/// The format a command prints: --format when given, else table on a terminal, else `fallback`.
Result<Format> choose_format(const std::string& word, Format fallback);

/// Render options for stdout (colour on a terminal unless NO_COLOR; the table as wide as
/// terminal_columns()).
RenderOptions render_options();

/// The columns of the user's terminal: COLUMNS when it is a number of at least 40, else the width
/// of the terminal that stdout is, else RenderOptions' default (100).
std::size_t terminal_columns();

/// --sol-threshold, --window and --min-improvement (history --converged, view), bound to
/// `options` with ConvergenceOptions' defaults.
void add_convergence_options(CLI::App* app, ConvergenceOptions& options);

/// The options of the shared table (include/kprof/options.hpp) for one CLI subcommand: adds
/// those of `scope` to `app` and gives back what was given as a name -> value mapping.
class TableOptions {
public:
  void add(CLI::App* app, unsigned scope);
  /// The options given on the command line (absent ones are left to their defaults).
  [[nodiscard]] Json values() const;

private:
  struct Bound {
    std::string name;
    CLI::Option* option = nullptr;
    bool negates = false;
  };
  std::vector<Bound> m_bound;
  // Storage CLI11 writes into; node-based so the addresses stay put.
  std::map<std::string, std::string> m_text;
  std::map<std::string, std::vector<std::string>> m_lists;
  std::map<std::string, bool> m_flags;
};

} // namespace kprof::cli

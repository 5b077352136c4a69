// The kprof command line: builds the CLI11 app from the subcommands (one file each), runs the
// chosen one and is the one handler that prints its Outcome and maps errors to exit codes.
#include "kprof/cli.hpp"

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string_view>
#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "kprof/files.hpp"
#include "kprof/options.hpp"
#include "kprof/process.hpp"
#include "kprof/strings.hpp"
#include "kprof/version.hpp"

namespace kprof {
namespace cli {

bool stdout_is_terminal() {
  return ::isatty(STDOUT_FILENO) == 1;
}
bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

Result<Format> choose_format(const std::string& word, Format fallback) {
  if (!word.empty()) {
    return parse_format(word);
  }
  return stdout_is_terminal() ? Format::table : fallback;
}

void print_message(std::string_view prefix, std::string_view text) {
  // One escaping for everything kprof says on stderr (strings.hpp): a message or its detail
  // quotes file names, ncu's log, the profiled program's traceback.
  const std::string shown = printable(text, Multiline::yes);
  std::string out;
  out.reserve(shown.size() + prefix.size() + 8);
  bool first = true;
  for (const std::string_view line : split_lines(shown)) {
    out.append(first ? prefix : std::string_view("  ")).append(line).append("\n");
    first = false;
  }
  if (first) {
    out.append(prefix).append("\n");
  }
  std::fwrite(out.data(), 1, out.size(), stderr);
}

std::size_t terminal_columns() {
  constexpr std::size_t k_narrowest = 40; // below this a COLUMNS is a mistake, not a terminal
  if (const std::optional<std::string> columns = env_var("COLUMNS")) {
    std::size_t value = 0;
    const char* end = columns->data() + columns->size();
    const auto [ptr, ec] = std::from_chars(columns->data(), end, value);
    if (ec == std::errc() && ptr == end && value >= k_narrowest) {
      return value;
    }
  }
  winsize size{};
  if (stdout_is_terminal() && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col >= k_narrowest) {
    return size.ws_col;
  }
  return RenderOptions{}.width;
}

RenderOptions render_options() {
  RenderOptions options;
  options.color = stdout_is_terminal() && !env_var("NO_COLOR").has_value();
  options.width = terminal_columns();
  return options;
}

void add_convergence_options(CLI::App* app, ConvergenceOptions& options) {
  const ConvergenceOptions defaults;
  app->add_option("--sol-threshold", options.sol_threshold_pct, "Converged at this SOL %")
      ->default_val(defaults.sol_threshold_pct);
  app->add_option("--window", options.window, "Rounds without improvement that mean converged")
      ->default_val(defaults.window);
  app->add_option("--min-improvement", options.min_improvement, "Relative improvement that counts")
      ->default_val(defaults.min_improvement);
}

void TableOptions::add(CLI::App* app, unsigned scope) {
  for (const OptionSpec& spec : option_specs()) {
    if (spec.cli.empty() || (spec.scopes & scope) == 0U) {
      continue;
    }
    const std::string name(spec.name);
    std::string help(spec.help);
    if (spec.kind == OptionKind::word) {
      help += fmt::format(": {}", [&] {
        std::string words;
        for (const std::string_view word : spec.words) {
          words += fmt::format("{}{}", words.empty() ? "" : "|", word);
        }
        return words;
      }());
    } else if (spec.kind == OptionKind::integer) {
      help += fmt::format(" ({} to {})", spec.min, spec.max);
    }
    CLI::Option* option = nullptr;
    if (spec.kind == OptionKind::flag) {
      option = app->add_flag(std::string(spec.cli), m_flags[name], help);
    } else if (spec.kind == OptionKind::names) {
      option = app->add_option(std::string(spec.cli), m_lists[name], help);
    } else {
      option = app->add_option(std::string(spec.cli), m_text[name], help);
      option->type_name(spec.kind == OptionKind::integer ? "N"
                        : spec.kind == OptionKind::path  ? "PATH"
                                                         : "TEXT");
      if (!spec.default_text.empty()) {
        option->default_str(std::string(spec.default_text));
      }
    }
    m_bound.push_back({name, option, spec.cli_negates});
  }
}

Json TableOptions::values() const {
  Json values = Json::object();
  for (const Bound& bound : m_bound) {
    if (bound.option->count() == 0) {
      continue;
    }
    if (auto flag = m_flags.find(bound.name); flag != m_flags.end()) {
      values[bound.name] = !bound.negates;
    } else if (auto list = m_lists.find(bound.name); list != m_lists.end()) {
      values[bound.name] = list->second;
    } else {
      values[bound.name] = m_text.at(bound.name);
    }
  }
  return values;
}

namespace {

/// Prints `kprof: error: ...` (and the detail, indented) and returns the category's exit code.
int fail(const Error& error) {
  print_message("kprof: error: ", error.message);
  std::string_view detail = error.detail;
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == '\r')) {
    detail.remove_suffix(1);
  }
  if (!detail.empty()) {
    print_message("  ", detail);
  }
  return exit_code(error.category);
}

/// The one handler: prints what a subcommand produced and gives the exit code.
int finish(Result<Outcome> result) {
  if (!result) {
    return fail(result.error());
  }
  const Outcome& outcome = *result;
  if (!outcome.out_file.empty()) {
    Result<AtomicFile> file = AtomicFile::create(outcome.out_file);
    if (!file) {
      return fail(file.error());
    }
    if (outcome.stream) {
      outcome.stream([&file](std::string_view piece) { file->write(piece); });
    } else {
      file->write(outcome.text);
    }
    if (auto written = file->commit(); !written) {
      return fail(written.error());
    }
  } else {
    const auto print = [](std::string_view piece) {
      std::fwrite(piece.data(), 1, piece.size(), stdout);
    };
    if (outcome.stream) {
      outcome.stream(print);
    } else {
      print(outcome.text);
    }
    std::fflush(stdout);
  }
  for (const std::string& note : outcome.notes) {
    print_message("kprof: ", note);
  }
  if (outcome.error) {
    return fail(*outcome.error);
  }
  return outcome.exit_code;
}

std::string joined_names(const std::vector<std::unique_ptr<Command>>& commands) {
  std::string names;
  for (const auto& command : commands) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", command->app()->get_name());
  }
  return names;
}

/// The long option words `app` accepts ("--format, --out, ...").
std::string option_words(const CLI::App* app) {
  std::string words;
  for (const CLI::Option* option : app->get_options()) {
    for (const std::string& name : option->get_lnames()) {
      words += fmt::format("{}--{}", words.empty() ? "" : ", ", name);
    }
  }
  return words;
}

/// A word a command did not take, and whether it came after the `--` that ends the options.
struct ExtraWord {
  std::string word;
  bool after_options_end = false;
};

/// The first word `command` did not take, if any. CLI11 keeps the `--` that ends the options (so
/// that a file named `-x.py` can follow it) among them; it is no extra word, but the words after
/// it are no options.
std::optional<ExtraWord> first_extra_word(const CLI::App* command) {
  const std::vector<std::string> words = command->remaining();
  const bool marked = command->remaining_size() < words.size();
  bool after_mark = false;
  for (const std::string& word : words) {
    if (marked && !after_mark && word == "--") {
      after_mark = true;
      continue;
    }
    return ExtraWord{word, after_mark};
  }
  return std::nullopt;
}

/// A usage error for a word `command` did not expect: an option it does not know (with the
/// valid ones, and how to name a file that looks like an option), an option after `--`, or an
/// argument too many.
Error unexpected_word(const CLI::App* command, const ExtraWord& extra) {
  const std::string path = fmt::format("kprof {}", command->get_name());
  const std::string& word = extra.word;
  const bool dashed = word.size() > 1 && word.front() == '-';
  if (dashed && extra.after_options_end &&
      command->get_option_no_throw(word.substr(0, word.find('='))) != nullptr) {
    return make_error(ErrorCategory::usage,
                      fmt::format("'{}' comes after '--', which ends the options of {}: put {} "
                                  "before '--' (every word after it is a file)",
                                  word, path, word.substr(0, word.find('='))));
  }
  if (dashed && !extra.after_options_end) {
    std::error_code ec;
    const bool names_a_file = std::filesystem::exists(word, ec);
    return make_error(
        ErrorCategory::usage,
        fmt::format("unknown option '{}' for {} (valid: {}){}", word, path, option_words(command),
                    names_a_file ? fmt::format("; to name the file {}, write ./{} or put it after "
                                               "'--' ({} [options] -- {} ...)",
                                               word, word, path, word)
                                 : std::string()));
  }
  return make_error(ErrorCategory::usage,
                    fmt::format("unexpected argument '{}' for {}{} (see {} --help)", word, path,
                                extra.after_options_end ? " after '--'" : "", path));
}

/// `word` as an extra word of `command` when the command was parsed and `word` comes after the
/// command's name in argv (CLI11 hands the words after `--` that a command has no argument for to
/// the top level); nullopt otherwise (a word before the command is the top level's).
std::optional<ExtraWord> passed_up_word(const CLI::App* command, int argc, char** argv,
                                        const std::string& word) {
  if (!command->parsed()) {
    return std::nullopt;
  }
  const std::vector<std::string_view> words(argv + 1, argv + argc);
  const auto name = std::find(words.begin(), words.end(), command->get_name());
  if (name == words.end()) {
    return std::nullopt;
  }
  if (const auto mark = std::find(name, words.end(), "--");
      std::find(mark, words.end(), word) != words.end()) {
    return ExtraWord{word, true};
  }
  if (std::find(name, words.end(), word) != words.end()) {
    return ExtraWord{word, false};
  }
  return std::nullopt;
}

extern "C" void on_interrupt(int /*signal*/) {
  request_cancellation();
}

/// Ctrl-C or SIGTERM stops the running ncu session's whole process group (see run_process) and
/// makes kprof exit with 130 once it has cleaned up, instead of dying with children left behind.
void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

} // namespace
} // namespace cli

int run_cli(int argc, char** argv) {
  const int code = run_cli_command(argc, argv);
  if (cancellation_requested()) {
    std::fprintf(stderr, "kprof: interrupted; the profiled program was stopped\n");
    return k_exit_interrupted;
  }
  return code;
}

int run_cli_command(int argc, char** argv) {
  using namespace kprof::cli;
  install_interrupt_handlers();
  CLI::App app{"kprof: Nsight Compute profiles of Triton and CUDA kernels, as facts an optimizer "
               "can act on"};
  app.name("kprof");
  app.set_version_flag(
      "--version", fmt::format("kprof {}{}", k_version,
                               k_git_describe.empty() ? "" : fmt::format(" ({})", k_git_describe)));
  app.require_subcommand(0, 1);
  app.footer(exit_code_help());

  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(add_report_command(app));
  commands.push_back(add_metrics_command(app));
  commands.push_back(add_profile_command(app));
  commands.push_back(add_batch_command(app));
  commands.push_back(add_model_command(app));
  commands.push_back(add_serve_command(app));
  commands.push_back(add_harness_command(app));
  commands.push_back(add_history_command(app));
  commands.push_back(add_diff_command(app));
  commands.push_back(add_doctor_command(app));
  commands.push_back(add_view_command(app));
  commands.push_back(add_mcp_command(app));
  for (const auto& command : commands) {
    command->app()->allow_extras(); // unknown words are named below, with the valid ones
  }

  // The first word names the subcommand; say which ones there are when it does not.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    bool known = false;
    for (const auto& command : commands) {
      known = known || command->app()->get_name() == word;
    }
    if (!known) {
      return fail(make_error(ErrorCategory::usage, fmt::format("unknown command '{}' (valid: {})",
                                                               word, joined_names(commands))));
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // Only the top level refuses extras: an option before any command, or the words a command
    // with all its arguments passed up (those after its `--`).
    std::vector<std::string> extras = app.remaining();
    extras.erase(std::remove(extras.begin(), extras.end(), "--"), extras.end());
    const std::string word = extras.empty() ? std::string(e.what()) : extras.front();
    for (const auto& command : commands) {
      if (const auto extra = passed_up_word(command->app(), argc, argv, word);
          !extras.empty() && extra) {
        return fail(unexpected_word(command->app(), *extra));
      }
    }
    return fail(make_error(ErrorCategory::usage,
                           fmt::format("unknown option '{}' (valid: --help, --version, or a "
                                       "command: {})",
                                       word, joined_names(commands))));
  } catch (const CLI::ParseError& e) {
    // A word the command did not take (an unknown option, a file named like one) is what went
    // wrong, not what CLI11 concluded from its absence ("PROBLEM is required").
    for (const auto& command : commands) {
      if (!command->app()->parsed()) {
        continue;
      }
      if (const auto extra = first_extra_word(command->app());
          extra && (extra->after_options_end || extra->word.starts_with('-'))) {
        return fail(unexpected_word(command->app(), *extra));
      }
    }
    print_message("kprof: error: ", e.what()); // it may quote a word of the command line
    print_message("", "Run with --help for more information.");
    return exit_code(ErrorCategory::usage);
  }

  for (const auto& command : commands) {
    if (!command->app()->parsed()) {
      continue;
    }
    if (const auto extra = first_extra_word(command->app())) {
      return fail(unexpected_word(command->app(), *extra));
    }
    try {
      return finish(command->run());
    } catch (const std::exception& e) {
      return fail(error_from_exception(e));
    }
  }
  return fail(make_error(
      ErrorCategory::usage,
      fmt::format("a command is required (valid: {}); see kprof --help", joined_names(commands))));
}

} // namespace kprof

// kprof mcp: kprof's tools for LLM agents over the Model Context Protocol, on stdio
// (src/mcp, docs/mcp.md).
#include <cstdio>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "kprof/mcp.hpp"
#include "kprof/options.hpp"

namespace kprof::cli {
namespace {

class McpCommand final : public Command {
public:
  explicit McpCommand(CLI::App& parent)
      : Command(parent.add_subcommand("mcp", "Serve kprof's tools to LLM agents over the Model "
                                             "Context Protocol on stdio (docs/mcp.md)")) {
    CLI::App* app = this->app();
    // What every profile and batch call of the session uses; the words and help of the table.
    for (const std::string_view key : {"ncu", "python"}) {
      const OptionSpec* spec = find_option_spec(key);
      app->add_option(std::string(spec->cli), m_paths[std::string(key)], std::string(spec->help))
          ->type_name("PATH");
    }
    const OptionSpec* sudo = find_option_spec("use_sudo");
    app->add_flag(std::string(sudo->cli), m_sudo, std::string(sudo->help));
    app->add_option("--token-budget", m_token_budget,
                    "Tokens per candidate of a tool's answer when the call does not set "
                    "token_budget")
        ->type_name("N")
        ->default_val(k_mcp_default_token_budget)
        ->check(CLI::Range(100, 1000000));
    app->add_option("--read-slots", m_read_slots,
                    "Calls that read captures or reports (report, diff, history, hot_lines, "
                    "diagnosis) running at once; the others wait. 0: one per core and per 2 GiB "
                    "of memory, the smaller")
        ->type_name("N")
        ->default_val(0)
        ->check(CLI::Range(0, 16));
    app->add_flag("--no-standby", m_no_standby,
                  "Keep no standby after a profile (docs/standby.md): nothing waits between "
                  "calls, each profile starts cold");
  }

  Result<Outcome> run() override {
    Json values = Json::object();
    for (const auto& [key, path] : m_paths) {
      if (!path.empty()) {
        values[key] = path;
      }
    }
    if (m_sudo) {
      values["use_sudo"] = true;
    }
    OptionContext context;
    context.cli_names = true;
    if (auto parsed = parse_run_options(values, context); !parsed) {
      return std::move(parsed).error();
    }
    McpSettings settings;
    settings.run_options = std::move(values);
    settings.standby = !m_no_standby;
    settings.token_budget = m_token_budget;
    settings.read_slots = m_read_slots;
    settings.log = [](const std::string& line) {
      std::fprintf(stderr, "kprof mcp: %s\n", line.c_str());
    };
    if (auto served = serve_mcp_stdio(settings); !served) {
      return served.error();
    }
    return Outcome{};
  }

private:
  std::map<std::string, std::string> m_paths;
  bool m_sudo = false;
  std::size_t m_token_budget = k_mcp_default_token_budget;
  std::size_t m_read_slots = 0;
  bool m_no_standby = false;
};

} // namespace

std::unique_ptr<Command> add_mcp_command(CLI::App& app) {
  return std::make_unique<McpCommand>(app);
}

} // namespace kprof::cli

// kprof doctor: check that profiling can work on this machine.
#include "cli/command.hpp"
#include "cli/text.hpp"
#include "kprof/ncu.hpp"
#include "kprof/profiler.hpp"

namespace kprof::cli {
namespace fs = std::filesystem;
namespace {

class DoctorCommand final : public Command {
public:
  explicit DoctorCommand(CLI::App& parent)
      : Command(parent.add_subcommand("doctor", "Check that profiling can work on this machine")) {
    CLI::App* app = this->app();
    app->add_option("--ncu", m_ncu, "ncu executable");
    app->add_option("--python", m_python, "python executable");
    app->add_option("--clock-control", m_clock, "base|none")->default_val("none");
  }

  Result<Outcome> run() override {
    auto clock = parse_clock_control(m_clock);
    if (!clock) {
      return std::move(clock).error();
    }
    const auto checks =
        run_doctor(m_ncu.empty() ? std::nullopt : std::optional<fs::path>(m_ncu),
                   m_python.empty() ? std::nullopt : std::optional<fs::path>(m_python), *clock);
    Outcome outcome;
    std::vector<DoctorLine> lines;
    lines.reserve(checks.size());
    for (const auto& check : checks) {
      lines.push_back(DoctorLine{check.name, check.ok, check.detail, check.error});
    }
    outcome.text = render(Format::table, doctor_document(lines));
    // The first failure gives the exit code; its message is in the table already, so it is not
    // printed again as "kprof: error: ...".
    for (const auto& check : checks) {
      if (!check.ok && check.error) {
        outcome.exit_code = exit_code(check.error->category);
        break;
      }
    }
    return outcome;
  }

private:
  std::string m_ncu;
  std::string m_python;
  std::string m_clock = "none";
};

} // namespace

std::unique_ptr<Command> add_doctor_command(CLI::App& app) {
  return std::make_unique<DoctorCommand>(app);
}

} // namespace kprof::cli

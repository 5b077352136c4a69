// kprof harness KERNEL PROBLEM: write the harness kprof runs under ncu, for inspection.
#include "kprof/harness.hpp"
#include "cli/command.hpp"
#include "cli/text.hpp"
#include "kprof/options.hpp"

namespace kprof::cli {
namespace fs = std::filesystem;
namespace {

class HarnessCommand final : public Command {
public:
  explicit HarnessCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "harness", "Write the Python harness kprof runs under ncu, for inspection")) {
    CLI::App* app = this->app();
    app->add_option("KERNEL", m_kernel, "kernel.py")->required();
    app->add_option("PROBLEM", m_problem, "problem.py")->required();
    app->add_option("-o,--out", m_out,
                    "Script path (its plan and the package kprof_harness/ go next to it)")
        ->default_val("kprof_harness.py");
    m_words.add(app, k_scope_harness);
  }

  Result<Outcome> run() override {
    OptionContext context;
    context.cli_names = true;
    auto request = parse_run_options(m_words.values(), context);
    if (!request) {
      return std::move(request).error();
    }
    const ProfileOptions& options = request->options;
    HarnessPlan plan;
    std::error_code ec;
    plan.problem = fs::absolute(m_problem, ec);
    plan.candidates.push_back({fs::absolute(m_kernel, ec), candidate_range(0)});
    plan.warmup = options.warmup;
    plan.seed = options.seed;
    plan.inputs = options.inputs;
    plan.cast = options.cast;
    const fs::path script = m_out;
    fs::path plan_path = script;
    plan_path.replace_extension(".plan.json");
    fs::path status = script;
    status.replace_extension(".status.json");
    plan.status_file = fs::absolute(status, ec);
    if (auto written = write_harness(script, plan_path, plan); !written) {
      return std::move(written).error();
    }
    Outcome outcome;
    outcome.text = harness_written_text(script.string(), plan_path.string());
    return outcome;
  }

private:
  std::string m_kernel;
  std::string m_problem;
  std::string m_out = "kprof_harness.py";
  TableOptions m_words;
};

} // namespace

std::unique_ptr<Command> add_harness_command(CLI::App& app) {
  return std::make_unique<HarnessCommand>(app);
}

} // namespace kprof::cli

// kprof metrics: list a metric set, or check it against `ncu --query-metrics` output.
#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/text.hpp"
#include "kprof/files.hpp"
#include "kprof/metric_sets.hpp"

namespace kprof::cli {
namespace {

class MetricsCommand final : public Command {
public:
  explicit MetricsCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "metrics", "List a metric set, or check it against `ncu --query-metrics` output")) {
    CLI::App* app = this->app();
    app->add_option("--set", m_set, "default|lean|deep, or comma-separated metric names")
        ->default_val("default");
    app->add_option("--check", m_check, "File holding `ncu --query-metrics` output");
    app->add_option("--format", m_format, "table|json|csv");
  }

  Result<Outcome> run() override {
    auto set = resolve_metric_set(m_set);
    if (!set) {
      return std::move(set).error();
    }
    auto format = choose_format(m_format, Format::table);
    if (!format) {
      return std::move(format).error();
    }
    Outcome outcome;
    if (m_check.empty()) {
      outcome.text =
          render(*format, metric_set_document(*set, m_set == "default" && m_format.empty()),
                 render_options());
      return outcome;
    }
    auto listing = read_file(m_check);
    if (!listing) {
      return std::move(listing).error();
    }
    auto unknown = unknown_metrics(*set, *listing);
    if (!unknown) {
      return unknown.error().with_context(m_check);
    }
    if (unknown->empty()) {
      outcome.text = metric_check_passed_text(*set, m_check);
      return outcome;
    }
    outcome.text = unknown_metrics_text(*unknown);
    outcome.error =
        make_error(ErrorCategory::unknown_metric,
                   fmt::format("{} of {} metrics of set '{}' are unknown to {}", unknown->size(),
                               set->metrics.size(), set->name, m_check));
    return outcome;
  }

private:
  std::string m_set = "default";
  std::string m_check;
  std::string m_format;
};

} // namespace

std::unique_ptr<Command> add_metrics_command(CLI::App& app) {
  return std::make_unique<MetricsCommand>(app);
}

} // namespace kprof::cli

// kprof report FILE: analyse an existing ncu output, optionally recording it as a round.
#include <fmt/format.h>

#include "cli/command.hpp"
#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/harness.hpp"
#include "kprof/history.hpp"
#include "kprof/kernelagent.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/options.hpp"
#include "kprof/profiler.hpp"
#include "kprof/report_file.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/status.hpp"

namespace kprof::cli {
namespace fs = std::filesystem;
namespace {

class ReportCommand final : public Command {
public:
  explicit ReportCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "report", "Analyse an existing ncu output (CSV raw/details page, or .ncu-rep), or "
                      "analyse a kprof report.json (or a round directory) again")) {
    CLI::App* app = this->app();
    app->add_option("FILE", m_file,
                    "ncu --csv output, an .ncu-rep report, or a report.json kprof wrote (or "
                    "its round directory), analysed again from what it was built from")
        ->required();
    app->add_option("--format", m_format,
                    "table|json|csv|prompt|html (table on a terminal, else json)");
    m_out_option = app->add_option(
        "--out", m_out,
        "Write to this file (atomically) instead of stdout; with --round, the output directory");
    m_words.add(app, k_scope_report); // --select, --kernel, --metrics, --ncu
    app->add_flag("--source", m_source,
                  "Hot lines from an .ncu-rep's source counters (exports its source page)");
    app->add_option("--source-page", m_source_page,
                    "Hot lines from this source page (ncu --import R --page source "
                    "--print-source cuda,sass --csv)");
    m_round_option =
        app->add_option("--round", m_round, "Record FILE as round N of the history in --out DIR");
  }

  Result<Outcome> run() override {
    auto format = choose_format(m_format, Format::json);
    if (!format) {
      return std::move(format).error();
    }
    // The options table's checks and words, as profile's (--round too).
    Json values = m_words.values();
    if (m_round_option->count() > 0) {
      values["round"] = m_round;
    }
    OptionContext context;
    context.cli_names = true;
    // --metrics is checked by read_report_file: reading a capture also takes the set "all".
    Json checked = values;
    checked.erase("metrics");
    auto parsed = parse_run_options(checked, context);
    if (!parsed) {
      return std::move(parsed).error();
    }
    std::optional<int> round;
    if (m_round_option->count() > 0) {
      round = parsed->round;
    }
    if (m_out_option->count() > 0 && m_out.empty()) {
      return make_error(ErrorCategory::usage,
                        round ? "--out may not be empty: give the run directory of --round (by "
                                "default kprof-out)"
                              : "--out may not be empty: give the output file (without --out the "
                                "report goes to standard output)");
    }
    auto read = read_report_file(report_file_request(values));
    if (!read) {
      return std::move(read).error();
    }
    auto parts = std::make_shared<ReportFileParts>(std::move(read).value());
    if (round) {
      parts->run["round"] = *round;
    }
    if (!parts->source_page) {
      return without_hot_lines(parts, *format, round);
    }
    // Hot lines are attached to the tree (attach_hot_lines).
    auto doc = report_file_document(*parts);
    if (!doc) {
      return std::move(doc).error();
    }
    Outcome outcome;
    outcome.text = render(*format, *doc, render_options());
    if (!round) {
      outcome.out_file = m_out;
      return outcome;
    }
    if (auto recorded = record_round(std::move(doc).value(), *round); !recorded) {
      return std::move(recorded).error();
    }
    return outcome;
  }

private:
  /// Without hot lines the document is never built whole: the JSON is written launch by launch,
  /// the CSV read launch by launch (CaptureReport), and the table, prompt and html, which show
  /// one launch per kernel name, draw a document that holds only those
  /// (build_report_of_representatives, a CaptureReport's outline). With --round, the files of
  /// the round read the launches one at a time too (record_report_round of a CaptureReport).
  Result<Outcome> without_hot_lines(const std::shared_ptr<ReportFileParts>& parts, Format format,
                                    std::optional<int> round) const {
    if (!round && format == Format::json) {
      Outcome outcome;
      outcome.stream = [parts](const TextOut& out) {
        write_report_json(parts->capture, parts->analysis, parts->metrics, parts->run,
                          render_options(), out, parts->kept_members);
      };
      outcome.out_file = m_out;
      return outcome;
    }
    std::shared_ptr<const ReportSource> report = std::make_shared<const CaptureReport>(
        parts->capture, parts->analysis, parts->metrics, parts->run, parts->kept_members);
    if (round) {
      auto recorded = record_report_round(out_dir(), *round, report, m_file);
      if (!recorded) {
        return std::move(recorded).error();
      }
      // The round's report, which reads its JSON back from the report.json it wrote.
      if (!recorded->candidates.empty() && recorded->candidates.front().streamed_report) {
        report = recorded->candidates.front().streamed_report;
      }
    }
    Outcome outcome;
    if (!round) {
      outcome.out_file = m_out;
    }
    switch (format) {
    case Format::json:
      // `parts` too: the report reads the capture it borrows.
      outcome.stream = [parts, report](const TextOut& out) {
        report->write_json(render_options(), out);
      };
      break;
    case Format::csv:
      outcome.stream = [parts, report](const TextOut& out) { write_report_csv(*report, out); };
      break;
    case Format::prompt:
    case Format::table:
    case Format::html:
      outcome.text = render(format, report->outline(), render_options());
      break;
    }
    return outcome;
  }

  /// The file and the table's options given for it (absent ones: the defaults of a capture,
  /// a report.json's own).
  [[nodiscard]] ReportFileRequest report_file_request(const Json& values) const {
    ReportFileRequest request;
    request.file = m_file;
    if (values.contains("select")) {
      request.select = values["select"].get<std::string>();
    }
    request.kernels = values.value("kernels", request.kernels);
    if (values.contains("metrics")) {
      request.metrics = values["metrics"].get<std::string>();
    }
    if (values.contains("ncu")) {
      request.ncu = fs::path(values["ncu"].get<std::string>());
    }
    if (!m_source_page.empty()) {
      request.source_page = fs::path(m_source_page);
    }
    request.source = m_source;
    return request;
  }

  /// --out DIR of --round.
  [[nodiscard]] fs::path out_dir() const {
    return m_out.empty() ? fs::path("kprof-out") : fs::path(m_out);
  }

  /// Records the document as round `round` of --out DIR (kprof/profiler.hpp).
  Result<void> record_round(Json doc, int round) const {
    auto recorded = record_report_round(out_dir(), round, std::move(doc), m_file);
    if (!recorded) {
      return std::move(recorded).error();
    }
    return {};
  }

  std::string m_file;
  std::string m_format;
  std::string m_out;
  CLI::Option* m_out_option = nullptr;
  TableOptions m_words;
  bool m_source = false;
  std::string m_source_page;
  std::string m_round;
  CLI::Option* m_round_option = nullptr;
};

} // namespace

std::unique_ptr<Command> add_report_command(CLI::App& app) {
  return std::make_unique<ReportCommand>(app);
}

} // namespace kprof::cli

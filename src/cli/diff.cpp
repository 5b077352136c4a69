// kprof diff DIR A B | kprof diff A.json B.json: compare two rounds or two report documents.
#include <fmt/format.h>

#include "cli/command.hpp"
#include "kprof/history.hpp"

namespace kprof::cli {
namespace fs = std::filesystem;
namespace {

class DiffCommand final : public Command {
public:
  explicit DiffCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "diff", "Compare two rounds (DIR A B, A/B as N or N:CAND) or two report.json files")) {
    CLI::App* app = this->app();
    app->add_option("ARGS", m_args, "DIR A B | A.json B.json")->required()->expected(2, 3);
    app->add_option("--format", m_format, "prompt|table|json (prompt by default)");
  }

  Result<Outcome> run() override {
    auto format = choose_format(m_format, Format::prompt);
    if (!format) {
      return std::move(format).error();
    }
    Json a;
    Json b;
    DiffOptions labels;
    if (m_args.size() == 2) {
      auto left = load_report(m_args[0]);
      if (!left) {
        return std::move(left).error();
      }
      auto right = load_report(m_args[1]);
      if (!right) {
        return std::move(right).error();
      }
      a = std::move(left).value();
      b = std::move(right).value();
      labels.source_a = m_args[0];
      labels.source_b = m_args[1];
    } else if (m_args.size() == 3) {
      auto db = HistoryStore::database_of(m_args[0]);
      if (!db) {
        return std::move(db).error();
      }
      auto store = HistoryStore::open_read_only(*db); // never writes (history.cpp says why)
      if (!store) {
        return std::move(store).error();
      }
      for (std::size_t side = 0; side < 2; ++side) {
        auto ref = parse_round_ref(m_args[side + 1]);
        if (!ref) {
          return std::move(ref).error();
        }
        auto resolved = store->resolve(*ref);
        if (!resolved) {
          return std::move(resolved).error();
        }
        (side == 0 ? labels.label_a : labels.label_b) = to_string(*resolved);
        (side == 0 ? labels.source_a : labels.source_b) =
            fmt::format("{} in {}", to_string(*resolved), db->string());
        auto doc = store->document(*resolved);
        if (!doc) {
          return std::move(doc).error();
        }
        (side == 0 ? a : b) = std::move(doc).value();
      }
    } else {
      return make_error(ErrorCategory::usage, "diff takes DIR A B or A.json B.json");
    }
    auto diff = diff_reports(a, b, labels);
    if (!diff) {
      return std::move(diff).error();
    }
    Outcome outcome;
    outcome.text = render_diff(*diff, *format);
    return outcome;
  }

private:
  std::vector<std::string> m_args;
  std::string m_format;
};

} // namespace

std::unique_ptr<Command> add_diff_command(CLI::App& app) {
  return std::make_unique<DiffCommand>(app);
}

} // namespace kprof::cli

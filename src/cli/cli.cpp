// The kprof command line: parses arguments with CLI11, calls the library, prints results.
// Formatting lives in the report sinks; this file only wires words to calls.
#include "kprof/cli.hpp"

#include <charconv>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/harness.hpp"
#include "kprof/history.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/process.hpp"
#include "kprof/profiler.hpp"
#include "kprof/report.hpp"
#include "kprof/version.hpp"

#include "cli/view.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

bool stdout_is_terminal() {
  return ::isatty(STDOUT_FILENO) == 1;
}
bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}
bool color_allowed() {
  return stdout_is_terminal() && !env_var("NO_COLOR").has_value();
}

/// Prints `kprof: error: ...` (and the detail, indented) and returns the category's exit code.
int fail(const Error& error) {
  std::fprintf(stderr, "kprof: error: %s\n", error.message.c_str());
  if (!error.detail.empty()) {
    std::string detail = error.detail;
    while (!detail.empty() && detail.back() == '\n') {
      detail.pop_back();
    }
    std::size_t start = 0;
    while (start <= detail.size()) {
      const auto end = detail.find('\n', start);
      std::fprintf(stderr, "  %s\n", detail.substr(start, end - start).c_str());
      if (end == std::string::npos) {
        break;
      }
      start = end + 1;
    }
  }
  return exit_code(error.category);
}

/// Writes `text` to `out` atomically, or to stdout when `out` is empty.
Result<void> emit(const std::string& text, const std::string& out) {
  if (out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return {};
  }
  return write_file_atomic(out, text);
}

/// The format a command prints: --format when given, else table on a terminal, else `fallback`.
Result<Format> choose_format(const std::string& word, Format fallback) {
  if (!word.empty()) {
    return parse_format(word);
  }
  return stdout_is_terminal() ? Format::table : fallback;
}

RenderOptions render_options() {
  RenderOptions options;
  options.color = color_allowed();
  return options;
}

// ---------------------------------------------------------------------------------------------
// Options shared by profile, batch and harness.
struct RunWords {
  std::string out_dir = "kprof-out";
  std::string metrics = "default";
  std::string ncu;
  std::string python;
  bool sudo = false;
  int timeout = 300;
  int retries = 2;
  int warmup = 3;
  std::string inputs = "gpu";
  std::string cast = "none";
  std::string clock_control = "none";
  std::string select = "all";
  std::vector<std::string> kernel_filters;
  int gpu = -1;
  std::string gpus;
  std::uint64_t seed = 0;
  bool no_history = false;
  bool no_metric_check = false;
  int round = 0;
  std::string format;
};

void add_harness_options(CLI::App* app, RunWords& w) {
  app->add_option("--warmup", w.warmup, "Un-profiled calls before the profiled one (JIT, autotune)")
      ->default_val(3)
      ->check(CLI::NonNegativeNumber);
  app->add_option("--inputs", w.inputs, "Create problem inputs on gpu|cpu")->default_val("gpu");
  app->add_option("--cast", w.cast, "Cast floating inputs: none|bf16|fp16|fp32")
      ->default_val("none");
  app->add_option("--seed", w.seed, "Random seed for the inputs")->default_val(0);
}

void add_run_options(CLI::App* app, RunWords& w) {
  app->add_option("--round", w.round, "Round number (directory roundNNN)")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  app->add_option("--out", w.out_dir, "Output directory")->default_val("kprof-out");
  app->add_option("--metrics", w.metrics,
                  "Metric set (default|lean|deep) or comma-separated metric names")
      ->default_val("default");
  app->add_option("--ncu", w.ncu, "ncu executable (else KPROF_NCU, PATH, CUDA dirs)");
  app->add_option("--python", w.python, "Python for the harness (else KPROF_PYTHON, python3)");
  app->add_flag("--sudo", w.sudo, "Run ncu through sudo -E (also KPROF_NCU_USE_SUDO=1)");
  app->add_option("--timeout", w.timeout, "Seconds allowed per candidate")
      ->default_val(300)
      ->check(CLI::PositiveNumber);
  app->add_option("--retries", w.retries, "Extra attempts after a timeout or transient ncu failure")
      ->default_val(2)
      ->check(CLI::NonNegativeNumber);
  add_harness_options(app, w);
  app->add_option("--clock-control", w.clock_control, "ncu clock control: base|none")
      ->default_val("none");
  app->add_option("--select", w.select, "Launches kept per kernel name: first|last|max-cycles|all")
      ->default_val("all");
  app->add_option("--kernel", w.kernel_filters,
                  "Keep kernels whose name contains this (repeatable)");
  app->add_flag("--no-history", w.no_history, "Do not record the round in DIR/kprof.db");
  app->add_flag("--no-metric-check", w.no_metric_check,
                "Skip validating metric names with ncu --query-metrics");
  app->add_option("--format", w.format, "Output: table|json|csv|prompt (table on a terminal)");
}

Result<ProfileOptions> to_profile_options(const RunWords& w) {
  ProfileOptions options;
  options.out_dir = w.out_dir;
  options.metrics = w.metrics;
  if (!w.ncu.empty()) {
    options.ncu = w.ncu;
  }
  if (!w.python.empty()) {
    options.python = w.python;
  }
  options.use_sudo = w.sudo;
  options.timeout = std::chrono::seconds(w.timeout);
  options.retries = w.retries;
  options.warmup = w.warmup;
  options.seed = w.seed;
  options.record_history = !w.no_history;
  options.check_metrics = !w.no_metric_check;
  auto inputs = parse_inputs_on(w.inputs);
  if (!inputs) {
    return inputs.error();
  }
  options.inputs = *inputs;
  auto cast = parse_cast_dtype(w.cast);
  if (!cast) {
    return cast.error();
  }
  options.cast = *cast;
  auto clock = parse_clock_control(w.clock_control);
  if (!clock) {
    return clock.error();
  }
  options.clock_control = *clock;
  auto select = parse_select(w.select);
  if (!select) {
    return select.error();
  }
  options.select.select = *select;
  options.select.kernel_filters = w.kernel_filters;
  if (w.gpu >= 0) {
    options.gpus = {w.gpu};
  }
  if (!w.gpus.empty()) {
    options.gpus.clear();
    std::size_t start = 0;
    while (start <= w.gpus.size()) {
      const auto end = w.gpus.find(',', start);
      const std::string word =
          w.gpus.substr(start, end == std::string::npos ? std::string::npos : end - start);
      int value = -1;
      const auto parsed = std::from_chars(word.data(), word.data() + word.size(), value);
      if (word.empty() || parsed.ec != std::errc() || parsed.ptr != word.data() + word.size() ||
          value < 0) {
        return make_error(
            ErrorCategory::usage,
            fmt::format("--gpus takes comma-separated GPU indices, got '{}'", w.gpus));
      }
      options.gpus.push_back(value);
      if (end == std::string::npos) {
        break;
      }
      start = end + 1;
    }
  }
  if (stderr_is_terminal()) {
    options.on_progress = [](const std::string& line) {
      std::fprintf(stderr, "kprof: %s\n", line.c_str());
    };
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
int run_report(const std::string& file, const std::string& format_word, const std::string& out,
               const std::string& select_word, const std::vector<std::string>& kernels,
               const std::string& metrics_word, const std::string& ncu_path, int round) {
  auto set = resolve_metric_set(metrics_word);
  if (!set) {
    return fail(set.error());
  }
  auto select = parse_select(select_word);
  if (!select) {
    return fail(select.error());
  }
  auto format = choose_format(format_word, Format::json);
  if (!format) {
    return fail(format.error());
  }

  std::optional<NcuInstall> ncu;
  if (looks_like_ncu_report(file)) {
    auto located = locate_ncu(ncu_path.empty() ? std::nullopt : std::optional<fs::path>(ncu_path));
    if (!located) {
      return fail(located.error().with_context(fmt::format("{} is an Nsight Compute report and "
                                                           "needs ncu to be read",
                                                           file)));
    }
    ncu = std::move(located).value();
  }
  auto capture = load_capture(file, ncu ? &*ncu : nullptr);
  if (!capture) {
    return fail(capture.error());
  }
  SelectOptions options;
  options.select = *select;
  options.kernel_filters = kernels;
  auto analysis = analyse(*capture, options);
  if (!analysis) {
    return fail(analysis.error().with_context(file));
  }
  Json run = Json::object();
  run["select"] = std::string(to_string(*select));
  if (round >= 0) {
    run["round"] = round;
  }
  Json doc = build_report(*capture, *analysis, *set, run);

  if (round >= 0) {
    // Record an existing ncu file as a round: DIR/roundNNN/report.json + history.
    const fs::path dir = out.empty() ? fs::path("kprof-out") : fs::path(out);
    const fs::path round_dir = dir / round_dir_name(round);
    if (auto w = write_file_atomic(round_dir / "report.json", doc.dump(2) + "\n"); !w) {
      return fail(w.error());
    }
    if (auto w = write_file_atomic(round_dir / "metrics.csv", render(Format::csv, doc)); !w) {
      return fail(w.error());
    }
    if (auto w = write_file_atomic(dir / fmt::format("{}_ncu_metrics.json", round_dir_name(round)),
                                   kernelagent_round_json(doc).dump(2) + "\n");
        !w) {
      return fail(w.error());
    }
    auto store = HistoryStore::open(dir / "kprof.db");
    if (!store) {
      return fail(store.error());
    }
    RoundEntry entry;
    entry.round = round;
    entry.label = fs::path(file).filename().string();
    entry.status = "ok";
    entry.document = doc;
    if (auto recorded = store->record_round(entry); !recorded) {
      return fail(recorded.error());
    }
    auto printed = emit(render(*format, doc, render_options()), "");
    return printed ? 0 : fail(printed.error());
  }
  auto written = emit(render(*format, doc, render_options()), out);
  return written ? 0 : fail(written.error());
}

int run_metrics(const std::string& set_word, const std::string& check_file,
                const std::string& format_word) {
  auto set = resolve_metric_set(set_word);
  if (!set) {
    return fail(set.error());
  }
  auto format = choose_format(format_word, Format::table);
  if (!format) {
    return fail(format.error());
  }
  if (!check_file.empty()) {
    auto listing = read_file(check_file);
    if (!listing) {
      return fail(listing.error());
    }
    auto unknown = unknown_metrics(*set, *listing);
    if (!unknown) {
      return fail(unknown.error().with_context(check_file));
    }
    if (unknown->empty()) {
      std::printf("all %zu metrics of set '%s' are known to %s\n", set->metrics.size(),
                  set->name.c_str(), check_file.c_str());
      return 0;
    }
    for (const auto& name : *unknown) {
      std::printf("unknown: %s\n", name.c_str());
    }
    return fail(
        make_error(ErrorCategory::unknown_metric,
                   fmt::format("{} of {} metrics of set '{}' are unknown to {}", unknown->size(),
                               set->metrics.size(), set->name, check_file)));
  }
  if (*format == Format::json) {
    Json out = Json::object();
    out["name"] = set->name;
    out["description"] = set->description;
    out["metrics"] = Json::array();
    for (const auto& m : set->metrics) {
      out["metrics"].push_back({{"name", m.name}, {"label", m.label}, {"group", m.group}});
    }
    out["sections"] = set->sections;
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  if (*format == Format::csv) {
    std::printf("name,label,group\n");
    for (const auto& m : set->metrics) {
      std::printf("%s,\"%s\",%s\n", m.name.c_str(), m.label.c_str(), m.group.c_str());
    }
    return 0;
  }
  std::printf("metric set '%s': %s\n", set->name.c_str(), set->description.c_str());
  std::size_t width = 0;
  for (const auto& m : set->metrics) {
    width = std::max(width, m.name.size());
  }
  for (const auto& m : set->metrics) {
    std::printf("  %-*s  %-14s %s\n", static_cast<int>(width), m.name.c_str(), m.group.c_str(),
                m.label.c_str());
  }
  for (const auto& s : set->sections) {
    std::printf("  section %s\n", s.c_str());
  }
  if (set_word == "default" && format_word.empty()) {
    std::printf("other sets:");
    for (const auto& s : builtin_metric_sets()) {
      std::printf(" %s", s.name.c_str());
    }
    std::printf("\n");
  }
  return 0;
}

int print_round(const RoundResult& round, const std::string& format_word, bool batch) {
  auto format = choose_format(format_word, Format::json);
  if (!format) {
    return fail(format.error());
  }
  if (!batch) {
    const CandidateResult& candidate = round.candidates.front();
    if (candidate.report) {
      std::string text = render(*format, *candidate.report, render_options());
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
    if (candidate.error) {
      if (candidate.status == "partial") {
        std::fprintf(stderr,
                     "kprof: warning: the run failed after profiling; rows kept (partial)\n");
      }
      return fail(*candidate.error);
    }
    if (stderr_is_terminal()) {
      std::fprintf(stderr, "kprof: round written to %s (%.1f s)\n", round.dir.c_str(),
                   round.wall_seconds);
    }
    return 0;
  }
  // Batch: rank candidates by total kernel duration.
  std::vector<const CandidateResult*> order;
  for (const auto& c : round.candidates) {
    order.push_back(&c);
  }
  auto total = [](const CandidateResult* c) -> double {
    if (!c->report) {
      return 1e300;
    }
    const auto& t = (*c->report)["summary"]["total_duration_ns"];
    return t.is_number() ? t.get<double>() : 1e299;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](auto* a, auto* b) { return total(a) < total(b); });
  if (*format == Format::json) {
    Json out = Json::object();
    out["schema_version"] = k_report_schema_version;
    out["metadata"] = round.metadata;
    out["candidates"] = Json::array();
    for (const auto* c : order) {
      Json line = Json::object();
      line["candidate"] = c->index;
      line["kernel_file"] = c->kernel.string();
      line["status"] = c->status;
      line["gpu"] = c->gpu;
      line["dir"] = c->dir.string();
      line["report"] = c->report ? *c->report : Json(nullptr);
      line["error"] = c->error ? Json{{"category", std::string(to_string(c->error->category))},
                                      {"message", c->error->message},
                                      {"detail", c->error->detail}}
                               : Json(nullptr);
      out["candidates"].push_back(std::move(line));
    }
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("round %d: %zu candidates in %.1f s\n", round.round, round.candidates.size(),
                round.wall_seconds);
    std::printf("%-4s %-5s %-8s %12s  %-28s %s\n", "rank", "cand", "status", "GPU time",
                "dominant kernel", "file / error");
    int rank = 1;
    for (const auto* c : order) {
      std::string time = "-";
      std::string dominant = "-";
      std::string bottleneck;
      if (c->report) {
        const auto& s = (*c->report)["summary"];
        if (s["total_duration_ns"].is_number()) {
          time = fmt::format("{:.2f} us", s["total_duration_ns"].get<double>() / 1000.0);
        }
        dominant = s["dominant_kernel"].is_string() ? s["dominant_kernel"].get<std::string>() : "-";
        if (dominant.size() > 28) {
          dominant = dominant.substr(0, 27) + "~";
        }
      }
      std::string last =
          c->error ? fmt::format("{}: {}", to_string(c->error->category), c->error->message)
                   : c->kernel.filename().string();
      std::printf("%-4s %-5d %-8s %12s  %-28s %s\n",
                  c->report ? std::to_string(rank++).c_str() : "-", c->index, c->status.c_str(),
                  time.c_str(), dominant.c_str(), last.c_str());
    }
  }
  std::size_t failed = 0;
  for (const auto& c : round.candidates) {
    if (c.status == "failed") {
      ++failed;
    }
  }
  // A batch succeeds when it ran; per-candidate failures are results, reported above.
  if (failed == round.candidates.size()) {
    return fail(*round.candidates.front().error);
  }
  return 0;
}

int run_profile(const std::string& kernel, const std::string& problem, const RunWords& w) {
  auto options = to_profile_options(w);
  if (!options) {
    return fail(options.error());
  }
  auto profiler = KernelProfiler::create(std::move(options).value());
  if (!profiler) {
    return fail(profiler.error());
  }
  auto round = profiler->profile(kernel, problem, w.round);
  if (!round) {
    return fail(round.error());
  }
  return print_round(*round, w.format, false);
}

int run_batch(const std::string& problem, const std::vector<std::string>& kernels,
              const RunWords& w) {
  auto options = to_profile_options(w);
  if (!options) {
    return fail(options.error());
  }
  auto profiler = KernelProfiler::create(std::move(options).value());
  if (!profiler) {
    return fail(profiler.error());
  }
  std::vector<fs::path> paths(kernels.begin(), kernels.end());
  auto round = profiler->profile_batch(problem, paths, w.round);
  if (!round) {
    return fail(round.error());
  }
  return print_round(*round, w.format, true);
}

int run_harness(const std::string& kernel, const std::string& problem, const std::string& out,
                const RunWords& w) {
  HarnessPlan plan;
  std::error_code ec;
  plan.problem = fs::absolute(problem, ec);
  plan.candidates.push_back({fs::absolute(kernel, ec), candidate_range(0)});
  plan.warmup = w.warmup;
  plan.seed = w.seed;
  auto inputs = parse_inputs_on(w.inputs);
  if (!inputs) {
    return fail(inputs.error());
  }
  plan.inputs = *inputs;
  auto cast = parse_cast_dtype(w.cast);
  if (!cast) {
    return fail(cast.error());
  }
  plan.cast = *cast;
  const fs::path script = out;
  fs::path plan_path = script;
  plan_path.replace_extension(".plan.json");
  fs::path status = script;
  status.replace_extension(".status.json");
  plan.status_file = fs::absolute(status, ec);
  if (auto written = write_harness(script, plan_path, plan); !written) {
    return fail(written.error());
  }
  std::printf("wrote %s and %s\nrun it:     python3 %s %s\nunder ncu:  ncu --nvtx --nvtx-include "
              "'%s' ... python3 %s %s\n",
              script.c_str(), plan_path.c_str(), script.c_str(), plan_path.c_str(),
              nvtx_include_for_ranges().c_str(), script.c_str(), plan_path.c_str());
  return 0;
}

int run_history(const std::string& dir, const std::string& format_word, bool converged_flag,
                const ConvergenceOptions& convergence) {
  const fs::path db = fs::path(dir) / "kprof.db";
  if (!fs::exists(db)) {
    return fail(make_error(ErrorCategory::input_not_found,
                           fmt::format("no history in {} (expected {})", dir, db.string())));
  }
  auto store = HistoryStore::open(db);
  if (!store) {
    return fail(store.error());
  }
  auto rows = store->rows();
  if (!rows) {
    return fail(rows.error());
  }
  auto format = choose_format(format_word, Format::json);
  if (!format) {
    return fail(format.error());
  }
  if (converged_flag) {
    auto verdict = converged(*rows, convergence);
    if (!verdict) {
      return fail(verdict.error());
    }
    if (*format == Format::json) {
      std::printf("%s\n", to_json(*verdict).dump(2).c_str());
    } else {
      std::printf("%s: %s\n", verdict->converged ? "converged" : "not converged",
                  verdict->details.c_str());
    }
    return verdict->converged ? 0 : 1;
  }
  std::string text = render_history(*rows, *format);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int run_diff(const std::vector<std::string>& args, const std::string& format_word) {
  auto format = choose_format(format_word, Format::prompt);
  if (!format) {
    return fail(format.error());
  }
  Json a;
  Json b;
  DiffOptions labels;
  if (args.size() == 2) {
    auto left = load_report(args[0]);
    if (!left) {
      return fail(left.error());
    }
    auto right = load_report(args[1]);
    if (!right) {
      return fail(right.error());
    }
    a = std::move(left).value();
    b = std::move(right).value();
  } else if (args.size() == 3) {
    const fs::path db = fs::path(args[0]) / "kprof.db";
    if (!fs::exists(db)) {
      return fail(
          make_error(ErrorCategory::input_not_found, fmt::format("no history in {}", args[0])));
    }
    auto store = HistoryStore::open(db);
    if (!store) {
      return fail(store.error());
    }
    for (int side = 0; side < 2; ++side) {
      auto ref = parse_round_ref(args[static_cast<std::size_t>(side) + 1]);
      if (!ref) {
        return fail(ref.error());
      }
      auto resolved = store->resolve(*ref);
      if (!resolved) {
        return fail(resolved.error());
      }
      (side == 0 ? labels.label_a : labels.label_b) = to_string(*resolved);
      auto doc = store->document(*resolved);
      if (!doc) {
        return fail(doc.error());
      }
      (side == 0 ? a : b) = std::move(doc).value();
    }
  } else {
    return fail(make_error(ErrorCategory::usage, "diff takes DIR A B or A.json B.json"));
  }
  auto diff = diff_reports(a, b, labels);
  if (!diff) {
    return fail(diff.error());
  }
  std::string text = render_diff(*diff, *format);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int run_doctor_command(const std::string& ncu, const std::string& python,
                       const std::string& clock_word) {
  auto clock = parse_clock_control(clock_word);
  if (!clock) {
    return fail(clock.error());
  }
  auto checks = run_doctor(ncu.empty() ? std::nullopt : std::optional<fs::path>(ncu),
                           python.empty() ? std::nullopt : std::optional<fs::path>(python), *clock);
  std::optional<Error> first_error;
  for (const auto& check : checks) {
    std::printf("%-9s %s  %s\n", check.name.c_str(), check.ok ? "ok  " : "FAIL",
                check.detail.c_str());
    if (!check.ok && check.error && !first_error) {
      first_error = check.error;
    }
  }
  if (first_error) {
    std::printf("profiling will not work here until the first failure above is fixed\n");
    return fail(*first_error);
  }
  std::printf("profiling can work here\n");
  return 0;
}

} // namespace

namespace {
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

int run_cli(int argc, char** argv) {
  const int code = run_cli_command(argc, argv);
  if (cancellation_requested()) {
    std::fprintf(stderr, "kprof: interrupted; the profiled program was stopped\n");
    return 130;
  }
  return code;
}

int run_cli_command(int argc, char** argv) {
  install_interrupt_handlers();
  CLI::App app{"kprof: Nsight Compute profiles of Triton and CUDA kernels, as facts an optimizer "
               "can act on"};
  app.name("kprof");
  app.set_version_flag(
      "--version", fmt::format("kprof {}{}", k_version,
                               k_git_describe.empty() ? "" : fmt::format(" ({})", k_git_describe)));
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 1 not converged (history --converged), 2 usage, 3 input not found,\n"
      "4 malformed input, 5 no kernels, 6 ncu not found, 7 no counter permission,\n"
      "8 kernel import error, 9 invalid problem, 10 kernel raised, 11 unknown metric,\n"
      "12 timeout, 13 ncu failed, 14 cannot write output, 15 history database, 16 GPU busy.");

  // report
  std::string report_file;
  std::string report_format;
  std::string report_out;
  std::string report_select = "all";
  std::vector<std::string> report_kernels;
  std::string report_metrics = "default";
  std::string report_ncu;
  int report_round = -1;
  auto* report = app.add_subcommand(
      "report", "Analyse an existing ncu output (CSV raw/details page, or .ncu-rep)");
  report->add_option("FILE", report_file, "ncu --csv output, or an .ncu-rep report")->required();
  report->add_option("--format", report_format,
                     "table|json|csv|prompt|html (table on a terminal, else json)");
  report->add_option(
      "--out", report_out,
      "Write to this file (atomically) instead of stdout; with --round, the output directory");
  report
      ->add_option("--select", report_select,
                   "Launches kept per kernel name: first|last|max-cycles|all")
      ->default_val("all");
  report->add_option("--kernel", report_kernels,
                     "Keep kernels whose name contains this (repeatable)");
  report->add_option("--metrics", report_metrics, "Metric set whose metrics the prompt/CSV show")
      ->default_val("default");
  report->add_option("--ncu", report_ncu, "ncu executable, to read .ncu-rep reports");
  report->add_option("--round", report_round, "Record FILE as round N of the history in --out DIR")
      ->check(CLI::NonNegativeNumber);

  // metrics
  std::string metrics_set = "default";
  std::string metrics_check;
  std::string metrics_format;
  auto* metrics = app.add_subcommand(
      "metrics", "List a metric set, or check it against `ncu --query-metrics` output");
  metrics->add_option("--set", metrics_set, "default|lean|deep, or comma-separated metric names")
      ->default_val("default");
  metrics->add_option("--check", metrics_check, "File holding `ncu --query-metrics` output");
  metrics->add_option("--format", metrics_format, "table|json|csv");

  // profile
  RunWords profile_words;
  std::string profile_kernel;
  std::string profile_problem;
  auto* profile =
      app.add_subcommand("profile", "Profile kernel_function of KERNEL.py on PROBLEM.py's inputs");
  profile->add_option("KERNEL", profile_kernel, "kernel.py exposing kernel_function")->required();
  profile
      ->add_option("PROBLEM", profile_problem,
                   "problem.py exposing get_inputs (and Model, get_init_inputs)")
      ->required();
  add_run_options(profile, profile_words);
  profile->add_option("--gpu", profile_words.gpu, "GPU index (sets CUDA_VISIBLE_DEVICES)")
      ->check(CLI::NonNegativeNumber);

  // batch
  RunWords batch_words;
  std::string batch_problem;
  std::vector<std::string> batch_kernels;
  auto* batch =
      app.add_subcommand("batch", "Profile several candidate kernels of one problem, across GPUs");
  batch->add_option("PROBLEM", batch_problem, "problem.py")->required();
  batch->add_option("KERNELS", batch_kernels, "candidate kernel files")->required();
  add_run_options(batch, batch_words);
  batch->add_option("--gpus", batch_words.gpus,
                    "Comma-separated GPU indices to spread candidates over");

  // harness
  RunWords harness_words;
  std::string harness_kernel;
  std::string harness_problem;
  std::string harness_out = "kprof_harness.py";
  auto* harness = app.add_subcommand(
      "harness", "Write the Python harness kprof runs under ncu, for inspection");
  harness->add_option("KERNEL", harness_kernel, "kernel.py")->required();
  harness->add_option("PROBLEM", harness_problem, "problem.py")->required();
  harness->add_option("-o,--out", harness_out, "Script path (its plan goes next to it)")
      ->default_val("kprof_harness.py");
  add_harness_options(harness, harness_words);

  // history
  std::string history_dir;
  std::string history_format;
  bool history_converged = false;
  ConvergenceOptions convergence;
  auto* history = app.add_subcommand("history", "Rounds recorded in DIR/kprof.db, best marked");
  history->add_option("DIR", history_dir, "Output directory of profile/batch")->required();
  history->add_option("--format", history_format, "table|json|csv");
  history->add_flag("--converged", history_converged,
                    "Say whether to stop optimizing (exit 0 yes, 1 no)");
  history->add_option("--sol-threshold", convergence.sol_threshold_pct, "Converged at this SOL %")
      ->default_val(95.0);
  history
      ->add_option("--window", convergence.window, "Rounds without improvement that mean converged")
      ->default_val(5);
  history
      ->add_option("--min-improvement", convergence.min_improvement,
                   "Relative improvement that counts")
      ->default_val(0.01);

  // diff
  std::vector<std::string> diff_args;
  std::string diff_format;
  auto* diff = app.add_subcommand(
      "diff", "Compare two rounds (DIR A B, A/B as N or N:CAND) or two report.json files");
  diff->add_option("ARGS", diff_args, "DIR A B | A.json B.json")->required()->expected(2, 3);
  diff->add_option("--format", diff_format, "prompt|table|json (prompt by default)");

  // view
  ViewWords view_words;
  auto* view = add_view_command(app, view_words);

  // doctor
  std::string doctor_ncu;
  std::string doctor_python;
  std::string doctor_clock = "none";
  auto* doctor = app.add_subcommand("doctor", "Check that profiling can work on this machine");
  doctor->add_option("--ncu", doctor_ncu, "ncu executable");
  doctor->add_option("--python", doctor_python, "python executable");
  doctor->add_option("--clock-control", doctor_clock, "base|none")->default_val("none");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "kprof: error: %s\n", e.what());
    std::fprintf(stderr, "Run with --help for more information.\n");
    return exit_code(ErrorCategory::usage);
  }

  try {
    if (report->parsed()) {
      return run_report(report_file, report_format, report_out, report_select, report_kernels,
                        report_metrics, report_ncu, report_round);
    }
    if (metrics->parsed()) {
      return run_metrics(metrics_set, metrics_check, metrics_format);
    }
    if (profile->parsed()) {
      return run_profile(profile_kernel, profile_problem, profile_words);
    }
    if (batch->parsed()) {
      return run_batch(batch_problem, batch_kernels, batch_words);
    }
    if (harness->parsed()) {
      return run_harness(harness_kernel, harness_problem, harness_out, harness_words);
    }
    if (history->parsed()) {
      return run_history(history_dir, history_format, history_converged, convergence);
    }
    if (diff->parsed()) {
      return run_diff(diff_args, diff_format);
    }
    if (view->parsed()) {
      return run_view(view_words);
    }
    if (doctor->parsed()) {
      return run_doctor_command(doctor_ncu, doctor_python, doctor_clock);
    }
  } catch (const std::exception& e) {
    return fail(make_error(ErrorCategory::internal, e.what()));
  }
  return exit_code(ErrorCategory::usage);
}

} // namespace kprof

// kprof profile KERNEL PROBLEM and kprof batch PROBLEM KERNELS...: rounds through KernelProfiler,
// with the options of the shared table (include/kprof/options.hpp).

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/text.hpp"
#include "kprof/model.hpp"
#include "kprof/options.hpp"
#include "kprof/profiler.hpp"
#include "kprof/run.hpp"
#include "kprof/serve.hpp"
#include "kprof/slurm.hpp"
#include "kprof/strings.hpp"

namespace kprof::cli {
namespace fs = std::filesystem;
namespace {

/// The table's options of one subcommand as a RunRequest, with progress lines on a terminal.
/// The environment is checked here too, before a kprof serve is asked or Slurm is given the
/// round: a bad KPROF_COMPILE_AHEAD is refused wherever the round would run.
Result<RunRequest> run_request(const Json& values) {
  if (auto environment = read_profile_environment(); !environment) {
    return std::move(environment).error();
  }
  OptionContext context;
  context.cli_names = true;
  context.visible_gpus = visible_gpu_count();
  auto request = parse_run_options(values, context);
  if (!request) {
    return request;
  }
  // Progress lines on stderr, with a terminal or without (a job's log, an agent's pipe): a long
  // run (a model's two tiers, a wait for a standby) says what it does and how far it is.
  request->options.on_progress = [](const std::string& line) { print_message("kprof: ", line); };
  return request;
}

/// The round through the library's one entry (run_round): a matching `kprof serve` of the same
/// output directory, else a profiler of this process. Says which in `notes`.
Result<RoundResult> run_round(const RoundRequest& request, std::vector<std::string>& notes) {
  auto round = kprof::run_round(request, nullptr, notes);
  if (round && round->served_by.who == "kprof serve") {
    notes.push_back(fmt::format("answered by kprof serve ({})", round->served_by.socket.string()));
  }
  return round;
}

/// One candidate's round (profile, model): the inputs checked before ncu is looked for, the
/// round run, its report in `format`, its error and exit code, where it was written; with
/// `extract` (kprof model --extract), a line per kernel the extraction looked at, or its error.
Result<Outcome> profile_candidate(const RunRequest& request, Format format, const fs::path& problem,
                                  const fs::path& kernel,
                                  std::optional<ExtractRequest> extract = std::nullopt) {
  if (auto inputs = check_round_inputs(problem, {kernel}); !inputs) {
    return std::move(inputs).error();
  }
  Outcome outcome;
  auto round = run_round(
      RoundRequest{request, problem, {kernel}, false, "kprof", std::move(extract)}, outcome.notes);
  if (!round) {
    outcome.error = std::move(round).error(); // after the notes on the server
    return outcome;
  }
  const CandidateResult& candidate = round->candidates.front();
  if (candidate.report) {
    outcome.text = render(format, *candidate.report, render_options());
  }
  if (candidate.error) {
    if (candidate.status == CandidateStatus::partial) {
      outcome.notes.emplace_back("warning: the run failed after profiling; rows kept (partial)");
    }
    outcome.error = candidate.error;
  } else if (stderr_is_terminal()) {
    outcome.notes.push_back(
        fmt::format("round written to {} ({:.1f} s)", round->dir.string(), round->wall_seconds));
  }
  if (round->extracted && *round->extracted) {
    for (std::string& line : extraction_lines(**round->extracted)) {
      outcome.notes.push_back(std::move(line));
    }
  } else if (round->extracted) {
    outcome.error = round->extracted->error();
  }
  return outcome;
}

class ProfileCommand final : public Command {
public:
  explicit ProfileCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "profile", "Profile kernel_function of KERNEL.py on PROBLEM.py's inputs")) {
    CLI::App* app = this->app();
    app->add_option("KERNEL", m_kernel, "kernel.py exposing kernel_function")->required();
    app->add_option("PROBLEM", m_problem,
                    "problem.py exposing get_inputs (and Model, get_init_inputs)")
        ->required();
    m_words.add(app, k_scope_profile);
    app->add_option("--format", m_format, "Output: table|json|csv|prompt (table on a terminal)");
  }

  Result<Outcome> run() override {
    auto request = run_request(m_words.values());
    if (!request) {
      return std::move(request).error();
    }
    auto format = choose_format(m_format, Format::json);
    if (!format) {
      return std::move(format).error();
    }
    return profile_candidate(*request, *format, m_problem, m_kernel);
  }

private:
  std::string m_kernel;
  std::string m_problem;
  std::string m_format;
  TableOptions m_words;
};

/// kprof model PROBLEM.py (issue 42 item 3, kprof/model.hpp): the problem's Model as the
/// candidate, written to <out>/model/kernel.py, profiled as `kprof profile` would with
/// `--launches many` (a model's call is known to be long) and no check (the candidate is the
/// reference); its timing and the problem's speed of light stay.
class ModelCommand final : public Command {
public:
  explicit ModelCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "model", "Profile PROBLEM.py's Model whole: where its call's time goes, kernel by "
                     "kernel, and what to optimize first")) {
    CLI::App* app = this->app();
    app->add_option("PROBLEM", m_problem,
                    "problem.py exposing Model, get_inputs and get_init_inputs (KernelBench's)")
        ->required();
    m_words.add(app, k_scope_profile);
    app->add_option("--format", m_format, "Output: table|json|csv|prompt (table on a terminal)");
    app->add_flag("--compile", m_compile, "Run the Model through torch.compile");
    app->add_option("--extract", m_extract,
                    "Write the call's costliest Triton kernels as standalone cases (kernel.py, "
                    "problem.py) to DIR/<kernel>/");
    app->add_option(
           "--extract-top", m_extract_top,
           fmt::format("--extract: how many Triton kernels to write ({})", k_default_extract_top))
        ->check(CLI::PositiveNumber);
  }

  Result<Outcome> run() override {
    auto request = run_request(with_model_defaults(m_words.values()));
    if (!request) {
      return std::move(request).error();
    }
    auto format = choose_format(m_format, Format::json);
    if (!format) {
      return std::move(format).error();
    }
    auto kernel =
        write_model_candidate(m_problem, fs::absolute(request->options.out_dir), m_compile);
    if (!kernel) {
      return std::move(kernel).error();
    }
    std::optional<ExtractRequest> extract;
    if (!m_extract.empty()) {
      extract = ExtractRequest{m_extract, m_extract_top, m_compile};
    }
    return profile_candidate(*request, *format, m_problem, *kernel, std::move(extract));
  }

private:
  std::string m_problem;
  std::string m_format;
  std::string m_extract;
  std::size_t m_extract_top = k_default_extract_top;
  bool m_compile = false;
  TableOptions m_words;
};

class BatchCommand final : public Command {
public:
  explicit BatchCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "batch", "Profile several candidate kernels of one problem, across GPUs")) {
    CLI::App* app = this->app();
    app->add_option("PROBLEM", m_problem, "problem.py")->required();
    app->add_option("KERNELS", m_kernels, "candidate kernel files")->required();
    m_words.add(app, k_scope_batch);
    app->add_option("--format", m_format, "Output: table|json|csv|prompt (table on a terminal)");
    app->add_flag("--slurm", m_slurm,
                  "Run the batch as a Slurm job array: shards of candidates per task, results "
                  "gathered here (docs/slurm.md)");
    m_slurm_options.push_back(app->add_option("--tasks", m_tasks,
                                              "--slurm: array tasks (default: one per 8 "
                                              "candidates per GPU, within the cluster's limits)"));
    m_slurm_options.push_back(
        app->add_option("--gpus-per-task", m_gpus_per_task, "--slurm: GPUs of each task (1)"));
    m_slurm_options.push_back(app->add_option(
        "--slurm-opt", m_sbatch_options,
        "--slurm: sbatch options, as one string (\"--partition=gpu --time=1:00:00\")"));
    m_slurm_options.push_back(
        app->add_flag("--requeue", m_requeue,
                      "--slurm: resubmit once the shards of tasks that ended without "
                      "results"));
    m_slurm_options.push_back(app->add_flag(
        "--dry-run", m_dry_run, "--slurm: print the shard plan and the script; submit nothing"));
  }

  Result<Outcome> run() override {
    auto request = run_request(m_words.values());
    if (!request) {
      return std::move(request).error();
    }
    auto format = choose_format(m_format, Format::json);
    if (!format) {
      return std::move(format).error();
    }
    const std::vector<fs::path> paths(m_kernels.begin(), m_kernels.end());
    if (m_slurm) {
      return run_on_slurm(*request, paths, *format);
    }
    for (const CLI::Option* option : m_slurm_options) {
      if (option->count() > 0) {
        return make_error(ErrorCategory::usage,
                          fmt::format("{} needs --slurm", option->get_name()));
      }
    }
    if (auto inputs = check_round_inputs(m_problem, paths); !inputs) {
      return std::move(inputs).error(); // before looking for ncu
    }
    Outcome outcome;
    auto round = run_round(RoundRequest{*request, m_problem, paths, true, "kprof", std::nullopt},
                           outcome.notes);
    if (!round) {
      outcome.error = std::move(round).error(); // after the notes on the server
      return outcome;
    }
    return batch_outcome(*round, *format, std::move(outcome));
  }

private:
  Result<Outcome> run_on_slurm(RunRequest& request, const std::vector<fs::path>& paths,
                               Format format) {
    Json settings = Json::object();
    settings["requeue"] = m_requeue;
    settings["dry_run"] = m_dry_run;
    if (m_tasks) {
      settings["tasks"] = *m_tasks;
    }
    if (m_gpus_per_task) {
      settings["gpus_per_task"] = *m_gpus_per_task;
    }
    if (!m_sbatch_options.empty()) {
      settings["options"] = m_sbatch_options;
    }
    auto slurm = parse_slurm_settings(settings);
    if (!slurm) {
      return std::move(slurm).error();
    }
    SlurmBatchRequest batch;
    batch.on_progress = request.options.on_progress;
    batch.run = std::move(request);
    batch.option_values = m_words.values();
    batch.problem = m_problem;
    batch.kernels = paths;
    batch.slurm = std::move(slurm).value();
    Outcome outcome;
    if (batch.slurm.dry_run) {
      auto plan = plan_slurm_batch(batch);
      if (!plan) {
        return std::move(plan).error();
      }
      Json document = plan->to_json();
      document["script_text"] = plan->script_text;
      outcome.text = format == Format::json ? json_text(document)
                                            : printable(slurm_plan_text(*plan), Multiline::yes);
      return outcome;
    }
    auto round = run_slurm_batch(batch);
    if (!round) {
      return std::move(round).error();
    }
    return batch_outcome(*round, format, std::move(outcome));
  }

  static Result<Outcome> batch_outcome(const RoundResult& round, Format format, Outcome outcome) {
    outcome.text = render(format, round_document(round, ReportDetail::full), render_options());
    // A batch succeeds when it ran; per-candidate failures are results, reported above.
    outcome.error = round_error(round);
    return outcome;
  }

  std::string m_problem;
  std::vector<std::string> m_kernels;
  std::string m_format;
  TableOptions m_words;
  bool m_slurm = false;
  std::optional<int> m_tasks;
  std::optional<int> m_gpus_per_task;
  std::string m_sbatch_options;
  bool m_requeue = false;
  bool m_dry_run = false;
  std::vector<CLI::Option*> m_slurm_options;
};

class ServeCommand final : public Command {
public:
  explicit ServeCommand(CLI::App& parent)
      : Command(parent.add_subcommand(
            "serve", "Keep standbys for PROBLEM (harnesses waiting under ncu) behind a socket in "
                     "--out; profile and batch with the same options use them")) {
    CLI::App* app = this->app();
    app->add_option("PROBLEM", m_problem, "problem.py")->required();
    m_words.add(app, k_scope_batch);
    app->add_option("--idle-timeout", m_idle, "Stop after this many seconds without a request")
        ->default_val(600)
        ->check(CLI::Range(1, 86400));
  }

  Result<Outcome> run() override {
    auto request = run_request(m_words.values());
    if (!request) {
      return std::move(request).error();
    }
    if (auto inputs = check_round_inputs(m_problem, {}); !inputs) {
      return std::move(inputs).error();
    }
    ServeSettings settings;
    settings.options = std::move(request->options);
    settings.problem = m_problem;
    settings.idle_timeout = std::chrono::seconds(m_idle);
    settings.log = [](const std::string& line) { print_message("kprof serve: ", line); };
    if (auto served = serve(settings); !served) {
      return served.error();
    }
    return Outcome{};
  }

private:
  std::string m_problem;
  int m_idle = 600;
  TableOptions m_words;
};

} // namespace

std::unique_ptr<Command> add_serve_command(CLI::App& app) {
  return std::make_unique<ServeCommand>(app);
}

std::unique_ptr<Command> add_profile_command(CLI::App& app) {
  return std::make_unique<ProfileCommand>(app);
}

std::unique_ptr<Command> add_model_command(CLI::App& app) {
  return std::make_unique<ModelCommand>(app);
}

std::unique_ptr<Command> add_batch_command(CLI::App& app) {
  return std::make_unique<BatchCommand>(app);
}

} // namespace kprof::cli

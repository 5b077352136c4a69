// kprof batch --slurm, the parts that act: asking Slurm (scontrol, sinfo, sbatch, squeue, sacct,
// scancel), writing the job directory, following the job and gathering each finished shard into
// one staged round (docs/slurm.md).
//
// Design notes. Slurm's commands run through run_process (argv vectors, timeouts); scancel runs
// even after Ctrl-C (ignore_cancellation). A task's end is read from squeue (live tasks) and, for
// the tasks that left it, sacct, or scontrol when the cluster keeps no accounting. A shard's
// results are its own `kprof batch` round (task-K/roundNNN/): each candidate's report.json or
// error.json is re-keyed to its index in the whole round and staged; a task that ended without
// them fails its candidates with Slurm's state. The history gets each shard in one transaction
// once the round has a result; until then the rows wait, so a re-run that produces nothing can
// still be kept beside a good round like any failed batch.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <functional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/process.hpp"
#include "kprof/report_view.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/slurm.hpp"
#include "kprof/status.hpp"
#include "kprof/strings.hpp"
#include "kprof/version.hpp"
#include "profile/round_writer.hpp"
#include "profile/run_metadata.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_script = "job.sbatch";
constexpr std::string_view k_plan = "plan.json";
constexpr std::string_view k_kernels = "kernels";     ///< a task's kernel paths, NUL-separated
constexpr std::string_view k_exit_code = "exit_code"; ///< written by the task's script
constexpr std::string_view k_task_log = "kprof.log";  ///< the task's kprof stderr
constexpr std::chrono::seconds k_command_timeout{60};
constexpr std::chrono::seconds k_cancel_wait{60};
constexpr int k_unseen_polls = 3;     ///< polls before a task nobody knows counts as ended
constexpr int k_squeue_failures = 30; ///< squeue failures in a row before kprof gives up

/// The JSON document in `path`; io error when it cannot be read, malformed_input when it is not
/// JSON.
Result<Json> read_json(const fs::path& path) {
  auto text = read_file(path);
  if (!text) {
    return std::move(text).error();
  }
  Json doc = Json::parse(*text, nullptr, false);
  if (doc.is_discarded()) {
    return make_error(ErrorCategory::malformed_input, fmt::format("{} is not JSON", path.string()));
  }
  return doc;
}

std::string task_dir_name(int task) {
  return fmt::format("task-{}", task);
}

/// Runs one Slurm command and returns its stdout; slurm error with its stderr when it cannot
/// start or fails.
Result<std::string> slurm_command(const std::vector<std::string>& argv, bool cleanup = false) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.timeout = k_command_timeout;
  spec.ignore_cancellation = cleanup;
  auto ran = run_process(spec);
  if (!ran) {
    return make_error(ErrorCategory::slurm,
                      fmt::format("cannot run {}: {}", argv.front(), ran.error().message),
                      "kprof batch --slurm needs Slurm's commands (sbatch, squeue, scontrol, "
                      "scancel, sinfo) on PATH, on a machine that can submit jobs");
  }
  if (ran->timed_out || ran->signaled || ran->exit_code != 0) {
    std::string said = std::string(ran->err.empty() ? ran->out : ran->err);
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) {
      said.pop_back();
    }
    if (said.find("Could not establish a configuration source") != std::string::npos) {
      return make_error(ErrorCategory::slurm,
                        fmt::format("{} found no Slurm configuration (no SLURM_CONF, no "
                                    "/etc/slurm/slurm.conf, no DNS SRV record of a slurmctld): "
                                    "run kprof where you can submit jobs, or set SLURM_CONF",
                                    argv.front()),
                        said);
    }
    return make_error(ErrorCategory::slurm,
                      fmt::format("{} failed ({}): {}", argv.front(), ran->describe(),
                                  said.empty() ? "no message" : said));
  }
  return std::move(ran->out);
}

std::string this_host() {
  std::array<char, HOST_NAME_MAX + 1> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) {
    return "localhost";
  }
  return name.data();
}

/// The partition named in the sbatch options (-pX, --partition=X; parse_slurm_settings refuses
/// a value in a word of its own).
std::optional<std::string> partition_of(const std::vector<std::string>& options) {
  for (const std::string& word : options) {
    if (word.rfind("--partition=", 0) == 0) {
      return word.substr(std::string_view("--partition=").size());
    }
    if (word.size() > 2 && word.rfind("-p", 0) == 0 && word[2] != '-') {
      return word.substr(2);
    }
  }
  return std::nullopt;
}

/// The option keys a Slurm round owns: each task gets its own.
bool owned_by_round(std::string_view key) {
  return key == "out_dir" || key == "round" || key == "record_history" || key == "logs_dir" ||
         key == "gpus" || key == "gpu" || key == "standby" || key == "standby_idle_seconds";
}

std::string compact_utc() {
  std::string stamp = utc_timestamp(); // 2026-11-30T19:03:37Z
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  return stamp;
}

/// `text` for a comment line of the script: a newline in a path must not end the comment and
/// start a command.
std::string comment_text(std::string_view text) {
  std::string safe;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    safe += byte < 0x20 || byte == 0x7f ? fmt::format("\\x{:02x}", byte) : std::string(1, c);
  }
  return safe;
}

std::string script_text(const SlurmPlan& plan, const std::vector<std::string>& task_words,
                        const std::filesystem::path& kprof, std::string_view options_line,
                        std::string_view output_line) {
  const std::string round_name = RoundLayout::round_name(plan.round);
  const int tasks = static_cast<int>(plan.shards.shards.size());
  std::string text;
  text += "#!/bin/bash\n";
  text += fmt::format("# kprof batch --slurm: {} of {}, {} candidates of {} in {} array task(s).\n",
                      round_name, comment_text(plan.dir.parent_path().parent_path().string()),
                      plan.kernels.size(), comment_text(plan.problem.string()), tasks);
  text += fmt::format("# Written by kprof {} on {}. Task K profiles the kernels listed\n",
                      k_version, utc_timestamp());
  text += "# (NUL-separated) in task-K/kernels into task-K/, with `kprof batch --no-history`.\n";
  text += "# To run it again yourself: sbatch [the options below] job.sbatch (one task:\n";
  text += "# sbatch --array=K ...); kprof gathers results only while it follows the job.\n";
  if (!options_line.empty()) {
    text += fmt::format("# Submitted with these sbatch options: {}\n", options_line);
  }
  text += fmt::format("#SBATCH --job-name=kprof-{}\n", round_name);
  text += fmt::format("#SBATCH --array=0-{}\n", tasks - 1);
  text += "#SBATCH --ntasks=1\n";
  if (plan.gpus_per_task > 0) {
    text += fmt::format("#SBATCH --gres=gpu:{}\n", plan.gpus_per_task);
  }
  text += output_line;
  text += "set -u\n";
  text += fmt::format("dir={}\n", shell_quote(plan.dir.string()));
  text += "task=\"$dir/task-$SLURM_ARRAY_TASK_ID\"\n";
  text += fmt::format("mapfile -d '' kernels <\"$task/{}\"\n", k_kernels);
  std::string command =
      fmt::format("{} batch {} \"${{kernels[@]}}\" --out \"$task\" --round {} "
                  "--no-history --format json",
                  shell_quote(kprof.string()), shell_quote(plan.problem.string()), plan.round);
  if (plan.gpus_per_task > 1) {
    std::string gpus;
    for (int gpu = 0; gpu < plan.gpus_per_task; ++gpu) {
      gpus += fmt::format("{}{}", gpu == 0 ? "" : ",", gpu);
    }
    command += " --gpus " + gpus; // the task's GPUs, as CUDA_VISIBLE_DEVICES lists them
  }
  for (const std::string& word : task_words) {
    command += " " + shell_quote(word);
  }
  text += command + fmt::format(" >\"$task/batch-output.json\" 2>\"$task/{}\"\n", k_task_log);
  text += "rc=$?\n";
  text += fmt::format("echo \"$rc\" >\"$task/{}\"\n", k_exit_code);
  text += "# kprof batch exits non-zero when every candidate failed; the task still ran, and its\n";
  text += "# round says why.\n";
  text += fmt::format("[ -s \"$task/{}/{}\" ] && exit 0\n", round_name, RoundLayout::k_batch);
  text += "exit \"$rc\"\n";
  return text;
}

} // namespace

Json SlurmPlan::to_json() const {
  Json out = Json::object();
  out["schema_version"] = 1;
  out["kind"] = "slurm_plan";
  out["round"] = round;
  out["problem_file"] = problem.string();
  out["dir"] = dir.string();
  out["script"] = script.string();
  out["sbatch"] = sbatch_argv;
  out["gpus_per_task"] = gpus_per_task;
  out["tasks_why"] = shards.why;
  Json tasks = Json::array();
  for (std::size_t k = 0; k < shards.shards.size(); ++k) {
    Json task = Json::object();
    task["task"] = k;
    task["candidates"] = shards.shards[k];
    Json files = Json::array();
    for (const int index : shards.shards[k]) {
      files.push_back(kernels[static_cast<std::size_t>(index)].string());
    }
    task["kernel_files"] = std::move(files);
    tasks.push_back(std::move(task));
  }
  out["tasks"] = std::move(tasks);
  Json limits_json = Json::object();
  limits_json["max_array_size"] =
      limits.max_array_size ? Json(*limits.max_array_size) : Json(nullptr);
  limits_json["max_job_count"] = limits.max_job_count ? Json(*limits.max_job_count) : Json(nullptr);
  limits_json["max_submit_jobs"] =
      limits.max_submit_jobs ? Json(*limits.max_submit_jobs) : Json(nullptr);
  out["limits"] = std::move(limits_json);
  return out;
}

std::string slurm_plan_text(const SlurmPlan& plan) {
  std::string text = fmt::format(
      "Slurm plan for {}: {} candidate(s) of {} in {} array task(s) ({}), {} GPU(s) per task\n",
      RoundLayout::round_name(plan.round), plan.kernels.size(), plan.problem.string(),
      plan.shards.shards.size(), plan.shards.why, plan.gpus_per_task);
  for (std::size_t k = 0; k < plan.shards.shards.size(); ++k) {
    const auto& shard = plan.shards.shards[k];
    text += fmt::format("  task {}: {} candidate(s):", k, shard.size());
    for (const int index : shard) {
      text += fmt::format(" cand{} ({})", index,
                          plan.kernels[static_cast<std::size_t>(index)].string());
    }
    text += "\n";
  }
  std::string command;
  for (const std::string& word : plan.sbatch_argv) {
    command += (command.empty() ? "" : " ") + shell_quote(word);
  }
  text += fmt::format("Would run: {}\n", command);
  text += fmt::format("Would write {} (and task-K/kernels, plan.json), nothing submitted "
                      "(--dry-run):\n\n",
                      plan.script.string());
  text += plan.script_text;
  return text;
}

namespace {

/// What a Slurm batch refuses of a local one's options: GPUs of this machine, standbys.
Result<void> refuse_local_options(const SlurmBatchRequest& request) {
  if (request.kernels.empty()) {
    return make_error(ErrorCategory::usage, "batch needs at least one kernel file");
  }
  for (const char* key : {"gpus", "gpu"}) {
    if (request.option_values.contains(key) && !request.option_values[key].is_null()) {
      return make_error(ErrorCategory::usage,
                        request.cli_names
                            ? "--gpus picks GPUs of this machine; with --slurm, Slurm gives each "
                              "task its GPUs (--gpus-per-task)"
                            : "gpus picks GPUs of this machine; with slurm, Slurm gives each task "
                              "its GPUs (gpus_per_task)");
    }
  }
  if (request.option_values.contains("standby") && request.option_values["standby"] == true) {
    return make_error(ErrorCategory::usage, "standby does not apply to a Slurm batch");
  }
  if (request.run.round < 0) {
    return make_error(ErrorCategory::usage, "--round must be 0 or more");
  }
  return {};
}

/// The words of every task's `kprof batch`, checked here rather than on the nodes: the options
/// the round does not own, relative paths made absolute (a task starts in sbatch's directory).
Result<std::vector<std::string>> task_words(const Json& option_values) {
  std::error_code ec;
  Json passed = Json::object();
  for (const auto& [key, value] : option_values.items()) {
    if (owned_by_round(key)) {
      continue;
    }
    passed[key] = value;
    if ((key == "ncu" || key == "python") && value.is_string() &&
        value.get<std::string>().find('/') != std::string::npos) {
      passed[key] = fs::absolute(value.get<std::string>(), ec).string();
    }
  }
  return option_words(passed);
}

/// The cluster's limits (scontrol show config), with the user's MaxSubmit association when
/// Slurm keeps accounts.
Result<SlurmLimits> cluster_limits() {
  auto config = slurm_command({"scontrol", "show", "config"});
  if (!config) {
    return std::move(config).error();
  }
  SlurmLimits limits = parse_scontrol_config(*config);
  if (config->find("accounting_storage/slurmdbd") == std::string::npos) {
    return limits;
  }
  const char* user = std::getenv("USER");
  auto association = slurm_command({"sacctmgr", "-nP", "show", "assoc",
                                    fmt::format("where user={}", user != nullptr ? user : "root"),
                                    "format=MaxSubmit"});
  if (association) {
    for (const std::string_view line : split_lines(*association)) {
      int value = 0;
      if (std::sscanf(std::string(line).c_str(), "%d", &value) == 1 && value > 0) {
        limits.max_submit_jobs = std::min(limits.max_submit_jobs.value_or(INT_MAX), value);
      }
    }
  }
  return limits;
}

/// The nodes of the batch's partition see the problem, the kernels, the output directory and
/// kprof itself at the same paths (a shared filesystem), or the batch is refused.
Result<void> check_nodes_see_the_paths(const SlurmPlan& plan, const SlurmSettings& settings,
                                       const fs::path& out_dir, const fs::path& kprof) {
  std::vector<std::string> sinfo = {"sinfo", "-h", "-N", "-o", "%N|%n|%P"};
  if (auto partition = partition_of(settings.sbatch_options)) {
    sinfo.insert(sinfo.end(), {"-p", *partition});
  }
  auto nodes_text = slurm_command(sinfo);
  if (!nodes_text) {
    return std::move(nodes_text).error();
  }
  std::vector<std::pair<std::string, fs::path>> paths = {{"problem file", plan.problem},
                                                         {"output directory", out_dir / "x"},
                                                         {"kprof executable", kprof}};
  for (const fs::path& kernel : plan.kernels) {
    paths.emplace_back("kernel file", kernel);
  }
  return check_paths_shared(paths, parse_sinfo_nodes(*nodes_text), this_host());
}

} // namespace

Result<SlurmPlan> plan_slurm_batch(const SlurmBatchRequest& request) {
  const SlurmSettings& settings = request.slurm;
  if (auto refused = refuse_local_options(request); !refused) {
    return refused.error();
  }
  auto inputs = check_round_inputs(request.problem, request.kernels);
  if (!inputs) {
    return std::move(inputs).error();
  }
  SlurmPlan plan;
  plan.problem = inputs->problem;
  plan.kernels = inputs->kernels;
  plan.round = request.run.round;
  plan.gpus_per_task = settings.gpus_per_task;
  std::error_code ec;
  const fs::path out_dir = fs::absolute(request.run.options.out_dir, ec);
  plan.dir =
      out_dir / "slurm" /
      fmt::format("{}-{}-{}", RoundLayout::round_name(plan.round), compact_utc(), ::getpid());
  plan.script = plan.dir / k_script;
  auto output_line = sbatch_output_line(plan.dir);
  if (!output_line) {
    return std::move(output_line).error();
  }
  fs::path kprof = settings.kprof;
  if (kprof.empty()) {
    kprof = fs::read_symlink("/proc/self/exe", ec);
    if (ec) {
      return make_error(ErrorCategory::internal,
                        fmt::format("cannot find kprof's own executable: {}", ec.message()));
    }
  }
  kprof = fs::absolute(kprof, ec);
  auto words = task_words(request.option_values);
  if (!words) {
    return std::move(words).error();
  }
  auto limits = cluster_limits();
  if (!limits) {
    return std::move(limits).error();
  }
  plan.limits = std::move(limits).value();
  auto shards = plan_shards(static_cast<int>(plan.kernels.size()), settings.tasks,
                            settings.gpus_per_task, plan.limits);
  if (!shards) {
    return std::move(shards).error();
  }
  plan.shards = std::move(shards).value();
  if (auto shared = check_nodes_see_the_paths(plan, settings, out_dir, kprof); !shared) {
    return shared.error();
  }

  std::string options_line;
  for (const std::string& option : settings.sbatch_options) {
    options_line += (options_line.empty() ? "" : " ") + shell_quote(option);
  }
  plan.script_text = script_text(plan, *words, kprof, options_line, *output_line);
  plan.sbatch_argv = {"sbatch", "--parsable"};
  plan.sbatch_argv.insert(plan.sbatch_argv.end(), settings.sbatch_options.begin(),
                          settings.sbatch_options.end());
  plan.sbatch_argv.push_back(plan.script.string());
  return plan;
}

namespace {

/// One array task as the submitter follows it.
struct TaskTrack {
  std::string job;       ///< the job it runs in now (the requeued job after --requeue)
  bool gathered = false; ///< its results (or failures) are in the round
  bool requeued = false;
  SlurmTaskState last;  ///< the last state seen
  int unseen_polls = 0; ///< polls in a row that found it neither live nor ended
};

/// "RUNNING" -> counts for the progress line.
struct Counts {
  int pending = 0;
  int running = 0;
  int done = 0;
  int failed = 0;
  bool operator==(const Counts&) const = default;
};

std::string last_line_of(const fs::path& file) {
  auto read = read_file(file);
  const std::string text = read ? *read : std::string();
  std::string last;
  for (const std::string_view line : split_lines(text)) {
    if (const std::string_view words = trim(line); !words.empty()) {
      last = std::string(words);
    }
  }
  return last;
}

std::string state_words(const SlurmTaskState& state) {
  std::string text = state.state.empty() ? std::string("an unknown state") : state.state;
  std::vector<std::string> extra;
  if (!state.reason.empty()) {
    extra.push_back("reason " + state.reason);
  }
  if (!state.exit.empty()) {
    extra.push_back("exit code " + state.exit);
  }
  for (std::size_t i = 0; i < extra.size(); ++i) {
    text += (i == 0 ? " (" : ", ") + extra[i];
  }
  return extra.empty() ? text : text + ")";
}

class SlurmRound {
public:
  SlurmRound(const SlurmBatchRequest& request, SlurmPlan plan, RoundWriter writer)
      : m_request(request), m_plan(std::move(plan)), m_writer(std::move(writer)) {
    m_candidates.resize(m_plan.kernels.size());
    m_failure_metadata.resize(m_plan.kernels.size(), Json::object());
    m_tasks.resize(m_plan.shards.shards.size());
  }

  Result<void> write_job_directory() const {
    if (auto made = kprof::create_directories(m_plan.dir); !made) {
      return made;
    }
    for (std::size_t k = 0; k < m_plan.shards.shards.size(); ++k) {
      const fs::path task_dir = m_plan.dir / task_dir_name(static_cast<int>(k));
      if (auto made = kprof::create_directories(task_dir); !made) {
        return made;
      }
      std::string list;
      for (const int index : m_plan.shards.shards[k]) {
        list += m_plan.kernels[static_cast<std::size_t>(index)].string();
        list.push_back('\0');
      }
      if (auto w = write_file_atomic(task_dir / k_kernels, list); !w) {
        return w;
      }
    }
    if (auto w = write_json_atomic(m_plan.dir / k_plan, m_plan.to_json()); !w) {
      return w;
    }
    if (auto w = write_file_atomic(m_plan.script, m_plan.script_text); !w) {
      return w;
    }
    std::error_code ec;
    fs::permissions(m_plan.script, fs::perms::owner_exec | fs::perms::group_exec,
                    fs::perm_options::add, ec);
    return {};
  }

  /// sbatch of `argv`; the job id.
  static Result<std::string> submit(const std::vector<std::string>& argv) {
    auto out = slurm_command(argv);
    if (!out) {
      return std::move(out).error();
    }
    std::string id(trim(*out));
    id = id.substr(0, id.find(';')); // "1234;cluster"
    if (id.empty() ||
        !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return make_error(ErrorCategory::slurm, fmt::format("sbatch printed no job id: {}", *out));
    }
    return id;
  }

  Result<RoundResult> run() {
    const auto started = std::chrono::steady_clock::now();
    auto job = submit(m_plan.sbatch_argv);
    if (!job) {
      return std::move(job).error();
    }
    m_jobs.push_back(*job);
    for (TaskTrack& task : m_tasks) {
      task.job = *job;
    }
    progress(fmt::format("submitted Slurm job {}: {} task(s), {} candidate(s); script {}", *job,
                         m_tasks.size(), m_plan.kernels.size(), m_plan.script.string()));
    bool interrupted = false;
    while (true) {
      if (cancellation_requested()) {
        interrupted = true;
        cancel_jobs();
        break;
      }
      if (auto followed = follow_once(); !followed) {
        // Never leave a job running that nobody gathers.
        cancel_jobs();
        return followed.error();
      }
      if (std::all_of(m_tasks.begin(), m_tasks.end(),
                      [](const TaskTrack& task) { return task.gathered; })) {
        break;
      }
      sleep_for(m_request.slurm.poll);
    }
    return finish(interrupted, started);
  }

private:
  void progress(const std::string& line) const {
    if (m_request.on_progress) {
      m_request.on_progress(line);
    }
  }

  static void sleep_for(std::chrono::milliseconds total) {
    const auto until = std::chrono::steady_clock::now() + total;
    while (!cancellation_requested() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  /// The live tasks of every job (squeue); nullopt while squeue fails (slurmctld busy or
  /// restarting), an error once it has failed k_squeue_failures times in a row.
  Result<std::optional<std::map<std::pair<std::string, int>, SlurmTaskState>>> live_tasks() {
    std::map<std::pair<std::string, int>, SlurmTaskState> live;
    for (const std::string& job : m_jobs) {
      auto out = slurm_command({"squeue", "-h", "-r", "-j", job, "-o", "%i|%T|%r"});
      if (!out) {
        // squeue refuses a job id it has forgotten ("Invalid job id"): none of it is live.
        if (out.error().message.find("Invalid job id") != std::string::npos) {
          continue;
        }
        if (++m_squeue_failures >= k_squeue_failures) {
          return out.error().with_context(
              fmt::format("squeue failed {} times in a row", k_squeue_failures));
        }
        progress(out.error().message + "; trying again");
        return std::optional<std::map<std::pair<std::string, int>, SlurmTaskState>>();
      }
      for (auto& [task, state] : parse_squeue(*out)) {
        live[{job, task}] = std::move(state);
      }
    }
    return std::optional(std::move(live));
  }

  /// The final states of `job`'s ended tasks: sacct, else scontrol (no accounting).
  static std::map<int, SlurmTaskState> ended_states(const std::string& job) {
    if (auto out = slurm_command(
            {"sacct", "-n", "-P", "-X", "-j", job, "--format", "JobID,State,ExitCode,Reason"});
        out) {
      auto states = parse_sacct(*out);
      if (!states.empty()) {
        return states;
      }
    }
    if (auto out = slurm_command({"scontrol", "show", "job", "-o", job}); out) {
      return parse_scontrol_jobs(*out);
    }
    return {};
  }

  Result<void> follow_once() {
    auto asked = live_tasks();
    if (!asked) {
      return asked.error();
    }
    if (!*asked) {
      return {}; // squeue did not answer this time
    }
    m_squeue_failures = 0;
    const auto* live = &**asked;
    std::map<std::string, std::map<int, SlurmTaskState>> ended_by_job;
    Counts counts;
    for (std::size_t k = 0; k < m_tasks.size(); ++k) {
      TaskTrack& task = m_tasks[k];
      if (task.gathered) {
        continue;
      }
      const auto found = live->find({task.job, static_cast<int>(k)});
      if (found != live->end() && !found->second.ended()) {
        task.last = found->second;
        task.unseen_polls = 0;
        (task.last.state == "PENDING" ? counts.pending : counts.running)++;
        continue;
      }
      auto job_states = ended_by_job.find(task.job);
      if (job_states == ended_by_job.end()) {
        job_states = ended_by_job.emplace(task.job, ended_states(task.job)).first;
      }
      const auto state = job_states->second.find(static_cast<int>(k));
      SlurmTaskState final_state = state != job_states->second.end() ? state->second : task.last;
      if (!final_state.ended() && found == live->end() && ++task.unseen_polls >= k_unseen_polls) {
        // Gone from squeue, and neither sacct nor scontrol knows it (no accounting, and the
        // record outlived MinJobAge): it ended; its files say how.
        final_state.state = "UNKNOWN";
        final_state.reason = "gone from squeue; neither sacct nor scontrol knows the task";
      }
      if (!final_state.ended()) {
        // Slurm has not settled the task yet (COMPLETING, or not yet in sacct): next round.
        if (found != live->end()) {
          task.last = found->second;
        }
        ++counts.running;
        continue;
      }
      task.last = final_state;
      if (auto gathered = gather(static_cast<int>(k)); !gathered) {
        return gathered;
      }
    }
    if (auto requeued = requeue_if_asked(*live); !requeued) {
      return requeued;
    }
    for (const TaskTrack& task : m_tasks) {
      if (task.gathered) {
        (task.last.completed() ? counts.done : counts.failed)++;
      }
    }
    if (!(counts == m_last_counts)) {
      m_last_counts = counts;
      const auto finished =
          std::count_if(m_candidates.begin(), m_candidates.end(),
                        [](const CandidateResult& c) { return c.attempts > 0 || c.error; });
      progress(fmt::format("Slurm job {}: {} pending, {} running, {} done, {} failed; {}/{} "
                           "candidates done",
                           fmt::join(m_jobs, "+"), counts.pending, counts.running, counts.done,
                           counts.failed, finished, m_candidates.size()));
    }
    return {};
  }

  /// With --requeue, once no task of the first job runs any more, resubmits the shards of its
  /// tasks that ended without results (once).
  Result<void> requeue_if_asked(const std::map<std::pair<std::string, int>, SlurmTaskState>& live) {
    if (!m_request.slurm.requeue || m_jobs.size() > 1 || m_pending_requeue.empty()) {
      return {};
    }
    for (const auto& [key, state] : live) {
      if (key.first == m_jobs.front() && !state.ended()) {
        return {}; // wait for the whole first job
      }
    }
    std::string indices;
    for (const int task : m_pending_requeue) {
      indices += fmt::format("{}{}", indices.empty() ? "" : ",", task);
    }
    std::vector<std::string> argv = m_plan.sbatch_argv;
    argv.insert(argv.end() - 1, "--array=" + indices);
    auto job = submit(argv);
    if (!job) {
      return job.error();
    }
    m_jobs.push_back(*job);
    for (const int task : m_pending_requeue) {
      TaskTrack& track = m_tasks[static_cast<std::size_t>(task)];
      track.job = *job;
      track.gathered = false;
      track.requeued = true;
      track.last = SlurmTaskState{};
    }
    progress(fmt::format("resubmitted task(s) {} as Slurm job {} (--requeue)", indices, *job));
    m_pending_requeue.clear();
    return {};
  }

  /// Takes in what task `task` left: each candidate of its shard with its report, or failed
  /// with the error its kprof wrote or the one Slurm's state tells (task_failure). The writer
  /// gets them in finish(), once the round's destination is settled.
  Result<void> gather(int task) {
    TaskTrack& track = m_tasks[static_cast<std::size_t>(task)];
    const fs::path task_dir = m_plan.dir / task_dir_name(task);
    const fs::path shard_round = RoundLayout(task_dir).round_dir(m_plan.round);
    const std::vector<int>& shard = m_plan.shards.shards[static_cast<std::size_t>(task)];
    std::error_code ec;
    const bool has_results = fs::exists(shard_round / RoundLayout::k_batch, ec);
    if (!has_results && m_request.slurm.requeue && !track.requeued) {
      track.gathered = true; // for now; requeue_if_asked() resubmits it
      m_pending_requeue.push_back(task);
      progress(fmt::format("task {} of Slurm job {} ended {} without results; it will be "
                           "resubmitted",
                           task, track.job, state_words(track.last)));
      return {};
    }
    track.gathered = true;
    const Json slurm_facts = {{"job", track.job},          {"task", task},
                              {"state", track.last.state}, {"reason", track.last.reason},
                              {"exit", track.last.exit},   {"shard_dir", task_dir.string()},
                              {"requeued", track.requeued}};
    const std::string ended =
        fmt::format("Slurm task {} of job {} ended {}", task, track.job, state_words(track.last));
    for (std::size_t local = 0; local < shard.size(); ++local) {
      const auto index = static_cast<std::size_t>(shard[local]);
      CandidateResult& candidate = m_candidates[index];
      candidate = CandidateResult{};
      candidate.index = shard[local];
      candidate.kernel = m_plan.kernels[index];
      const fs::path from = RoundLayout::candidate_dir(shard_round, static_cast<int>(local));
      const auto document = [&](std::string_view name) -> std::optional<Json> {
        auto read = has_results ? read_json(from / name) : Result<Json>(Json());
        if (read && read->is_object() && json_read::member(*read, "metadata") != nullptr &&
            (*read)["metadata"].is_object()) {
          return std::move(read).value();
        }
        return std::nullopt;
      };
      if (auto report = document(RoundLayout::k_report)) {
        take_report(candidate, std::move(*report), slurm_facts);
      } else {
        take_failure(candidate, document(RoundLayout::k_error), slurm_facts,
                     task_failure_if(ended, task_dir, track.last.completed()));
      }
      m_good = m_good || candidate.status != CandidateStatus::failed;
    }
    return {};
  }

  /// A candidate whose task wrote its report.
  void take_report(CandidateResult& candidate, Json report, const Json& slurm_facts) {
    Json& metadata = report["metadata"];
    metadata["candidate"] = candidate.index;
    metadata["slurm"] = slurm_facts;
    if (!m_run_metadata) {
      m_run_metadata = metadata;
    }
    auto status = parse_candidate_status(metadata.value("status", std::string("ok")));
    candidate.status = status && *status == CandidateStatus::partial ? CandidateStatus::partial
                                                                     : CandidateStatus::ok;
    candidate.gpu = metadata.value("gpu_index", 0);
    candidate.attempts = std::max(1, metadata.value("attempts", 1));
    if (metadata.contains("error")) {
      candidate.error = error_from_json(metadata["error"]);
    }
    candidate.report = std::move(report);
  }

  /// A candidate without a report: the error its task's kprof wrote (`written`, its error.json),
  /// or, when the task did not complete or wrote none, what `slurm_error` makes of it.
  void take_failure(
      CandidateResult& candidate, std::optional<Json> written, const Json& slurm_facts,
      const std::function<std::optional<Error>(const std::optional<Error>&)>& slurm_error) {
    candidate.status = CandidateStatus::failed;
    Json metadata = Json::object();
    if (written) {
      metadata = std::move((*written)["metadata"]);
      candidate.error = error_from_json(written->value("error", Json(nullptr)));
      candidate.attempts = metadata.value("attempts", 0);
    }
    if (auto replaced = slurm_error(candidate.error)) {
      candidate.error = *replaced;
    }
    candidate.attempts = std::max(1, candidate.attempts);
    metadata["round"] = m_plan.round;
    metadata["candidate"] = candidate.index;
    metadata["kernel_file"] = candidate.kernel.string();
    metadata["problem_file"] = m_plan.problem.string();
    metadata["slurm"] = slurm_facts;
    m_failure_metadata[static_cast<std::size_t>(candidate.index)] = std::move(metadata);
  }

  /// The error of a failed candidate of a task that did not complete, or wrote no error: its
  /// own error otherwise (an empty optional keeps it).
  static std::function<std::optional<Error>(const std::optional<Error>&)>
  task_failure_if(const std::string& ended, const fs::path& task_dir, bool completed) {
    return [=](const std::optional<Error>& own) -> std::optional<Error> {
      if (completed && own) {
        return std::nullopt;
      }
      return task_failure(ended, task_dir, own);
    };
  }

  /// The error of a candidate whose task ended without its result: Slurm's state, and what the
  /// task's kprof said (its exit code's category when it ran and failed as a whole).
  static Error task_failure(const std::string& ended, const fs::path& task_dir,
                            const std::optional<Error>& own) {
    std::string said = last_line_of(task_dir / k_task_log);
    std::string detail = fmt::format("task directory {}", task_dir.string());
    if (!said.empty()) {
      detail += fmt::format("; its kprof said: {}", said);
    }
    if (own) {
      return make_error(ErrorCategory::slurm,
                        fmt::format("{} before this candidate finished ({})", ended, own->message),
                        detail);
    }
    return make_error(ErrorCategory::slurm, fmt::format("{} without results", ended), detail);
  }

  void cancel_jobs() {
    progress(fmt::format("interrupted: cancelling Slurm job {}", fmt::join(m_jobs, "+")));
    std::vector<std::string> argv = {"scancel"};
    argv.insert(argv.end(), m_jobs.begin(), m_jobs.end());
    if (auto cancelled = slurm_command(argv, true); !cancelled) {
      progress(cancelled.error().message);
    }
    const auto deadline = std::chrono::steady_clock::now() + k_cancel_wait;
    while (std::chrono::steady_clock::now() < deadline) {
      bool any = false;
      for (const std::string& job : m_jobs) {
        auto out = slurm_command({"squeue", "-h", "-j", job, "-o", "%i"}, true);
        any = any || (out && !trim(*out).empty());
      }
      if (!any) {
        progress("no task of the job is left in squeue");
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    progress(fmt::format("tasks of Slurm job {} were still in squeue {} s after scancel",
                         fmt::join(m_jobs, "+"), k_cancel_wait.count()));
  }

  Result<RoundResult> finish(bool interrupted, std::chrono::steady_clock::time_point started) {
    // Tasks never gathered (Ctrl-C): what they finished is still gathered, the rest failed.
    for (std::size_t k = 0; k < m_tasks.size(); ++k) {
      if (!m_tasks[k].gathered || std::find(m_pending_requeue.begin(), m_pending_requeue.end(),
                                            static_cast<int>(k)) != m_pending_requeue.end()) {
        m_tasks[k].gathered = false;
        if (m_tasks[k].last.state.empty() || !m_tasks[k].last.ended()) {
          m_tasks[k].last.state = interrupted ? "CANCELLED" : m_tasks[k].last.state;
          m_tasks[k].last.reason = interrupted ? "kprof was interrupted (scancel)" : "";
        }
        m_tasks[k].requeued = true; // never requeue now
        if (auto gathered = gather(static_cast<int>(k)); !gathered) {
          return gathered.error();
        }
      }
    }
    m_writer.settle(m_good);
    for (const std::string& line : m_writer.notes()) {
      progress(line);
    }
    Json metadata = Json::object();
    if (m_run_metadata) {
      for (const char* key : {"ncu", "ncu_version", "clock_control", "metric_check", "select",
                              "python", "warmup", "inputs", "cast"}) {
        if (m_run_metadata->contains(key)) {
          metadata[key] = (*m_run_metadata)[key];
        }
      }
    }
    metadata["round"] = m_plan.round;
    metadata["problem_file"] = m_plan.problem.string();
    const double wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    metadata["wall_seconds"] = wall_seconds;
    metadata["slurm"] = {{"jobs", m_jobs},
                         {"dir", m_plan.dir.string()},
                         {"script", m_plan.script.string()},
                         {"tasks", m_plan.shards.shards.size()},
                         {"gpus_per_task", m_plan.gpus_per_task},
                         {"interrupted", interrupted}};
    for (std::size_t index = 0; index < m_candidates.size(); ++index) {
      if (auto added = m_writer.add(std::move(m_candidates[index]), m_failure_metadata[index]);
          !added) {
        return added.error();
      }
    }
    CommitSettings settings;
    settings.record_history = m_request.run.options.record_history;
    settings.logs_dir = m_request.run.options.logs_dir;
    settings.kernelagent_logs_only = m_request.run.options.kernelagent_logs_only;
    return m_writer.commit(std::move(metadata), wall_seconds, settings);
  }

  const SlurmBatchRequest& m_request;
  SlurmPlan m_plan;
  RoundWriter m_writer;
  std::vector<CandidateResult> m_candidates;
  std::vector<TaskTrack> m_tasks;
  std::vector<std::string> m_jobs;
  std::vector<int> m_pending_requeue;
  std::vector<Json> m_failure_metadata; ///< per candidate without a report: its metadata
  std::optional<Json> m_run_metadata;
  Counts m_last_counts{-1, -1, -1, -1};
  bool m_good = false;
  int m_squeue_failures = 0;
};

} // namespace

Result<RoundResult> run_slurm_batch(const SlurmBatchRequest& request) {
  auto plan = plan_slurm_batch(request);
  if (!plan) {
    return std::move(plan).error();
  }
  std::error_code ec;
  const fs::path out_dir = fs::absolute(request.run.options.out_dir, ec);
  if (auto prepared = prepare_run_directory(out_dir); !prepared) {
    return prepared.error();
  }
  auto writer = RoundWriter::begin(RoundLayout(out_dir), request.run.round, true);
  if (!writer) {
    return std::move(writer).error();
  }
  SlurmRound round(request, std::move(plan).value(), std::move(writer).value());
  if (auto written = round.write_job_directory(); !written) {
    return written.error();
  }
  return round.run();
}

} // namespace kprof

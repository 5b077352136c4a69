// kprof: `kprof batch --slurm`, a batch round spread over a Slurm cluster (docs/slurm.md).
//
// The submitting process splits the candidates into shards, writes an sbatch job-array script
// into the run directory (out_dir/slurm/roundNNN-<tag>/job.sbatch, kept and resubmittable),
// submits it, follows it with squeue (and sacct, else scontrol, for the tasks that ended), and
// gathers each shard's results into one round of out_dir as the shard finishes. Each array task
// runs `kprof batch` on its shard, on the GPUs Slurm gave it, into its own shard directory, with
// --no-history: only the submitting process writes kprof.db, one transaction per finished shard.
// Ctrl-C cancels the job (scancel) and waits until Slurm shows none of its tasks.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/options.hpp"
#include "kprof/profiler.hpp"

namespace kprof {

/// How the round uses Slurm.
struct SlurmSettings {
  int tasks = 0;         ///< array tasks; 0: one per 8 candidates per GPU (within the limits)
  int gpus_per_task = 1; ///< --gres=gpu:G for every task; the task's kprof uses all G
  /// sbatch options passed through as given (partition, account, time, qos, ...), split into
  /// words like a shell would split them (quotes and backslashes; no expansion).
  std::vector<std::string> sbatch_options;
  bool requeue = false; ///< resubmit, once, the shards of tasks that ended without results
  bool dry_run = false; ///< plan and script only: nothing is written or submitted
  std::chrono::milliseconds poll{2000};
  /// The kprof executable the tasks run; empty: this process's own executable.
  std::filesystem::path kprof;
};

/// Slurm settings from a JSON object {tasks, gpus_per_task, options (a string or a list of
/// words), requeue, dry_run, poll_seconds, kprof}: absent keys keep their defaults. usage error
/// naming the key for an unknown key (with the known ones), a wrong type or a value out of range
/// (gpus_per_task from 1: a task without a GPU cannot profile; NaN and big_whole_number()s are
/// out of every range), and naming the word for sbatch options kprof will not pass on: a word
/// that is not an option ("rm", "gpu" of "-p gpu": give "--partition=gpu" or "-pgpu"), one with
/// a control character or a character only a shell reads (; $ ` < > \ ' " !), and --array or
/// --wrap, which would change what is submitted. The CLI and Python both come through here,
/// before anything is written.
Result<SlurmSettings> parse_slurm_settings(const Json& values);

/// The job script's "#SBATCH --output=..." line (with its newline) for the task logs,
/// DIR/task-%a/slurm-%A_%a.out: '%' in `dir` doubled (Slurm's filename patterns), the word in
/// double quotes when it holds anything beyond [A-Za-z0-9@%+=:,./_-] (sbatch reads #SBATCH lines
/// itself: quotes group, a backslash escapes, '#' starts a comment), a '"' escaped. usage error
/// for a directory no #SBATCH line can name: a control character (the line would end there) or
/// a backslash (Slurm would then leave %A and %a unreplaced).
Result<std::string> sbatch_output_line(const std::filesystem::path& dir);

/// `text` split into words as a POSIX shell splits a command line without expansions: blanks
/// separate words, single quotes keep everything, double quotes keep everything but \" \\ \$ \`,
/// a backslash outside quotes keeps the next character. usage error for an unclosed quote.
Result<std::vector<std::string>> split_shell_words(std::string_view text);

/// `word` quoted for a POSIX shell (single quotes; a word of safe characters stays as it is).
std::string shell_quote(std::string_view word);

/// The cluster's limits on a submission, from `scontrol show config` (and sacctmgr when it
/// answers); nullopt where Slurm did not say.
struct SlurmLimits {
  std::optional<int> max_array_size;  ///< array indices must be below it
  std::optional<int> max_job_count;   ///< jobs (array tasks count one each) slurmctld holds
  std::optional<int> max_submit_jobs; ///< the user's association limit (sacctmgr), when known
};

/// The limits in `scontrol show config` output ("MaxArraySize = 1001").
SlurmLimits parse_scontrol_config(std::string_view text);

/// The candidates (indices into the round's kernels) of each array task.
struct ShardPlan {
  std::vector<std::vector<int>> shards; ///< task k runs shards[k]; sizes differ by at most one
  std::string why;                      ///< how the task count was chosen, for the plan's text
};

/// Splits `candidates` into contiguous shards: `requested` tasks (0: one per 8 candidates per
/// GPU), never more than the candidates nor than the limits allow. usage error for a requested
/// count below 0 or no candidates.
Result<ShardPlan> plan_shards(int candidates, int requested, int gpus_per_task,
                              const SlurmLimits& limits);

/// Where a path lives, for the check that compute nodes can see it.
enum class FilesystemKind {
  memory,  ///< tmpfs, ramfs: this node's memory
  local,   ///< a local disk filesystem (ext4, xfs, btrfs, overlay, zfs, ...)
  network, ///< NFS, Lustre, GPFS, BeeGFS, CephFS, CIFS, FUSE, ...
};

/// The kind of filesystem with statfs magic number `magic` (anything not known to be memory or
/// network counts as local).
FilesystemKind filesystem_kind(long magic);

/// The kind and name ("tmpfs", "ext4", "nfs") of the filesystem holding `path` (or its nearest
/// existing parent). io error when statfs fails.
Result<std::pair<FilesystemKind, std::string>> filesystem_of(const std::filesystem::path& path);

/// One node of the partition: its Slurm name and its host name.
struct SlurmNode {
  std::string name;
  std::string hostname;
};

/// The nodes in `sinfo -h -N -o '%N|%n|%P'` output (a node listed once per partition: kept
/// once). When rows name partitions and one is the default ("debug*"), only the default
/// partition's nodes (sinfo without -p lists every partition; sbatch without -p uses the default).
std::vector<SlurmNode> parse_sinfo_nodes(std::string_view text);

/// Checks that every path is on a filesystem the compute nodes see: memory filesystems never,
/// local disks only when every node in `nodes` is this host (`this_host`, or localhost). usage
/// error naming the path, its filesystem and the nodes that could not see it.
Result<void>
check_paths_shared(const std::vector<std::pair<std::string, std::filesystem::path>>& paths,
                   const std::vector<SlurmNode>& nodes, std::string_view this_host);

/// The state of one array task as Slurm reports it.
struct SlurmTaskState {
  std::string state;  ///< PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
  std::string reason; ///< squeue/scontrol's reason ("None" dropped), may be empty
  std::string exit;   ///< "0:0" (code:signal), may be empty
  [[nodiscard]] bool ended() const;
  [[nodiscard]] bool completed() const { return state == "COMPLETED"; }
};

/// `squeue -h -r -j JOB -o '%i|%T|%r'` output ("41_3|RUNNING|None"): task id -> state (live
/// tasks only).
std::map<int, SlurmTaskState> parse_squeue(std::string_view text);
/// `sacct -n -P -X -j JOB --format=JobID,State,ExitCode,Reason` output: task id -> state
/// ("CANCELLED by 0" read as CANCELLED).
std::map<int, SlurmTaskState> parse_sacct(std::string_view text);
/// `scontrol show job -o JOB` output (one line per array task; tasks not yet split off share a
/// line whose ArrayTaskId is a range, "4-5"): task id -> state.
std::map<int, SlurmTaskState> parse_scontrol_jobs(std::string_view text);

/// What the round does on Slurm: the shards, the script and where everything goes. Made by
/// plan_slurm_batch(); printed by --dry-run.
struct SlurmPlan {
  std::filesystem::path dir;    ///< out_dir/slurm/roundNNN-<tag>/
  std::filesystem::path script; ///< dir/job.sbatch
  std::string script_text;
  std::vector<std::string> sbatch_argv; ///< sbatch --parsable [options] script
  ShardPlan shards;
  SlurmLimits limits;
  std::vector<std::filesystem::path> kernels; ///< absolute, in round order
  std::filesystem::path problem;
  int round = 0;
  int gpus_per_task = 1;

  /// The plan as a document (kind "slurm_plan"): round, dir, script, sbatch argv, tasks with
  /// their candidates, the limits.
  [[nodiscard]] Json to_json() const;
};

/// The plan for a person (--dry-run): the tasks with their candidates, the sbatch command and
/// the script.
std::string slurm_plan_text(const SlurmPlan& plan);

/// A batch round on Slurm.
struct SlurmBatchRequest {
  RunRequest run; ///< the parsed options: out_dir, round, record_history, logs_dir, select
  /// The options as given (option key -> value, as parse_run_options() takes them): passed on
  /// to every task's `kprof batch` as its words, less those the round owns (out_dir, round,
  /// record_history, logs_dir, gpus).
  Json option_values = Json::object();
  std::filesystem::path problem;
  std::vector<std::filesystem::path> kernels;
  SlurmSettings slurm;
  /// Progress lines ("slurm job 41: 1 pending, 2 running, 1 done, 0 failed; 2/8 candidates").
  std::function<void(const std::string&)> on_progress;
  /// Messages name options as the command line does ("--gpus"), else by their keys ("gpus",
  /// Python's keywords).
  bool cli_names = true;
};

/// The plan without side effects (no file written, nothing submitted), but with the checks: the
/// inputs exist (input_not_found), the option values are valid and not machine-local (usage:
/// --gpus), Slurm's commands answer (slurm error), the shards fit the limits, the paths are
/// visible to the partition's nodes (usage).
Result<SlurmPlan> plan_slurm_batch(const SlurmBatchRequest& request);

/// Plans, writes the script and the shard lists, submits, follows and gathers the round (see
/// the file comment). The RoundResult is returned even when candidates failed: a task that
/// ended without results fails its candidates with a slurm error naming Slurm's state, reason
/// and exit code. A Result error means the round could not be submitted (slurm error with
/// sbatch's message, or a planning error above). After Ctrl-C the job is cancelled and the
/// round holds what finished.
Result<RoundResult> run_slurm_batch(const SlurmBatchRequest& request);

} // namespace kprof

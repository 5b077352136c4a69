// kprof batch --slurm, the parts without side effects: settings, shell words, the cluster's
// limits, shards, filesystems, and reading squeue / sacct / scontrol / sinfo output.
#include "kprof/slurm.hpp"

#include <sys/statfs.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "kprof/strings.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

Error settings_error(std::string_view key, std::string_view what) {
  return make_error(ErrorCategory::usage, fmt::format("slurm {} {}", key, what));
}

/// Characters that only a shell reads. The sbatch options reach sbatch as words (an argv),
/// never through a shell, so one of these would be passed on as it is, which is never what was
/// meant. '&', '|', '(', ')', '[', ']', '*' and '?' stay allowed: Slurm's own syntax uses them
/// (--constraint, --nodelist, --dependency).
constexpr std::string_view k_shell_characters = ";$`<>\\'\"!";

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

/// usage error for a word that kprof must not pass to sbatch: not an option, something only a
/// shell reads, or an option that would change what is submitted (--array, --wrap).
Result<void> check_sbatch_word(const std::string& word) {
  const auto refuse = [&](std::string_view why) -> Error {
    return make_error(ErrorCategory::usage, fmt::format("slurm options: '{}' {}", word, why));
  };
  if (word.size() < 2 || word.front() != '-' || word == "--") {
    return refuse("is not an sbatch option; each word must be one, so give a value with '=' or "
                  "attached (--partition=gpu, -pgpu)");
  }
  for (const char c : word) {
    if (is_control(c)) {
      return refuse("holds a control character (a newline?), which no sbatch option takes");
    }
    if (k_shell_characters.find(c) != std::string_view::npos) {
      return refuse(fmt::format("holds '{}', which only a shell reads: kprof passes the options "
                                "to sbatch as words, never through a shell",
                                c));
    }
  }
  // The long option's name, which sbatch also takes abbreviated ("--arr=0-3"), or the letter.
  const bool is_long = word[1] == '-';
  const std::string_view name = is_long ? std::string_view(word).substr(2, word.find('=') - 2)
                                        : std::string_view(word).substr(1, 1);
  const auto names = [&](std::string_view option, std::string_view letter) {
    return is_long ? name.size() >= 2 && option.substr(0, name.size()) == name : name == letter;
  };
  if (names("array", "a")) {
    return refuse("sets the job array, which kprof makes itself (one task per shard: tasks)");
  }
  if (names("wrap", "")) {
    return refuse("replaces the job's script, which kprof writes itself");
  }
  return {};
}

std::optional<int> to_int(std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto parsed = std::from_chars(text.data(), end, value);
  if (parsed.ec != std::errc() || parsed.ptr != end) {
    return std::nullopt;
  }
  return value;
}

/// The lines of `text`, each trimmed.
std::vector<std::string_view> trimmed_lines(std::string_view text) {
  std::vector<std::string_view> lines = split_lines(text);
  for (std::string_view& line : lines) {
    line = trim(line);
  }
  return lines;
}

std::vector<std::string_view> fields_of(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  while (true) {
    const auto end = line.find(separator);
    fields.push_back(line.substr(0, end));
    if (end == std::string_view::npos) {
      return fields;
    }
    line.remove_prefix(end + 1);
  }
}

/// The array task id of "1234_5" (or of a bare "5"); nullopt for "1234_[0-3]", "1234.batch".
std::optional<int> task_of(std::string_view job_id) {
  const auto underscore = job_id.rfind('_');
  if (underscore != std::string_view::npos) {
    job_id.remove_prefix(underscore + 1);
  }
  return to_int(job_id);
}

/// The task ids of scontrol's ArrayTaskId: "3", or tasks not yet split off the array as ranges
/// ("4-5", "4,6-9%2": the "%2" is a throttle).
std::vector<int> task_ids(std::string_view text) {
  text = text.substr(0, text.find('%'));
  std::vector<int> ids;
  for (const std::string_view part : fields_of(text, ',')) {
    const auto dash = part.find('-');
    const auto first = to_int(part.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : to_int(part.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 1000000) {
      continue;
    }
    for (int id = *first; id <= *last; ++id) {
      ids.push_back(id);
    }
  }
  return ids;
}

std::string reason_of(std::string_view reason) {
  reason = trim(reason);
  if (reason == "None" || reason == "(null)") {
    return {};
  }
  return std::string(reason);
}

/// The "options" setting: sbatch options as one string of shell words or a list of words, each
/// an sbatch option that kprof lets through (check_sbatch_word).
Result<std::vector<std::string>> sbatch_options_of(const Json& value) {
  std::vector<std::string> words;
  if (value.is_string()) {
    auto split = split_shell_words(value.get<std::string>());
    if (!split) {
      return std::move(split).error();
    }
    words = std::move(split).value();
  } else if (value.is_array() &&
             std::all_of(value.begin(), value.end(), [](const Json& w) { return w.is_string(); })) {
    words = value.get<std::vector<std::string>>();
  } else {
    return settings_error("options", "must be a string of sbatch options or a list of words");
  }
  for (const std::string& word : words) {
    if (auto checked = check_sbatch_word(word); !checked) {
      return std::move(checked).error();
    }
  }
  return words;
}

} // namespace

Result<SlurmSettings> parse_slurm_settings(const Json& values) {
  if (!values.is_object()) {
    return make_error(ErrorCategory::usage, "slurm settings must be a mapping");
  }
  SlurmSettings settings;
  for (const auto& item : values.items()) {
    // Plain references, not a structured binding: the lambdas below capture them.
    const std::string& key = item.key();
    const Json& value = item.value();
    const auto whole = [&](int min, int max) -> Result<int> {
      if (!value.is_number_integer() || value.get<std::int64_t>() < min ||
          value.get<std::int64_t>() > max) {
        return settings_error(key, fmt::format("must be a whole number from {} to {}, not {}", min,
                                               max, option_value_text(value)));
      }
      return static_cast<int>(value.get<std::int64_t>());
    };
    const auto flag = [&]() -> Result<bool> {
      if (!value.is_boolean()) {
        return settings_error(
            key, fmt::format("must be true or false, not {}", option_value_text(value)));
      }
      return value.get<bool>();
    };
    if (key == "tasks") {
      auto tasks = whole(0, 1000000);
      if (!tasks) {
        return std::move(tasks).error();
      }
      settings.tasks = *tasks;
    } else if (key == "gpus_per_task") {
      auto gpus = whole(1, 64); // a task without a GPU cannot profile
      if (!gpus) {
        return std::move(gpus).error();
      }
      settings.gpus_per_task = *gpus;
    } else if (key == "options") {
      auto words = sbatch_options_of(value);
      if (!words) {
        return std::move(words).error();
      }
      settings.sbatch_options = std::move(words).value();
    } else if (key == "requeue") {
      auto on = flag();
      if (!on) {
        return std::move(on).error();
      }
      settings.requeue = *on;
    } else if (key == "dry_run") {
      auto on = flag();
      if (!on) {
        return std::move(on).error();
      }
      settings.dry_run = *on;
    } else if (key == "poll_seconds") {
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0.05 ||
          value.get<double>() > 600) {
        return settings_error(key, fmt::format("must be a number of seconds from 0.05 to 600, "
                                               "not {}",
                                               option_value_text(value)));
      }
      settings.poll = std::chrono::milliseconds(std::llround(value.get<double>() * 1000.0));
    } else if (key == "kprof") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        return settings_error(key, "must be the path of a kprof executable");
      }
      if (auto path = check_path_text(value.get<std::string>(), "slurm kprof"); !path) {
        return std::move(path).error();
      }
      settings.kprof = value.get<std::string>();
    } else {
      return make_error(ErrorCategory::usage,
                        fmt::format("unknown slurm setting '{}' (valid: tasks, gpus_per_task, "
                                    "options, requeue, dry_run, poll_seconds, kprof)",
                                    key));
    }
  }
  return settings;
}

Result<std::vector<std::string>> split_shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) {
        words.push_back(std::move(word));
        word.clear();
        in_word = false;
      }
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const auto end = text.find('\'', i + 1);
      if (end == std::string_view::npos) {
        return make_error(ErrorCategory::usage,
                          fmt::format("unclosed ' in the sbatch options: {}", text));
      }
      word.append(text.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string_view("\"\\$`").find(text[j + 1]) != std::string_view::npos) {
          ++j;
        }
        word.push_back(text[j]);
      }
      if (j >= text.size()) {
        return make_error(ErrorCategory::usage,
                          fmt::format("unclosed \" in the sbatch options: {}", text));
      }
      i = j;
    } else if (c == '\\' && i + 1 < text.size()) {
      word.push_back(text[++i]);
    } else {
      word.push_back(c);
    }
  }
  if (in_word) {
    words.push_back(std::move(word));
  }
  return words;
}

Result<std::string> sbatch_output_line(const fs::path& dir) {
  const std::string text = dir.string();
  for (const char c : text) {
    if (is_control(c) || c == '\\') {
      return make_error(
          ErrorCategory::usage,
          fmt::format("the output directory {} holds {}, which the job script's #SBATCH "
                      "--output line cannot name{}: choose another --out",
                      shell_quote(text), c == '\\' ? "a backslash" : "a control character",
                      c == '\\' ? " (Slurm would leave %A and %a in it unreplaced)" : ""));
    }
  }
  std::string pattern;
  for (const char c : text) {
    pattern += c == '%' ? std::string("%%") : std::string(1, c); // a filename pattern's '%'
  }
  pattern += "/task-%a/slurm-%A_%a.out";
  const bool plain = std::all_of(pattern.begin(), pattern.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
  });
  if (!plain) {
    // sbatch reads an #SBATCH line itself: quotes group, a backslash escapes, '#' outside
    // quotes starts a comment. Inside double quotes only '"' needs its backslash.
    std::string quoted = "\"";
    for (const char c : pattern) {
      quoted += c == '"' ? std::string("\\\"") : std::string(1, c);
    }
    pattern = quoted + "\"";
  }
  return fmt::format("#SBATCH --output={}\n", pattern);
}

std::string shell_quote(std::string_view word) {
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
  });
  if (safe) {
    return std::string(word);
  }
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted.push_back(c);
    }
  }
  quoted += "'";
  return quoted;
}

SlurmLimits parse_scontrol_config(std::string_view text) {
  SlurmLimits limits;
  for (const std::string_view line : trimmed_lines(text)) {
    const auto equals = line.find('=');
    if (equals == std::string_view::npos) {
      continue;
    }
    const std::string_view key = trim(line.substr(0, equals));
    const std::optional<int> value = to_int(trim(line.substr(equals + 1)));
    if (key == "MaxArraySize") {
      limits.max_array_size = value;
    } else if (key == "MaxJobCount") {
      limits.max_job_count = value;
    }
  }
  return limits;
}

Result<ShardPlan> plan_shards(int candidates, int requested, int gpus_per_task,
                              const SlurmLimits& limits) {
  if (candidates <= 0) {
    return make_error(ErrorCategory::usage, "a Slurm batch needs at least one candidate");
  }
  if (requested < 0) {
    return make_error(ErrorCategory::usage, "--tasks must be 0 (automatic) or more");
  }
  ShardPlan plan;
  constexpr int k_per_gpu = 8;
  int tasks = requested;
  if (tasks == 0) {
    const int per_task = k_per_gpu * std::max(gpus_per_task, 1);
    tasks = (candidates + per_task - 1) / per_task;
    plan.why = fmt::format("one task per {} candidates", per_task);
  } else {
    plan.why = fmt::format("{} asked", requested);
  }
  if (tasks > candidates) {
    tasks = candidates;
    plan.why += fmt::format("; at most one per candidate ({})", candidates);
  }
  const auto cap = [&](const std::optional<int>& limit, std::string_view name) {
    if (limit && *limit > 0 && tasks > *limit) {
      tasks = *limit;
      plan.why += fmt::format("; {} {}", name, *limit);
    }
  };
  cap(limits.max_array_size, "MaxArraySize");
  cap(limits.max_job_count, "MaxJobCount");
  cap(limits.max_submit_jobs, "MaxSubmitJobs");
  const int base = candidates / tasks;
  const int extra = candidates % tasks;
  int next = 0;
  plan.shards.reserve(static_cast<std::size_t>(tasks));
  for (int task = 0; task < tasks; ++task) {
    std::vector<int> shard(static_cast<std::size_t>(base + (task < extra ? 1 : 0)));
    for (int& index : shard) {
      index = next++;
    }
    plan.shards.push_back(std::move(shard));
  }
  return plan;
}

FilesystemKind filesystem_kind(long magic) {
  switch (static_cast<unsigned long>(magic) & 0xFFFFFFFFUL) {
  case 0x01021994UL: // tmpfs
  case 0x858458F6UL: // ramfs
    return FilesystemKind::memory;
  case 0x6969UL:     // nfs
  case 0x517BUL:     // smb
  case 0xFF534D42UL: // cifs
  case 0xFE534D42UL: // smb2
  case 0x0BD00BD0UL: // lustre
  case 0x47504653UL: // gpfs
  case 0x00C36400UL: // ceph
  case 0x19830326UL: // beegfs
  case 0x65735546UL: // fuse (glusterfs, sshfs, ...)
  case 0x5346414FUL: // afs
  case 0xAAD7AAEAUL: // panfs
  case 0x01021997UL: // 9p
  case 0x7461636FUL: // ocfs2
  case 0x01161970UL: // gfs2
  case 0x13661366UL: // orangefs
    return FilesystemKind::network;
  default:
    return FilesystemKind::local;
  }
}

namespace {

std::string filesystem_name(long magic) {
  switch (static_cast<unsigned long>(magic) & 0xFFFFFFFFUL) {
  case 0x01021994UL:
    return "tmpfs";
  case 0x858458F6UL:
    return "ramfs";
  case 0x6969UL:
    return "nfs";
  case 0x0BD00BD0UL:
    return "lustre";
  case 0x47504653UL:
    return "gpfs";
  case 0x00C36400UL:
    return "ceph";
  case 0x19830326UL:
    return "beegfs";
  case 0x65735546UL:
    return "fuse";
  case 0xEF53UL:
    return "ext4";
  case 0x58465342UL:
    return "xfs";
  case 0x9123683EUL:
    return "btrfs";
  case 0x794C7630UL:
    return "overlay";
  case 0x2FC12FC1UL:
    return "zfs";
  default:
    return fmt::format("filesystem 0x{:x}", static_cast<unsigned long>(magic) & 0xFFFFFFFFUL);
  }
}

} // namespace

Result<std::pair<FilesystemKind, std::string>> filesystem_of(const fs::path& path) {
  std::error_code ec;
  fs::path probe = fs::absolute(path, ec);
  while (!probe.empty() && !fs::exists(probe, ec) && probe != probe.root_path()) {
    probe = probe.parent_path();
  }
  struct statfs info {};
  if (::statfs(probe.c_str(), &info) != 0) {
    return make_error(ErrorCategory::io, fmt::format("cannot tell the filesystem of {}: {}",
                                                     path.string(), std::strerror(errno)));
  }
  const auto magic = static_cast<long>(info.f_type);
  return std::pair{filesystem_kind(magic), filesystem_name(magic)};
}

std::vector<SlurmNode> parse_sinfo_nodes(std::string_view text) {
  std::vector<SlurmNode> nodes;
  std::set<std::string, std::less<>> seen;
  const std::vector<std::string_view> rows = trimmed_lines(text);
  // Without -p, sinfo lists every partition; sbatch submits to the default one (marked '*').
  const bool any_default = std::any_of(rows.begin(), rows.end(), [](std::string_view row) {
    const auto fields = fields_of(row, '|');
    return fields.size() > 2 && !trim(fields[2]).empty() && trim(fields[2]).back() == '*';
  });
  for (const std::string_view line : rows) {
    if (line.empty()) {
      continue;
    }
    const auto fields = fields_of(line, '|');
    if (any_default && fields.size() > 2 &&
        (trim(fields[2]).empty() || trim(fields[2]).back() != '*')) {
      continue;
    }
    SlurmNode node{std::string(trim(fields[0])),
                   std::string(trim(fields.size() > 1 ? fields[1] : fields[0]))};
    if (seen.insert(node.name).second) {
      nodes.push_back(std::move(node));
    }
  }
  return nodes;
}

Result<void> check_paths_shared(const std::vector<std::pair<std::string, fs::path>>& paths,
                                const std::vector<SlurmNode>& nodes, std::string_view this_host) {
  const auto short_name = [](std::string_view host) { return host.substr(0, host.find('.')); };
  std::vector<std::string> elsewhere;
  for (const SlurmNode& node : nodes) {
    const bool here = node.hostname == "localhost" || node.hostname == "127.0.0.1" ||
                      short_name(node.hostname) == short_name(this_host);
    if (!here) {
      elsewhere.push_back(node.name);
    }
  }
  std::set<fs::path> checked;
  for (const auto& [what, path] : paths) {
    const fs::path dir = path.parent_path();
    if (!checked.insert(dir).second) {
      continue;
    }
    auto found = filesystem_of(path);
    if (!found) {
      return std::move(found).error();
    }
    const auto& [kind, name] = *found;
    if (kind == FilesystemKind::memory) {
      return make_error(
          ErrorCategory::usage,
          fmt::format("the {} {} is on {}, in this node's memory: Slurm's compute nodes cannot "
                      "see it. Put it on a shared filesystem (NFS, Lustre, GPFS, ...)",
                      what, path.string(), name));
    }
    if (kind == FilesystemKind::local && !elsewhere.empty()) {
      std::string names;
      for (std::size_t i = 0; i < elsewhere.size() && i < 5; ++i) {
        names += (names.empty() ? "" : ", ") + elsewhere[i];
      }
      if (elsewhere.size() > 5) {
        names += fmt::format(" and {} more", elsewhere.size() - 5);
      }
      return make_error(
          ErrorCategory::usage,
          fmt::format("the {} {} is on a local disk ({}) of {}, and the partition's node(s) {} "
                      "are other hosts that cannot see it. Put it on a shared filesystem (NFS, "
                      "Lustre, GPFS, ...)",
                      what, path.string(), name, this_host, names));
    }
  }
  return {};
}

bool SlurmTaskState::ended() const {
  static const std::set<std::string, std::less<>> live = {
      "PENDING",  "RUNNING",   "CONFIGURING", "COMPLETING",   "SUSPENDED",  "REQUEUED",
      "RESIZING", "SIGNALING", "STAGE_OUT",   "REQUEUE_HOLD", "REQUEUE_FED"};
  return !state.empty() && live.find(state) == live.end();
}

namespace {

/// The task states of squeue's or sacct's `|`-separated lines: the first field names the array
/// task (lines without one are skipped), `fill` reads the rest (at least a state) into its state.
template <class Fill>
std::map<int, SlurmTaskState> task_states(std::string_view text, Fill fill) {
  std::map<int, SlurmTaskState> states;
  for (const std::string_view line : trimmed_lines(text)) {
    const auto fields = fields_of(line, '|');
    if (fields.size() < 2) {
      continue;
    }
    const auto task = task_of(trim(fields[0]));
    if (!task) {
      continue;
    }
    SlurmTaskState state;
    fill(fields, state);
    states[*task] = std::move(state);
  }
  return states;
}

} // namespace

std::map<int, SlurmTaskState> parse_squeue(std::string_view text) {
  return task_states(text, [](const auto& fields, SlurmTaskState& state) {
    state.state = std::string(trim(fields[1]));
    state.reason = fields.size() > 2 ? reason_of(fields[2]) : std::string();
  });
}

std::map<int, SlurmTaskState> parse_sacct(std::string_view text) {
  return task_states(text, [](const auto& fields, SlurmTaskState& state) {
    std::string_view word = trim(fields[1]);
    word = word.substr(0, word.find(' ')); // "CANCELLED by 0"
    state.state = std::string(word);
    state.exit = fields.size() > 2 ? std::string(trim(fields[2])) : std::string();
    state.reason = fields.size() > 3 ? reason_of(fields[3]) : std::string();
  });
}

std::map<int, SlurmTaskState> parse_scontrol_jobs(std::string_view text) {
  std::map<int, SlurmTaskState> states;
  for (const std::string_view line : trimmed_lines(text)) {
    std::vector<int> tasks;
    SlurmTaskState state;
    std::string_view rest = line;
    while (!rest.empty()) {
      const auto end = rest.find(' ');
      const std::string_view token = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
      const auto equals = token.find('=');
      if (equals == std::string_view::npos) {
        continue;
      }
      const std::string_view key = token.substr(0, equals);
      const std::string_view value = token.substr(equals + 1);
      if (key == "ArrayTaskId") {
        tasks = task_ids(value);
      } else if (key == "JobState") {
        state.state = std::string(value);
      } else if (key == "Reason") {
        state.reason = reason_of(value);
      } else if (key == "ExitCode") {
        state.exit = std::string(value);
      }
    }
    if (!state.state.empty()) {
      for (const int task : tasks) {
        states[task] = state;
      }
    }
  }
  return states;
}

} // namespace kprof

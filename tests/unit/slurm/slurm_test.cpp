// The parts of `kprof batch --slurm` that need no cluster: settings, shell words, limits, shards,
// filesystems, the job script's output line, and Slurm's outputs (recorded from Slurm 22.05.8,
// tests/slurm/cluster.sh). The whole round runs against a real one-host Slurm in
// tests/slurm/test_slurm.py.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>

#include "kprof/options.hpp"
#include "kprof/slurm.hpp"

namespace kprof {
namespace {
namespace fs = std::filesystem;

TEST(SlurmSettings, ReadsEveryKeyAndKeepsDefaultsForTheRest) {
  auto settings = parse_slurm_settings(Json{{"tasks", 4},
                                            {"options", "--partition=gpu --time='1:00:00'"},
                                            {"requeue", true},
                                            {"poll_seconds", 0.5}});
  ASSERT_TRUE(settings.ok()) << settings.error().message;
  EXPECT_EQ(settings->tasks, 4);
  EXPECT_EQ(settings->gpus_per_task, 1);
  EXPECT_EQ(settings->sbatch_options,
            (std::vector<std::string>{"--partition=gpu", "--time=1:00:00"}));
  EXPECT_TRUE(settings->requeue);
  EXPECT_FALSE(settings->dry_run);
  EXPECT_EQ(settings->poll.count(), 500);
}

TEST(SlurmSettings, NamesTheKeyOfAWrongValue) {
  auto negative = parse_slurm_settings(Json{{"tasks", -1}});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().category, ErrorCategory::usage);
  EXPECT_NE(negative.error().message.find("slurm tasks must be a whole number from 0"),
            std::string::npos)
      << negative.error().message;
  auto unknown = parse_slurm_settings(Json{{"partition", "gpu"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown slurm setting 'partition' (valid: tasks"),
            std::string::npos);
  EXPECT_FALSE(parse_slurm_settings(Json{{"requeue", "yes"}}).ok());
  EXPECT_FALSE(parse_slurm_settings(Json{{"options", 3}}).ok());
}

TEST(SlurmSettings, RefuseSbatchWordsThatAreNotOptionsNamingTheWord) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--partition=gpu; rm -rf x", "'--partition=gpu;' holds ';'"},
      {"-p gpu", "'gpu' is not an sbatch option"},
      {"rm", "'rm' is not an sbatch option"},
      {"--", "'--' is not an sbatch option"},
      {"--comment='$(id)'", "'--comment=$(id)' holds '$'"},
      {"--comment=`id`", "'--comment=`id`' holds '`'"},
      {"--output=x>y", "holds '>'"},
      {R"(--comment=a\"b)", R"(holds '"')"},
      {"--array=0-3", "'--array=0-3' sets the job array"},
      {"--arr=0-3", "sets the job array"},
      {"-a0-3", "sets the job array"},
      {"--wrap=hostname", "replaces the job's script"},
  };
  for (const auto& [options, said] : refused) {
    auto settings = parse_slurm_settings(Json{{"options", options}});
    ASSERT_FALSE(settings.ok()) << options;
    EXPECT_EQ(settings.error().category, ErrorCategory::usage);
    EXPECT_NE(settings.error().message.find("slurm options: "), std::string::npos);
    EXPECT_NE(settings.error().message.find(said), std::string::npos)
        << options << ": " << settings.error().message;
  }
  // The list form is checked word by word, a newline included.
  auto newline = parse_slurm_settings(Json{{"options", Json::array({"--time=10\nrm -rf x"})}});
  ASSERT_FALSE(newline.ok());
  EXPECT_NE(newline.error().message.find("control character"), std::string::npos);
  // What sbatch's own syntax needs passes: constraints, node lists, dependencies, short options
  // with their value attached.
  auto fine = parse_slurm_settings(
      Json{{"options", "--constraint='a100&nvlink|h100' --nodelist=n[1-4] -pgpu -t10 "
                       "--dependency=afterok:12?afterany:13 --comment='a b' --exclusive"}});
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(fine->sbatch_options.size(), 7U);
}

TEST(SlurmSettings, GpusPerTaskStartsAtOneAndNaNOrBigNumbersAreOutOfRange) {
  auto none = parse_slurm_settings(Json{{"gpus_per_task", 0}});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "slurm gpus_per_task must be a whole number from 1 to 64, not 0");
  auto nan = parse_slurm_settings(Json{{"poll_seconds", std::nan("")}});
  ASSERT_FALSE(nan.ok()) << "a NaN poll interval passed every comparison";
  EXPECT_EQ(nan.error().message,
            "slurm poll_seconds must be a number of seconds from 0.05 to 600, not nan");
  auto big = parse_slurm_settings(Json{{"tasks", big_whole_number("1180591620717411303424")}});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message,
            "slurm tasks must be a whole number from 0 to 1000000, not 1180591620717411303424");
  auto nul = parse_slurm_settings(Json{{"kprof", std::string("/bin/kprof\0x", 12)}});
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.error().message.find("slurm kprof holds a NUL byte"), std::string::npos);
}

TEST(SbatchOutputLine, QuotesADirectoryWithSpacesQuotesAndHashesAndDoublesPercent) {
  EXPECT_EQ(sbatch_output_line("/runs/r1/slurm/round000-1").value(),
            "#SBATCH --output=/runs/r1/slurm/round000-1/task-%a/slurm-%A_%a.out\n");
  auto spaced = sbatch_output_line(R"(/runs/my "best" #1 50%/slurm/j)");
  ASSERT_TRUE(spaced.ok()) << spaced.error().message;
  EXPECT_EQ(*spaced,
            R"(#SBATCH --output="/runs/my \"best\" #1 50%%/slurm/j/task-%a/slurm-%A_%a.out")"
            "\n");
}

TEST(SbatchOutputLine, RefusesADirectoryNoSbatchLineCanName) {
  auto newline = sbatch_output_line("/runs/a\nb/slurm/j");
  ASSERT_FALSE(newline.ok());
  EXPECT_EQ(newline.error().category, ErrorCategory::usage);
  EXPECT_NE(newline.error().message.find("a control character"), std::string::npos);
  auto backslash = sbatch_output_line(R"(/runs/a\b/slurm/j)");
  ASSERT_FALSE(backslash.ok());
  EXPECT_NE(backslash.error().message.find("a backslash"), std::string::npos);
}

TEST(ShellWords, SplitLikeAShellWithoutExpanding) {
  auto words = split_shell_words(R"(  -p gpu --comment="a b \"c\"" 'x y'\ z $HOME)");
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words,
            (std::vector<std::string>{"-p", "gpu", "--comment=a b \"c\"", "x y z", "$HOME"}));
  EXPECT_TRUE(split_shell_words("   ")->empty());
  auto unclosed = split_shell_words("--comment='oops");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_EQ(unclosed.error().category, ErrorCategory::usage);
}

TEST(ShellWords, QuoteRoundTripsThroughTheSplitter) {
  for (const std::string word : {"plain", "with space", "it's", "", "$(rm -rf /)", "a\"b"}) {
    auto back = split_shell_words(shell_quote(word));
    ASSERT_TRUE(back.ok()) << word;
    EXPECT_EQ(*back, std::vector<std::string>{word});
  }
  EXPECT_EQ(shell_quote("/abs/path/kernel.py"), "/abs/path/kernel.py");
}

TEST(SlurmLimits, ComeFromScontrolShowConfig) {
  const SlurmLimits limits =
      parse_scontrol_config("AccountingStorageType   = accounting_storage/none\n"
                            "MaxArraySize            = 1001\n"
                            "MaxJobCount             = 10000\n"
                            "MaxStepCount            = 40000\n");
  EXPECT_EQ(limits.max_array_size, 1001);
  EXPECT_EQ(limits.max_job_count, 10000);
  EXPECT_FALSE(limits.max_submit_jobs);
  EXPECT_FALSE(parse_scontrol_config("").max_array_size);
}

TEST(ShardPlan, SplitsContiguouslyWithSizesWithinOne) {
  auto plan = plan_shards(8, 3, 1, {});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->shards, (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4, 5}, {6, 7}}));
  auto automatic = plan_shards(20, 0, 1, {});
  ASSERT_TRUE(automatic.ok());
  EXPECT_EQ(automatic->shards.size(), 3U); // one task per 8 candidates per GPU
  EXPECT_EQ(plan_shards(20, 0, 2, {})->shards.size(), 2U);
  EXPECT_EQ(plan_shards(3, 10, 1, {})->shards.size(), 3U); // never an empty task
}

TEST(ShardPlan, RespectsTheClusterLimits) {
  SlurmLimits limits;
  limits.max_array_size = 1001;
  limits.max_submit_jobs = 50;
  auto plan = plan_shards(10000, 5000, 1, limits);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->shards.size(), 50U);
  EXPECT_EQ(plan->shards.front().size(), 200U);
  EXPECT_NE(plan->why.find("MaxSubmitJobs 50"), std::string::npos) << plan->why;
  limits.max_submit_jobs.reset();
  EXPECT_EQ(plan_shards(10000, 5000, 1, limits)->shards.size(), 1001U);
  EXPECT_FALSE(plan_shards(0, 1, 1, {}).ok());
  EXPECT_FALSE(plan_shards(4, -1, 1, {}).ok());
}

TEST(Filesystems, MemoryNetworkAndLocalKinds) {
  EXPECT_EQ(filesystem_kind(0x01021994), FilesystemKind::memory);  // tmpfs
  EXPECT_EQ(filesystem_kind(0x6969), FilesystemKind::network);     // nfs
  EXPECT_EQ(filesystem_kind(0x0BD00BD0), FilesystemKind::network); // lustre
  EXPECT_EQ(filesystem_kind(0xEF53), FilesystemKind::local);       // ext4
  EXPECT_EQ(filesystem_kind(0x794C7630), FilesystemKind::local);   // overlay
}

TEST(SinfoNodes, KeepTheDefaultPartitionOnceEach) {
  const auto nodes = parse_sinfo_nodes("vm|vm|debug*\nvm|vm|remote\nfar-node|far-node|remote\n");
  ASSERT_EQ(nodes.size(), 1U);
  EXPECT_EQ(nodes[0].name, "vm");
  const auto remote = parse_sinfo_nodes("vm|vm|remote\nfar-node|far.example|remote\n");
  ASSERT_EQ(remote.size(), 2U);
  EXPECT_EQ(remote[1].hostname, "far.example");
}

TEST(SharedPaths, AMemoryFilesystemIsRefusedEvenOnOneHost) {
  if (!fs::is_directory("/dev/shm")) {
    GTEST_SKIP() << "no /dev/shm on this machine";
  }
  auto kind = filesystem_of("/dev/shm");
  ASSERT_TRUE(kind.ok());
  if (kind->first != FilesystemKind::memory) {
    GTEST_SKIP() << "/dev/shm is not a memory filesystem here (" << kind->second << ")";
  }
  const std::vector<SlurmNode> here = {{"n1", "localhost"}};
  auto checked = check_paths_shared({{"kernel file", "/dev/shm/k.py"}}, here, "n1");
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().category, ErrorCategory::usage);
  EXPECT_NE(checked.error().message.find("/dev/shm/k.py is on tmpfs, in this node's memory"),
            std::string::npos)
      << checked.error().message;
}

TEST(SharedPaths, ALocalDiskIsRefusedOnlyWhenOtherHostsRunTasks) {
  const fs::path here = fs::current_path() / "kernel.py";
  auto kind = filesystem_of(here);
  ASSERT_TRUE(kind.ok());
  if (kind->first != FilesystemKind::local) {
    GTEST_SKIP() << "the working directory is not on a local disk here (" << kind->second << ")";
  }
  std::array<char, 256> host{};
  ASSERT_EQ(::gethostname(host.data(), host.size() - 1), 0);
  const std::string me = host.data();
  EXPECT_TRUE(check_paths_shared({{"kernel file", here}}, {{"n1", me}}, me).ok());
  auto refused =
      check_paths_shared({{"kernel file", here}}, {{"n1", me}, {"n2", "elsewhere.example"}}, me);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("node(s) n2 are other hosts"), std::string::npos)
      << refused.error().message;
}

TEST(SlurmStates, SqueueLinesOfLiveTasks) {
  const auto states =
      parse_squeue("1_3|RUNNING|None\n1_0|PENDING|Resources\n1_2|COMPLETING|None\n");
  ASSERT_EQ(states.size(), 3U);
  EXPECT_EQ(states.at(0).state, "PENDING");
  EXPECT_EQ(states.at(0).reason, "Resources");
  EXPECT_EQ(states.at(3).reason, "");
  EXPECT_FALSE(states.at(2).ended());
  EXPECT_TRUE(parse_squeue("").empty());
}

TEST(SlurmStates, SacctLinesWithCancelledBy) {
  const auto states = parse_sacct("41_0|COMPLETED|0:0|None\n41_1|CANCELLED by 0|0:15|None\n"
                                  "41_1.batch|CANCELLED|0:15|\n41_2|TIMEOUT|0:15|TimeLimit\n");
  ASSERT_EQ(states.size(), 3U);
  EXPECT_TRUE(states.at(0).completed());
  EXPECT_EQ(states.at(1).state, "CANCELLED");
  EXPECT_EQ(states.at(1).exit, "0:15");
  EXPECT_TRUE(states.at(2).ended());
  EXPECT_EQ(states.at(2).reason, "TimeLimit");
}

TEST(SlurmStates, ScontrolRecordsIncludingUnsplitRanges) {
  const auto states = parse_scontrol_jobs(
      "JobId=26 ArrayJobId=23 ArrayTaskId=2 JobName=kprof-round000 JobState=CANCELLED "
      "Reason=None Dependency=(null) ExitCode=0:15 RunTime=00:00:03\n"
      "JobId=24 ArrayJobId=23 ArrayTaskId=0 JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0\n"
      "JobId=23 ArrayJobId=23 ArrayTaskId=4-5 JobState=CANCELLED Reason=None ExitCode=0:0\n");
  ASSERT_EQ(states.size(), 4U);
  EXPECT_EQ(states.at(2).state, "CANCELLED");
  EXPECT_EQ(states.at(2).exit, "0:15");
  EXPECT_EQ(states.at(0).reason, "NonZeroExitCode");
  EXPECT_EQ(states.at(4).state, "CANCELLED");
  EXPECT_EQ(states.at(5).state, "CANCELLED");
}

TEST(OptionWords, GiveTheOptionsBackAsCommandLineWords) {
  auto words = option_words(Json{{"timeout", 60},
                                 {"metrics", "lean"},
                                 {"record_history", false},
                                 {"check_metrics", true},
                                 {"kernels", Json::array({"a", "b"})},
                                 {"gpus", Json::array({0, 2})},
                                 {"ncu", nullptr},
                                 {"standby", true}});
  ASSERT_TRUE(words.ok()) << words.error().message;
  EXPECT_EQ(*words,
            (std::vector<std::string>{"--metrics", "lean", "--timeout", "60", "--kernel", "a",
                                      "--kernel", "b", "--gpus", "0,2", "--no-history"}));
  EXPECT_FALSE(option_words(Json{{"no_such_option", 1}}).ok());
}

TEST(OptionWords, ParseBackToTheSameOptions) {
  const Json values = {{"timeout", 60}, {"warmup", 1}, {"cast", "bf16"}, {"select", "last"}};
  auto words = option_words(values);
  ASSERT_TRUE(words.ok());
  Json as_cli = Json::object();
  for (std::size_t i = 0; i + 1 < words->size(); i += 2) {
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& each : option_specs()) {
      if (each.cli == (*words)[i]) {
        spec = &each;
      }
    }
    ASSERT_NE(spec, nullptr) << (*words)[i];
    as_cli[std::string(spec->name)] = (*words)[i + 1];
  }
  OptionContext cli;
  cli.cli_names = true;
  auto parsed = parse_run_options(as_cli, cli);
  auto direct = parse_run_options(values, OptionContext{});
  ASSERT_TRUE(parsed.ok() && direct.ok());
  EXPECT_EQ(parsed->options.timeout, direct->options.timeout);
  EXPECT_EQ(parsed->options.warmup, direct->options.warmup);
  EXPECT_EQ(parsed->options.cast, direct->options.cast);
  EXPECT_EQ(parsed->options.select.select, direct->options.select.select);
}

TEST(OptionWords, GiveAttemptsAsTheRetriesAfterTheFirst) {
  auto words = option_words(Json{{"attempts", 4}, {"timeout", 60}});
  ASSERT_TRUE(words.ok()) << words.error().message;
  EXPECT_EQ(*words, (std::vector<std::string>{"--timeout", "60", "--retries", "3"}));
  auto parsed = parse_run_options(Json{{"attempts", 4}}, OptionContext{});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->options.retries, 3);
  OptionContext python;
  python.spelled = {{"attempts", "max_retries"}};
  auto both = parse_run_options(Json{{"retries", 1}, {"attempts", 2}}, python);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().message,
            "give retries or max_retries, not both (the attempts are the retries + 1)");
}

TEST(OptionValues, NaNInfinitiesAndBigNumbersAreOutOfTheRangeNotOfTheType) {
  OptionContext context;
  context.spelled = {{"timeout", "ncu_timeout_seconds"}};
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json{{"seed", std::nan("")}},
       "seed must be a whole number from 0 to 18446744073709551615, got 'nan'"},
      {Json{{"warmup", -HUGE_VAL}}, "warmup must be a whole number from 0 to 10000, got '-inf'"},
      {Json{{"timeout", big_whole_number("1000000000000000000000000000000")}},
       "ncu_timeout_seconds must be a whole number from 1 to 604800, got "
       "'1000000000000000000000000000000'"},
      {Json{{"gpus", Json::array({0, big_whole_number("18446744073709551616")})}},
       "gpus must be a whole number from 0 to 1023, got '18446744073709551616'"},
  };
  for (const auto& [values, message] : cases) {
    ASSERT_TRUE(check_option_types(values, context).ok()) << message;
    auto parsed = parse_run_options(values, context);
    ASSERT_FALSE(parsed.ok()) << message;
    EXPECT_EQ(parsed.error().category, ErrorCategory::usage);
    EXPECT_EQ(parsed.error().message, message);
  }
  EXPECT_EQ(check_option_types(Json{{"warmup", 2.5}}, context).error().message,
            "warmup must be an integer, not a number with a fraction");
}

TEST(OptionValues, AWrongElementOfAListIsNamedByItsIndex) {
  OptionContext context;
  context.spelled = {{"gpus", "gpu"}};
  auto gpus = check_option_types(Json{{"gpus", Json::array({0, "a"})}}, context);
  ASSERT_FALSE(gpus.ok());
  EXPECT_EQ(gpus.error().message, "gpu[1] must be an integer, not a string");
  auto kernels = check_option_types(Json{{"kernels", Json::array({"add", 3})}}, context);
  ASSERT_FALSE(kernels.ok());
  EXPECT_EQ(kernels.error().message, "kernels[1] must be a string, not an integer");
}

TEST(OptionValues, APathWithANulByteIsRefusedNotCut) {
  OptionContext context;
  context.spelled = {{"out_dir", "artifacts_dir"}};
  for (const std::string key : {"out_dir", "logs_dir", "ncu", "python"}) {
    auto parsed = parse_run_options(Json{{key, std::string("/tmp/runs\0/etc", 14)}}, context);
    ASSERT_FALSE(parsed.ok()) << key;
    EXPECT_EQ(parsed.error().category, ErrorCategory::usage);
    EXPECT_EQ(parsed.error().message,
              (key == "out_dir" ? "artifacts_dir" : key) +
                  " holds a NUL byte after '/tmp/runs': no file name can hold one, and the "
                  "system would end the name there");
  }
  EXPECT_TRUE(check_path_text("/tmp/runs", "x").ok());
}

} // namespace
} // namespace kprof

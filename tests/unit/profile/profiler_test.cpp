// The round logic of KernelProfiler with a fake SessionRunner: which sessions run, what is
// retried, and what a round leaves on disk and in the history.
#include <cstdlib>
#include <functional>
#include <mutex>

#include <gtest/gtest.h>

#include "kprof/files.hpp"
#include "kprof/gpu_lock.hpp"
#include "kprof/history.hpp"
#include "kprof/options.hpp"
#include "kprof/profiler.hpp"
#include "kprof/round_layout.hpp"
#include "unit/profile/profile_test_support.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;
using namespace kprof::test;

/// Answers each session with the next scripted outcome and remembers the requests.
class FakeRunner final : public SessionRunner {
public:
  using Script = std::function<SessionOutcome(const SessionRequest&)>;
  explicit FakeRunner(std::vector<Script> scripts) : m_scripts(std::move(scripts)) {}

  SessionOutcome run(const SessionRequest& request) override {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_requests.push_back(request);
    KPROF_ASSERT(m_next < m_scripts.size());
    return m_scripts[m_next++](request);
  }
  [[nodiscard]] std::vector<SessionRequest> requests() const {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return m_requests;
  }

private:
  mutable std::mutex m_mutex;
  std::vector<Script> m_scripts;
  std::size_t m_next = 0;
  std::vector<SessionRequest> m_requests;
};

FakeRunner::Script profiles_ok(std::vector<int> candidates) {
  return [candidates](const SessionRequest&) {
    std::string log;
    std::vector<HarnessCandidateStatus> statuses;
    for (int c : candidates) {
      log += recorded_in_range("curated_nvtx_twostage.csv", c);
      statuses.push_back(finished_ok(c));
    }
    return outcome(exited(0), log, harness_with(statuses));
  };
}

FakeRunner::Script times_out() {
  return [](const SessionRequest&) { return outcome(timed_out(), "", std::nullopt); };
}

class ProfilerWithFakeRunner : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create("kprof-profile-test");
    ASSERT_TRUE(dir.ok());
    m_dir.emplace(std::move(dir).value());
    for (const char* file : {"problem.py", "kernel0.py", "kernel1.py"}) {
      ASSERT_TRUE(write_file_atomic(path() / file, "# test\n").ok());
    }
  }
  [[nodiscard]] fs::path path() const { return m_dir->path(); }

  ProfileOptions options() const {
    ProfileOptions o;
    o.out_dir = path() / "out";
    o.check_metrics = false;
    o.retries = 2;
    o.retry_backoff = std::chrono::milliseconds(1);
    o.lock_dir = path() / "locks";
    return o;
  }

  KernelProfiler make(const std::shared_ptr<FakeRunner>& runner, ProfileOptions o) const {
    NcuInstall ncu{"/opt/ncu", "2025.3.1.0"};
    auto profiler = KernelProfiler::with_runner(std::move(o), ncu, "/usr/bin/python3", runner);
    KPROF_ASSERT(profiler.ok());
    return std::move(profiler).value();
  }

  std::optional<TempDir> m_dir;
};

TEST_F(ProfilerWithFakeRunner, CreateRefusesAGpuBeyondTheVisibleOnesBeforeLookingForNcu) {
  // The same check as the CLI's and Python's option parsing, in the library itself.
  const char* was = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> saved =
      was != nullptr ? std::optional<std::string>(was) : std::nullopt;
  ::setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  ProfileOptions o = options();
  o.gpus = {0, 99};
  o.ncu = path() / "no-ncu";
  auto created = KernelProfiler::create(o);
  if (saved) {
    ::setenv("CUDA_VISIBLE_DEVICES", saved->c_str(), 1);
  } else {
    ::unsetenv("CUDA_VISIBLE_DEVICES");
  }
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().category, ErrorCategory::usage) << created.error().message;
  EXPECT_EQ(created.error().message, "GPU 99: only 1 GPU is visible (valid: 0 to 0)");
}

TEST_F(ProfilerWithFakeRunner, OptionsMadeInCodeAreCheckedByTheOptionTableInItsWords) {
  // Not a second list of checks: the table's own ranges and messages (check_run_options).
  NcuInstall ncu{"/opt/ncu", "2025.3.1.0"};
  const auto refusal = [&](ProfileOptions o) {
    auto made = KernelProfiler::with_runner(
        std::move(o), ncu, "/usr/bin/python3",
        std::make_shared<FakeRunner>(std::vector<FakeRunner::Script>{}));
    EXPECT_FALSE(made.ok());
    return made.ok() ? std::string("made") : made.error().message;
  };
  ProfileOptions negative = options();
  negative.retries = -1;
  EXPECT_EQ(refusal(negative), parse_run_options(Json{{"retries", -1}}, {}).error().message);
  ProfileOptions no_time = options();
  no_time.timeout = std::chrono::seconds(0);
  EXPECT_NE(refusal(no_time).find("timeout must be"), std::string::npos) << refusal(no_time);
  ProfileOptions gpu = options();
  gpu.gpus = {-2};
  EXPECT_NE(refusal(gpu).find("-2"), std::string::npos) << refusal(gpu);
}

TEST_F(ProfilerWithFakeRunner, TheDeepSetImpliesHotLinesAsAPropertyOfTheSet) {
  ProfileOptions o = options();
  o.metrics = find_metric_set("deep").value();
  EXPECT_TRUE(
      make(std::make_shared<FakeRunner>(std::vector<FakeRunner::Script>{}), o).options().source);
  o.metrics = resolve_metric_set("dram__bytes_read.sum,gpu__time_duration.sum").value();
  EXPECT_FALSE(
      make(std::make_shared<FakeRunner>(std::vector<FakeRunner::Script>{}), o).options().source);
  EXPECT_EQ(o.metrics.words, "dram__bytes_read.sum,gpu__time_duration.sum");
  EXPECT_EQ(option_values(o)["metrics"], "dram__bytes_read.sum,gpu__time_duration.sum");
}

TEST_F(ProfilerWithFakeRunner, AnOkRoundLandsInPlaceWithItsKernelAgentFileAndHistoryRow) {
  auto runner = std::make_shared<FakeRunner>(std::vector<FakeRunner::Script>{profiles_ok({0})});
  ProfileOptions o = options();
  o.logs_dir = path() / "logs";
  KernelProfiler profiler = make(runner, o);
  auto round = profiler.profile(path() / "kernel0.py", path() / "problem.py", 3);
  ASSERT_TRUE(round.ok()) << round.error().message;
  ASSERT_EQ(round->candidates.size(), 1U);
  EXPECT_EQ(round->candidates[0].status, CandidateStatus::ok);
  const RoundLayout layout(path() / "out");
  EXPECT_EQ(round->dir, layout.round_dir(3));
  EXPECT_TRUE(fs::exists(layout.round_dir(3) / RoundLayout::k_report));
  EXPECT_TRUE(fs::exists(layout.round_dir(3) / RoundLayout::k_metrics_csv));
  EXPECT_TRUE(fs::exists(layout.kernelagent_file(3, std::nullopt)));
  EXPECT_TRUE(fs::exists(path() / "logs" / "round003_ncu_metrics.json"));
  auto store = HistoryStore::open(layout.history_db());
  ASSERT_TRUE(store.ok());
  auto rows = store->rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ((*rows)[0].status, CandidateStatus::ok);
  auto report = read_file(layout.round_dir(3) / RoundLayout::k_report);
  ASSERT_TRUE(report.ok());
  const Json doc = Json::parse(*report);
  EXPECT_EQ(doc["metadata"]["status"], "ok");
  EXPECT_EQ(doc["metadata"]["attempts"], 1);
  EXPECT_EQ(doc["metadata"]["round"], 3);
}

/// The history's rows of `layout`, by round, candidate and attempt.
std::vector<HistoryRow> history_rows(const RoundLayout& layout) {
  auto store = HistoryStore::open(layout.history_db());
  KPROF_ASSERT(store.ok());
  auto rows = store->rows();
  KPROF_ASSERT(rows.ok());
  return std::move(rows).value();
}

std::string kernel_file_in(const fs::path& dir, std::string_view file) {
  auto text = read_file(dir / file);
  return text.ok() ? Json::parse(*text)["metadata"]["kernel_file"].get<std::string>() : "";
}

TEST_F(ProfilerWithFakeRunner, TwoKernelFilesProfiledAsOneRoundAreTwoEntriesOfTheHistory) {
  // KernelAgent profiles its current kernel, then the new candidate, both as round N.
  auto runner = std::make_shared<FakeRunner>(
      std::vector<FakeRunner::Script>{profiles_ok({0}), profiles_ok({0})});
  KernelProfiler profiler = make(runner, options());
  ASSERT_TRUE(profiler.profile(path() / "kernel0.py", path() / "problem.py", 1).ok());
  auto second = profiler.profile(path() / "kernel1.py", path() / "problem.py", 1);
  ASSERT_TRUE(second.ok()) << second.error().message;
  const RoundLayout layout(path() / "out");
  EXPECT_EQ(second->dir, layout.round_dir(1));
  EXPECT_EQ(kernel_file_in(layout.round_dir(1), RoundLayout::k_report),
            (path() / "kernel1.py").string());
  EXPECT_EQ(kernel_file_in(layout.kernel_dir(1, 1), RoundLayout::k_report),
            (path() / "kernel0.py").string());
  const std::vector<HistoryRow> rows = history_rows(layout);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].label, "kernel0.py");
  EXPECT_EQ(rows[0].kept_at, "round001.kernel-1");
  EXPECT_EQ(rows[0].status, CandidateStatus::ok);
  EXPECT_EQ(rows[1].label, "kernel1.py");
  EXPECT_EQ(rows[1].kept_at, "");
  EXPECT_TRUE(rows[1].latest);
}

TEST_F(ProfilerWithFakeRunner, ProfilingTheSameKernelFileAgainReplacesItsRound) {
  auto runner = std::make_shared<FakeRunner>(
      std::vector<FakeRunner::Script>{profiles_ok({0}), profiles_ok({0})});
  KernelProfiler profiler = make(runner, options());
  ASSERT_TRUE(profiler.profile(path() / "kernel0.py", path() / "problem.py", 1).ok());
  ASSERT_TRUE(profiler.profile(path() / "kernel0.py", path() / "problem.py", 1).ok());
  const RoundLayout layout(path() / "out");
  EXPECT_FALSE(fs::exists(layout.kernel_dir(1, 1)));
  const std::vector<HistoryRow> rows = history_rows(layout);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].attempt, 2);
}

TEST_F(ProfilerWithFakeRunner, AFailedProfileOfAnotherKernelIsKeptBesideTheGoodRound) {
  auto runner = std::make_shared<FakeRunner>(
      std::vector<FakeRunner::Script>{profiles_ok({0}), times_out(), times_out(), times_out()});
  KernelProfiler profiler = make(runner, options());
  ASSERT_TRUE(profiler.profile(path() / "kernel0.py", path() / "problem.py", 1).ok());
  auto failed = profiler.profile(path() / "kernel1.py", path() / "problem.py", 1);
  ASSERT_TRUE(failed.ok()) << failed.error().message;
  const RoundLayout layout(path() / "out");
  EXPECT_EQ(failed->dir, layout.kernel_dir(1, 1));
  EXPECT_FALSE(failed->in_place);
  EXPECT_EQ(kernel_file_in(layout.round_dir(1), RoundLayout::k_report),
            (path() / "kernel0.py").string());
  EXPECT_EQ(kernel_file_in(layout.kernel_dir(1, 1), RoundLayout::k_error),
            (path() / "kernel1.py").string());
  const std::vector<HistoryRow> rows = history_rows(layout);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].kept_at, "");
  EXPECT_EQ(rows[1].kept_at, "round001.kernel-1");
  EXPECT_EQ(rows[1].status, CandidateStatus::failed);
}

TEST_F(ProfilerWithFakeRunner, KernelAgentLogsOnlyWritesItsFileOnlyIntoTheLogsDirectory) {
  auto runner = std::make_shared<FakeRunner>(std::vector<FakeRunner::Script>{profiles_ok({0})});
  ProfileOptions o = options();
  o.logs_dir = path() / "logs";
  o.kernelagent_logs_only = true;
  KernelProfiler profiler = make(runner, o);
  ASSERT_TRUE(profiler.profile(path() / "kernel0.py", path() / "problem.py", 3).ok());
  EXPECT_TRUE(fs::exists(path() / "logs" / "round003_ncu_metrics.json"));
  EXPECT_FALSE(fs::exists(RoundLayout(path() / "out").kernelagent_file(3, std::nullopt)));
}

TEST_F(ProfilerWithFakeRunner, RetriesATimeoutAndCountsTheAttempts) {
  auto runner =
      std::make_shared<FakeRunner>(std::vector<FakeRunner::Script>{times_out(), profiles_ok({0})});
  KernelProfiler profiler = make(runner, options());
  auto round = profiler.profile(path() / "kernel0.py", path() / "problem.py", 0);
  ASSERT_TRUE(round.ok()) << round.error().message;
  EXPECT_EQ(round->candidates[0].status, CandidateStatus::ok);
  EXPECT_EQ(round->candidates[0].attempts, 2);
  EXPECT_EQ(runner->requests().size(), 2U);
}

TEST_F(ProfilerWithFakeRunner, GivesUpAfterTheLastRetryWithAnErrorFile) {
  auto runner = std::make_shared<FakeRunner>(
      std::vector<FakeRunner::Script>{times_out(), times_out(), times_out()});
  KernelProfiler profiler = make(runner, options());
  auto round = profiler.profile(path() / "kernel0.py", path() / "problem.py", 0);
  ASSERT_TRUE(round.ok()) << round.error().message;
  EXPECT_EQ(round->candidates[0].status, CandidateStatus::failed);
  EXPECT_EQ(round->candidates[0].error->category, ErrorCategory::timeout);
  EXPECT_EQ(runner->requests().size(), 3U);
  EXPECT_TRUE(fs::exists(RoundLayout(path() / "out").round_dir(0) / RoundLayout::k_error));
}

TEST_F(ProfilerWithFakeRunner, AFreshProcessContinuesAfterACandidatePoisonsTheContext) {
  auto poisons = [](const SessionRequest&) {
    return outcome(exited(3), "", harness_with({raised(0, /*poisoned=*/true)}));
  };
  auto runner =
      std::make_shared<FakeRunner>(std::vector<FakeRunner::Script>{poisons, profiles_ok({1})});
  KernelProfiler profiler = make(runner, options());
  auto round = profiler.profile_batch(path() / "problem.py",
                                      {path() / "kernel0.py", path() / "kernel1.py"}, 1);
  ASSERT_TRUE(round.ok()) << round.error().message;
  EXPECT_EQ(round->candidates[0].status, CandidateStatus::failed);
  EXPECT_EQ(round->candidates[1].status, CandidateStatus::ok);
  const auto requests = runner->requests();
  ASSERT_EQ(requests.size(), 2U);
  ASSERT_EQ(requests[1].plan.candidates.size(), 1U) << "only the candidate left";
  EXPECT_EQ(requests[1].plan.candidates[0].range, candidate_range(1));
  EXPECT_EQ(requests[1].plan.first_candidate, 0);
  EXPECT_EQ(requests[1].work_dir.filename(), "gpu0-part1");
  const RoundLayout layout(path() / "out");
  EXPECT_TRUE(fs::exists(layout.round_dir(1) / RoundLayout::k_batch));
  EXPECT_TRUE(fs::exists(layout.round_dir(1) / "cand0" / RoundLayout::k_error));
  EXPECT_TRUE(fs::exists(layout.kernelagent_file(1, 1)));
  EXPECT_FALSE(fs::exists(layout.kernelagent_file(1, 0)));
}

TEST_F(ProfilerWithFakeRunner, ACandidateWhoseRowsWentWithAStoppedNcuRunsAgainWithTheOnesLeft) {
  // Three candidates: the harness finishes 0, then 1 hangs in its warm-up until the session's
  // timeout; ncu, stopped, never wrote candidate 0's rows. Candidate 1 is the timeout; 0 and 2
  // run in the next session and keep their true verdicts.
  auto hangs_on_1 = [](const SessionRequest&) {
    HarnessCandidateStatus hung;
    hung.index = 1;
    hung.range = candidate_range(1);
    hung.phase = HarnessPhase::warmup;
    HarnessStatus status = harness_with({finished_ok(0), hung});
    status.phase = "candidates";
    return outcome(timed_out(), "", status);
  };
  auto runner = std::make_shared<FakeRunner>(
      std::vector<FakeRunner::Script>{hangs_on_1, profiles_ok({0, 2})});
  ProfileOptions o = options();
  o.retries = 0;
  KernelProfiler profiler = make(runner, o);
  ASSERT_TRUE(write_file_atomic(path() / "kernel2.py", "# test\n").ok());
  auto round = profiler.profile_batch(
      path() / "problem.py", {path() / "kernel0.py", path() / "kernel1.py", path() / "kernel2.py"},
      1);
  ASSERT_TRUE(round.ok()) << round.error().message;
  EXPECT_EQ(round->candidates[0].status, CandidateStatus::ok)
      << (round->candidates[0].error ? round->candidates[0].error->message : "");
  EXPECT_EQ(round->candidates[1].error->category, ErrorCategory::timeout);
  EXPECT_EQ(round->candidates[2].status, CandidateStatus::ok);
  const auto requests = runner->requests();
  ASSERT_EQ(requests.size(), 2U);
  ASSERT_EQ(requests[1].plan.candidates.size(), 2U);
  EXPECT_EQ(requests[1].plan.candidates[0].range, candidate_range(0));
  EXPECT_EQ(requests[1].plan.candidates[1].range, candidate_range(2));
  EXPECT_EQ(requests[1].timeout, 2 * o.timeout) << "the timeout of the candidates it runs";
}

TEST_F(ProfilerWithFakeRunner, EveryHarnessIsToldTheHostsProfiledCallLockAsAnAbsolutePath) {
  // A relative $KPROF_LOCK_DIR must name the same file for kprof (its GPU lock) and for the
  // harness, which runs in the round's directory.
  const fs::path cwd = fs::current_path();
  fs::current_path(path());
  ::setenv("KPROF_LOCK_DIR", "relative-locks", 1);
  auto runner = std::make_shared<FakeRunner>(std::vector<FakeRunner::Script>{profiles_ok({0})});
  ProfileOptions o = options();
  o.lock_dir.clear();
  KernelProfiler profiler = make(runner, o);
  auto round = profiler.profile(path() / "kernel0.py", path() / "problem.py", 0);
  ::unsetenv("KPROF_LOCK_DIR");
  fs::current_path(cwd);
  ASSERT_TRUE(round.ok()) << round.error().message;
  const auto requests = runner->requests();
  ASSERT_EQ(requests.size(), 1U);
  EXPECT_EQ(requests[0].plan.profiled_call_lock,
            path() / "relative-locks" / std::string(k_profiled_call_lock_file));
  EXPECT_EQ(profiler.options().lock_dir, path() / "relative-locks");
}

} // namespace
} // namespace kprof

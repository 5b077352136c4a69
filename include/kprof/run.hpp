// kprof: the one way into a round. The CLI (`profile`, `batch`), the MCP tools and the Python
// module all ask for a round through run_round(): a running `kprof serve` of the same output
// directory answers when it serves the same problem and options, else a profiler this process
// keeps (its standby answers the next round), else one made for the round. The round says who
// answered (RoundResult::served_by), and round_error() (kprof/round.hpp) is its verdict.
#pragma once

#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/model.hpp"
#include "kprof/options.hpp"
#include "kprof/profiler.hpp"
#include "kprof/round.hpp"

namespace kprof {

/// The profiler a long-lived shell keeps between rounds (kprof mcp's session, a Python
/// KernelProfiler), so that its standby (docs/standby.md) answers the next round of the same
/// problem with the same options. Thread-safe: each round runs on a copy that shares the kept
/// profiler's standbys.
class ProfilerCache {
public:
  ProfilerCache() = default;
  ProfilerCache(const ProfilerCache&) = delete;
  ProfilerCache& operator=(const ProfilerCache&) = delete;
  ProfilerCache(ProfilerCache&&) = delete;
  ProfilerCache& operator=(ProfilerCache&&) = delete;
  ~ProfilerCache() { clear(); }

  /// A copy of the kept profiler with the request's retries and progress callback: the kept one
  /// when it was made for the same options (every option of the table but `retries`), else a
  /// new one (KernelProfiler::create; the old one's standbys stopped). The kept profiler serves
  /// any problem: its standbys are per problem. Errors as KernelProfiler::create().
  Result<KernelProfiler> get(const ProfileOptions& options);
  /// Stops the kept profiler's standbys and forgets it; the next get() starts cold.
  void clear();

private:
  std::mutex m_mutex;
  std::optional<KernelProfiler> m_profiler;
  Json m_key;
};

/// A round a shell asks for: `kernels` on `problem` (a batch round when `batch`), with the
/// request's options and round number; `shell` names the asker in RoundResult::served_by
/// ("kprof", "kprof mcp", "python").
struct RoundRequest {
  RunRequest run;
  std::filesystem::path problem;
  std::vector<std::filesystem::path> kernels;
  bool batch = false;
  std::string shell = "kprof";
  /// `kprof model --extract` (kprof/model.hpp): after a single candidate's round that is ok, the
  /// model's costliest Triton kernels are written as cases (RoundResult::extracted).
  std::optional<ExtractRequest> extract;
};

/// Runs `request` the one way: a `kprof serve` of its output directory that serves this uid,
/// this problem and these options answers it (served_by "kprof serve" and its socket); else the
/// profiler of `cache` (nullptr: a profiler made for this round alone) runs it (served_by the
/// request's shell). Why a server's answer was not used goes into `notes`, for the shell to show.
/// With `extract`, an ok round is followed by extract_model_kernels() with the python the
/// profiler found, its progress said through the options' on_progress.
/// The round is returned whatever became of its candidates (round_error() is the verdict); an error
/// means no round ran: a server that failed the round, or the errors of KernelProfiler::create(),
/// profile() and profile_batch().
Result<RoundResult> run_round(const RoundRequest& request, ProfilerCache* cache,
                              std::vector<std::string>& notes);

} // namespace kprof

// Which problems' calls make many launches (issue 42; docs/harness.md, "Many launches").
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// What the last round of one candidate found about its problem's call: more launches than one
/// session should replay, or not. Under `--launches auto` a problem known to make many is timed
/// outside ncu first (its round never pays the capped session that stops at the cap, nor a
/// standby that replays every launch). Kept while the profiler lives, and with a directory (the
/// out dir's .cache/launches) in one file per problem, so that the next kprof process of the
/// same out dir knows it too: an agent that runs `kprof profile` once per round pays the capped
/// session once, not every round. A file is read only when this user owns it and no other user
/// can write it (read_own_file) and only while the problem's text is the one it was written
/// for; anything else reads as unknown, which costs the capped session, never a wrong answer.
class LaunchMemory {
public:
  explicit LaunchMemory(std::filesystem::path dir = {}) : m_dir(std::move(dir)) {}

  /// Whether the last round of `problem` made many launches; nullopt when no round of it (of
  /// its text as it is now) is known.
  [[nodiscard]] std::optional<bool> recall(const std::filesystem::path& problem) const;
  /// recall(problem), unknown taken as few.
  [[nodiscard]] bool many(const std::filesystem::path& problem) const {
    return recall(problem).value_or(false);
  }
  /// The ncu launch filters (replay_filter_args) of the last round of `problem` that replayed
  /// representatives, empty when none is known: the next round's session can start with them
  /// beside its timeline and go on when the timeline's plan asks the same (docs/harness.md,
  /// "Many launches").
  [[nodiscard]] std::vector<std::string> filter(const std::filesystem::path& problem) const;
  /// Records what a round of `problem` found, and with many launches the filters it replayed
  /// with; written through to the directory (best effort).
  void remember(const std::filesystem::path& problem, bool many,
                std::vector<std::string> filter = {}) const;

private:
  struct Known {
    std::optional<bool> many; ///< nullopt: read, and nothing known
    std::vector<std::string> filter;
    bool operator==(const Known&) const = default;
  };
  [[nodiscard]] std::filesystem::path file_of(const std::string& problem) const;
  [[nodiscard]] const Known& known(const std::filesystem::path& problem) const; ///< m_mutex held

  std::filesystem::path m_dir; ///< empty: in memory only
  mutable std::mutex m_mutex;
  /// By the problem's path, read or remembered.
  mutable std::map<std::string, Known> m_known;
};

} // namespace kprof

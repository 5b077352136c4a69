#include "kprof/round_layout.hpp"

#include <algorithm>
#include <charconv>
#include <random>
#include <system_error>

#include <fmt/format.h>
#include <unistd.h>

namespace kprof {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_attempt_marker = ".attempt-";
constexpr std::string_view k_kernel_marker = ".kernel-";

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end || value < 0) {
    return std::nullopt;
  }
  return value;
}

} // namespace

std::string RoundLayout::round_name(int round) {
  return fmt::format("round{:03d}", round);
}

fs::path RoundLayout::round_dir(int round) const {
  return m_out_dir / round_name(round);
}

std::string RoundLayout::staging_prefix(int round) {
  return fmt::format(".{}.staging-", round_name(round));
}

fs::path RoundLayout::staging_dir(int round, std::string_view tag) const {
  return m_out_dir / (staging_prefix(round) + std::string(tag));
}

std::string RoundLayout::staging_tag() {
  std::random_device device;
  return fmt::format("{}-{:08x}", ::getpid(), device());
}

std::optional<pid_t> RoundLayout::staging_owner(std::string_view name) {
  if (name.substr(0, 6) != ".round") {
    return std::nullopt;
  }
  std::string_view tag;
  for (const std::string_view marker : {std::string_view(".staging-"), std::string_view(".old-")}) {
    if (const auto at = name.find(marker); at != std::string_view::npos) {
      tag = name.substr(at + marker.size());
      break;
    }
  }
  if (tag.empty()) {
    return std::nullopt;
  }
  const auto dash = tag.find('-');
  const auto pid = parse_int(tag.substr(0, dash));
  if (!pid || *pid == 0) {
    return std::nullopt;
  }
  return static_cast<pid_t>(*pid);
}

fs::path RoundLayout::attempt_dir(int round, int attempt) const {
  return m_out_dir / fmt::format("{}{}{}", round_name(round), k_attempt_marker, attempt);
}

std::optional<RoundLayout::RoundDirName> RoundLayout::parse_round_dir_name(std::string_view name) {
  constexpr std::string_view k_prefix = "round";
  if (name.substr(0, k_prefix.size()) != k_prefix) {
    return std::nullopt;
  }
  name.remove_prefix(k_prefix.size());
  const auto marker = name.find(k_attempt_marker);
  const std::string_view digits = name.substr(0, marker);
  const auto round = parse_int(digits);
  if (!round || round_name(*round) != fmt::format("{}{}", k_prefix, digits)) {
    return std::nullopt; // "round7", "round007x", "round-1"
  }
  if (marker == std::string_view::npos) {
    return RoundDirName{*round, 0};
  }
  const auto attempt = parse_int(name.substr(marker + k_attempt_marker.size()));
  if (!attempt || *attempt < 1) {
    return std::nullopt;
  }
  return RoundDirName{*round, *attempt};
}

int RoundLayout::next_attempt(int round) const {
  return next_number(round, k_attempt_marker);
}

fs::path RoundLayout::kernel_dir(int round, int number) const {
  return m_out_dir / fmt::format("{}{}{}", round_name(round), k_kernel_marker, number);
}

int RoundLayout::next_kernel(int round) const {
  return next_number(round, k_kernel_marker);
}

int RoundLayout::next_number(int round, std::string_view marker) const {
  const std::string prefix = round_name(round) + std::string(marker);
  int highest = 0;
  std::error_code ec;
  for (fs::directory_iterator it(m_out_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0) {
      if (const auto number = parse_int(std::string_view(name).substr(prefix.size()))) {
        highest = std::max(highest, *number);
      }
    }
  }
  return highest + 1;
}

std::string RoundLayout::kernelagent_file_name(int round, std::optional<int> candidate) {
  if (candidate) {
    return fmt::format("{}_cand{}_ncu_metrics.json", round_name(round), *candidate);
  }
  return fmt::format("{}_ncu_metrics.json", round_name(round));
}

fs::path RoundLayout::kernelagent_file(int round, std::optional<int> candidate) const {
  return m_out_dir / kernelagent_file_name(round, candidate);
}

fs::path RoundLayout::history_db() const {
  return m_out_dir / k_history_db;
}

fs::path RoundLayout::cache_dir() const {
  return m_out_dir / ".cache";
}

fs::path RoundLayout::standby_dir() const {
  return m_out_dir / ".standby";
}

fs::path RoundLayout::candidate_dir(const fs::path& round_dir, std::optional<int> candidate) {
  return candidate ? round_dir / fmt::format("cand{}", *candidate) : round_dir;
}

fs::path RoundLayout::session_dir(const fs::path& round_dir, bool batch, int gpu, int part) {
  return batch ? round_dir / fmt::format("gpu{}-part{}", gpu, part) : round_dir;
}

} // namespace kprof

// ncu's rule results as the diagnosis reads them.
#include "diagnosis/rules.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "diagnosis/text.hpp"
#include "kprof/numbers.hpp"

namespace kprof::diagnosis {

std::string stall_of_rule(std::string_view description) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> k_phrases{{
      {"scoreboard dependency on a L1TEX", "long_sb"},
      {"L1 instruction queue for local and global", "lg"},
      {"MIO (memory input/output) instruction queue", "mio"},
      {"scoreboard dependency on a MIO", "short_sb"},
      {"waiting on a memory barrier", "membar"},
      {"after EXIT waiting for all outstanding memory", "drain"},
      {"sibling warps at a CTA barrier", "barrier"},
      {"fetch an instruction or waiting on an instruction cache", "no_inst"},
      {"execution pipe to be available", "math"},
  }};
  for (const auto& [phrase, stall] : k_phrases) {
    if (description.find(phrase) != std::string_view::npos) {
      return std::string(stall);
    }
  }
  return {};
}

std::string stall_words(std::string_view stall) {
  static const std::map<std::string_view, std::string_view> k_words{
      {"long_sb", "long-scoreboard (global/local memory)"},
      {"lg", "LG-throttle (global/local queue full)"},
      {"mio", "MIO-throttle (shared memory and special functions queue full)"},
      {"short_sb", "short-scoreboard (shared memory, special functions)"},
      {"membar", "memory-barrier"},
      {"drain", "drain (writes outstanding at exit)"},
      {"barrier", "barrier"},
      {"no_inst", "no-instruction"},
      {"math", "math-pipe-throttle"}};
  const auto found = k_words.find(stall);
  return found == k_words.end() ? std::string(stall) : std::string(found->second);
}

std::optional<double> stall_share_of_rule(std::string_view description) {
  constexpr std::string_view k_phrase = "represents about ";
  const std::size_t at = description.find(k_phrase);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view rest = description.substr(at + k_phrase.size());
  return parse_ncu_number(rest.substr(0, rest.find('%')));
}

bool is_stall_model(std::string_view rule_name) {
  return rule_name == "CPIStall" || rule_name == "AchievedOccupancy" ||
         rule_name == "TheoreticalOccupancy" || rule_name == "IssueSlotUtilization";
}

std::string stall_name(std::string_view stall) {
  const std::string words = stall_words(stall);
  return words.substr(0, words.find(' '));
}

std::vector<Rule> rules_of(const KernelRecord& launch) {
  std::vector<Rule> rules;
  for (const RuleResult& result : launch.rules) {
    if (result.type != "OPT") {
      continue; // INF is advice, WRN about the profile itself
    }
    Rule rule;
    rule.result = &result;
    if (result.speedup_type == "global" && result.estimated_speedup) {
      rule.global_pct = std::clamp(*result.estimated_speedup, 0.0, 100.0);
    }
    if (result.name == "CPIStall") {
      rule.stall = stall_of_rule(result.description);
      rule.stall_share_pct = stall_share_of_rule(result.description);
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

EstimateConfidence rule_confidence(const Rule& rule) {
  const std::string& name = rule.result->name;
  const bool counted = name == "UncoalescedGlobalAccess" || name == "UncoalescedSharedAccess" ||
                       name == "ThreadDivergence";
  return counted ? EstimateConfidence::high : EstimateConfidence::medium;
}

DiagnosisEvidence rule_evidence(const Rule& rule, std::string_view how) {
  const RuleResult& result = *rule.result;
  std::string meaning = first_sentence(result.description);
  if (!how.empty()) {
    meaning = std::string(how) + ": " + meaning;
  }
  if (result.estimated_speedup) {
    return {"ncu rule " + result.name + " (" +
                (result.speedup_type.empty() ? std::string("no") : result.speedup_type) +
                " estimate)",
            *result.estimated_speedup, std::move(meaning)};
  }
  return {"ncu rule " + result.name, std::string(result.type), std::move(meaning)};
}
} // namespace kprof::diagnosis

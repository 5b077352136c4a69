// kprof internal: ncu's rule results as the diagnosis reads them (the OPT findings, their global
// estimates, and what a CPIStall rule says the warps wait for).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/capture.hpp"
#include "kprof/diagnosis.hpp"

namespace kprof::diagnosis {

/// What a CPIStall rule says the warps wait for, from its text (ncu names the stall only in
/// words; the phrases are those of ncu 2025.3's rules): "long_sb", "lg", "mio", "short_sb",
/// "membar", "drain", "barrier", "no_inst", "math"; "" for text it does not know.
std::string stall_of_rule(std::string_view description);

/// The percent a CPIStall rule's text gives its stall of the cycles between two issues; nullopt
/// when the text says none.
std::optional<double> stall_share_of_rule(std::string_view description);

/// ncu's stall names in words ("long-scoreboard (global/local memory)").
std::string stall_words(std::string_view stall);

/// The stall's short name for a title ("long-scoreboard").
std::string stall_name(std::string_view stall);

/// One OPT finding of ncu's, as a cause builder takes it.
struct Rule {
  const RuleResult* result = nullptr;
  std::optional<double> global_pct; ///< the estimate when ncu made it global
  std::string stall;                ///< CPIStall: the stall it is about ("" unknown)
  /// CPIStall: the stall's share of the cycles between two issues ("This stall type represents
  /// about 93.9% of the total average of 36.1 cycles ..."), percent.
  std::optional<double> stall_share_pct;
  bool used = false;
};

/// The launch's OPT findings (INF is advice, WRN about the profile itself).
std::vector<Rule> rules_of(const KernelRecord& launch);

/// True for the rules whose estimate is ncu's stall model (CPIStall, AchievedOccupancy,
/// TheoreticalOccupancy, IssueSlotUtilization): hidden or removed stalls become time saved.
bool is_stall_model(std::string_view rule_name);

/// How far the rule's estimate can be trusted: high for the rules that count wasted work
/// (UncoalescedGlobalAccess and UncoalescedSharedAccess: excessive sectors and wavefronts;
/// ThreadDivergence: idle lanes), medium for ncu's models (occupancy, launch configuration,
/// stalls: they assume the latency hidden becomes time saved).
EstimateConfidence rule_confidence(const Rule& rule);

/// The rule as evidence: its estimate and kind, and its first sentence (after `how`).
DiagnosisEvidence rule_evidence(const Rule& rule, std::string_view how);

} // namespace kprof::diagnosis

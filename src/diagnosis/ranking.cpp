// The order of the causes: by estimated speedup; register pressure made one cause; the generic
// symptoms folded into the first.
#include "diagnosis/diagnoser.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "diagnosis/text.hpp"
#include "kprof/numbers.hpp"

namespace kprof::diagnosis {

std::vector<DiagnosisCause> Diagnoser::rank() {
  if (m_spill_absorbs_occupancy) {
    // Register pressure: spills and the occupancy the registers limit are one cause.
    Draft* spills = find(Category::register_spills);
    Draft* occupancy = find(Category::low_occupancy);
    if (spills != nullptr && occupancy != nullptr) {
      spills->cause.title += "; the same registers limit occupancy (" +
                             occupancy->cause.title.substr(occupancy->cause.title.find(':') + 2) +
                             ")";
      if (occupancy->cause.estimated_speedup_pct) {
        spills->cause.estimated_speedup_pct =
            std::max(spills->cause.estimated_speedup_pct.value_or(0.0),
                     *occupancy->cause.estimated_speedup_pct);
      }
      for (DiagnosisEvidence& evidence : occupancy->cause.evidence) {
        const bool known =
            std::any_of(spills->cause.evidence.begin(), spills->cause.evidence.end(),
                        [&](const DiagnosisEvidence& e) { return e.metric == evidence.metric; });
        if (!known) {
          spills->cause.evidence.push_back(std::move(evidence));
        }
      }
      occupancy->cause.category = Category::other;
      occupancy->cause.title.clear(); // dropped below
    }
  }
  std::vector<DiagnosisCause> causes;
  for (Draft& draft : m_drafts) {
    if (draft.cause.title.empty()) {
      continue;
    }
    if (draft.cause.estimated_speedup_pct) {
      draft.cause.estimated_speedup_pct =
          round_to(std::clamp(*draft.cause.estimated_speedup_pct, 0.0, 100.0), 2);
    }
    causes.push_back(std::move(draft.cause));
  }
  std::stable_sort(causes.begin(), causes.end(),
                   [](const DiagnosisCause& a, const DiagnosisCause& b) {
                     const auto& x = a.estimated_speedup_pct;
                     const auto& y = b.estimated_speedup_pct;
                     if (x.has_value() != y.has_value()) {
                       return x.has_value();
                     }
                     if (x && *x != *y) {
                       return *x > *y;
                     }
                     return a.category < b.category;
                   });
  if (!causes.empty()) {
    for (Rule& symptom : m_rules) {
      const std::string& name = symptom.result->name;
      if (!symptom.used && (name == "IssueSlotUtilization" || name == "HighPipeUtilization")) {
        symptom.used = true;
        causes.front().evidence.push_back(rule_evidence(symptom, "a symptom of this cause"));
      }
    }
  }
  return causes;
}

} // namespace kprof::diagnosis

// The order of the causes: a launch of a few microseconds leads with launch-bound; then by
// estimated speedup, an estimate that keeps the work bounded by the
// roofline's headroom (so a roof's verdict comes before every such cause), ties broken by
// evidence (a defect's measured excess, then the estimate's confidence, then the samples the
// cause rests on), never by the order of the categories;
// register pressure made one cause; the generic symptoms folded into the first.
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

std::optional<double> Diagnoser::idle_sm_share() const {
  const std::optional<SourcedNumber>& active = m_facts.sm_active_cycles;
  const std::optional<SourcedNumber>& elapsed = m_facts.elapsed_cycles;
  if (!active || !elapsed || elapsed->value <= 0) {
    return std::nullopt;
  }
  return std::clamp(1 - active->value / elapsed->value, 0.0, 1.0);
}

void Diagnoser::cap_by_idle_sms(Draft& draft) const {
  std::optional<double>& estimate = draft.cause.estimated_speedup_pct;
  const std::optional<double> idle = idle_sm_share();
  if (draft.cause.category != Category::tail_effect || !estimate || !idle ||
      *estimate <= 100 * *idle) {
    return;
  }
  draft.cause.evidence.push_back(
      {m_facts.sm_active_cycles->metric + " / " + m_facts.elapsed_cycles->metric, 100 * *idle,
       fmt::format("the estimate of {} capped here: the SMs sat idle for {} of the launch's "
                   "cycles, and a partial last wave costs only the time SMs wait without a block",
                   pct(*estimate), pct(100 * *idle))});
  estimate = 100 * *idle;
}

void Diagnoser::cap_by_headroom(Draft& draft) const {
  const Roofline& roofline = m_facts.roofline;
  std::optional<double>& estimate = draft.cause.estimated_speedup_pct;
  if (!keeps_the_work(draft.cause.category) || draft.moves_excess || !estimate ||
      !roofline.headroom_pct || *estimate <= *roofline.headroom_pct) {
    return;
  }
  draft.cause.evidence.push_back(
      {"roofline: headroom", *roofline.headroom_pct,
       fmt::format("the estimate of {} capped here: fixing this moves the same bytes and runs the "
                   "same instructions, so the launch gains at most what its busier unit lacks of "
                   "its peak (compute {}, memory {} of peak)",
                   pct(*estimate),
                   roofline.compute_sol_pct ? pct(*roofline.compute_sol_pct) : std::string("?"),
                   roofline.memory_sol_pct ? pct(*roofline.memory_sol_pct) : std::string("?"))});
  estimate = *roofline.headroom_pct;
}

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
        estimate(*spills, *occupancy->cause.estimated_speedup_pct,
                 occupancy->cause.estimate_confidence.value_or(EstimateConfidence::medium));
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
  const std::optional<StallSpread> spread = stall_spread();
  std::vector<Draft*> drafts;
  for (Draft& draft : m_drafts) {
    if (draft.cause.title.empty()) {
      continue;
    }
    if (spread) {
      lower_confidence(draft, *spread);
    }
    cap_by_idle_sms(draft);
    cap_by_headroom(draft);
    if (draft.cause.estimated_speedup_pct) {
      draft.cause.estimated_speedup_pct =
          round_to(std::clamp(*draft.cause.estimated_speedup_pct, 0.0, 100.0), 2);
    } else {
      draft.cause.estimate_confidence.reset();
    }
    drafts.push_back(&draft);
  }
  // The order the causes were built in decides only what the evidence leaves equal.
  std::stable_sort(drafts.begin(), drafts.end(), [](const Draft* a, const Draft* b) {
    // A launch of a few microseconds is as short as launching it: whatever the rules estimate
    // for its grid, only fewer launches gain (a launch_bound cause exists only for those).
    const bool launch_a = a->cause.category == Category::launch_bound;
    if (launch_a != (b->cause.category == Category::launch_bound)) {
      return launch_a;
    }
    const auto& x = a->cause.estimated_speedup_pct;
    const auto& y = b->cause.estimated_speedup_pct;
    if (x.has_value() != y.has_value()) {
      return x.has_value();
    }
    if (x && *x != *y) {
      return *x > *y;
    }
    const bool excess_a = has_measured_excess(*a);
    if (excess_a != has_measured_excess(*b)) {
      return excess_a; // the waste the defect moves is part of what the other cause measures
    }
    const auto confidence = [](const Draft* d) {
      return d->cause.estimate_confidence ? static_cast<int>(*d->cause.estimate_confidence) : -1;
    };
    if (confidence(a) != confidence(b)) {
      return confidence(a) > confidence(b);
    }
    return a->samples > b->samples;
  });
  std::vector<DiagnosisCause> causes;
  causes.reserve(drafts.size());
  for (Draft* draft : drafts) {
    causes.push_back(std::move(draft->cause));
  }
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

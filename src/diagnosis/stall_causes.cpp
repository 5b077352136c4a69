// The samples each cause owns, and ncu's per-stall rules: folded into the cause that owns most of
// the stall's samples (or, without a source page, the cause the stall's kind belongs to), else a
// cause of their own (memory latency on the load the stalls wait for, barriers, MIO).
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

bool Diagnoser::is_write(const Instruction& instruction) {
  return instruction.op.kind == SassKind::global_store ||
         instruction.op.kind == SassKind::global_atomic;
}

Diagnoser::CodeTotals Diagnoser::totals_of(const Code& code) {
  CodeTotals totals;
  for (const Instruction& instruction : code.instructions) {
    const LineCounters& counters = instruction.sass->counters;
    totals.shared_wavefronts += counters.shared_wavefronts;
    totals.shared_excessive += counters.shared_wavefronts_excessive;
    if (is_write(instruction)) {
      totals.write_sectors += counters.l2_sectors;
      if (instruction.op.kind == SassKind::global_atomic) {
        totals.atomic_sectors += counters.l2_sectors;
      }
    }
  }
  return totals;
}

double Diagnoser::owned_samples(const Draft& draft, const Wait& wait) const {
  if (draft.owned.contains(wait.for_)) {
    return wait.samples;
  }
  if (wait.reason != "drain" || m_totals.write_sectors <= 0) {
    return 0;
  }
  double sectors = 0;
  for (const std::size_t i : draft.owned) {
    if (is_write(m_code.instructions[i])) {
      sectors += m_code.instructions[i].sass->counters.l2_sectors;
    }
  }
  return wait.samples * sectors / m_totals.write_sectors;
}

void Diagnoser::own_samples() {
  if (!m_has_code) {
    return;
  }
  for (Draft& draft : m_drafts) {
    if (draft.owned.empty()) {
      continue;
    }
    double owned = 0;
    for (const Wait& wait : m_code.waits) {
      owned += owned_samples(draft, wait);
    }
    draft.samples = owned;
    if (!draft.cause.estimated_speedup_pct) {
      estimate(draft, 100 * share_of(owned), EstimateConfidence::high);
    }
    draft.cause.evidence.push_back(
        {"source page: warp stall samples", owned,
         fmt::format("{} of the launch's {} samples are spent on these instructions or "
                     "waiting for them",
                     pct(100 * share_of(owned)), count(m_code.samples))});
  }
}

std::vector<double> Diagnoser::stall_owners(std::string_view stall, double& total) const {
  std::vector<double> owned(m_drafts.size(), 0.0);
  total = 0;
  for (const Wait& wait : m_code.waits) {
    if (wait.reason != stall) {
      continue;
    }
    total += wait.samples;
    for (std::size_t d = 0; d < m_drafts.size(); ++d) {
      owned[d] += owned_samples(m_drafts[d], wait);
    }
  }
  return owned;
}

Draft* Diagnoser::owner_by_kind(std::string_view stall) {
  const auto first_of = [&](std::initializer_list<Category> categories) -> Draft* {
    for (const Category category : categories) {
      if (Draft* found = find(category)) {
        return found;
      }
    }
    return nullptr;
  };
  if (stall == "long_sb" || stall == "lg" || stall == "drain") {
    return first_of(
        {Category::uncoalesced_access, Category::register_spills, Category::atomic_contention});
  }
  if (stall == "mio" || stall == "short_sb") {
    return first_of({Category::bank_conflicts});
  }
  if (stall == "membar") {
    return first_of({Category::atomic_contention});
  }
  return nullptr;
}

Draft* Diagnoser::parallelism_cause() {
  for (const Category category : {Category::too_few_blocks, Category::low_occupancy}) {
    if (Draft* found = find(category)) {
      return found;
    }
  }
  return nullptr;
}

void Diagnoser::fold_stall_rules() {
  for (Rule& stall_rule : m_rules) {
    if (stall_rule.used || stall_rule.result->name != "CPIStall") {
      continue;
    }
    const std::string& stall = stall_rule.stall;
    Draft* owner = nullptr;
    if (m_has_code && !stall.empty()) {
      double total = 0;
      const std::vector<double> owned = stall_owners(stall, total);
      const auto best = std::max_element(owned.begin(), owned.end());
      if (best != owned.end() && total > 0 && *best >= k_fold_share * total) {
        owner = &m_drafts[static_cast<std::size_t>(best - owned.begin())];
      }
    } else if (!m_has_code) {
      owner = owner_by_kind(stall);
    }
    const bool memory_wait = stall == "long_sb" || stall == "lg" || stall == "drain";
    if (owner == nullptr && memory_wait) {
      // At a bandwidth roof the waits are the bandwidth's; else too few warps hide them.
      owner = find(Category::dram_bound);
      owner = owner != nullptr ? owner : find(Category::cache_bound);
    }
    if (owner == nullptr && (memory_wait || stall.empty())) {
      owner = parallelism_cause();
    }
    if (owner == nullptr && stall == "math") {
      owner = find(Category::compute_bound);
    }
    if (owner != nullptr) {
      take_rule(*owner, stall_rule,
                fmt::format("folded here, warps stalled on {}", stall_words(stall)));
      continue;
    }
    add_stall_cause(stall_rule);
  }
}

std::string Diagnoser::waited_kind(std::string_view stall, std::size_t line) const {
  if (stall == "drain") {
    return "their writes";
  }
  std::map<SassKind, double> kinds;
  for (const Wait& wait : m_code.waits) {
    const bool counted = stall.empty() ? is_waiting(wait.reason) : wait.reason == stall;
    if (counted && m_code.instructions[wait.for_].line == line) {
      kinds[m_code.instructions[wait.for_].op.kind] += wait.samples;
    }
  }
  const auto most = std::max_element(
      kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string other = stall.empty() ? "the instructions" : "memory";
  if (most == kinds.end()) {
    return other;
  }
  switch (most->first) {
  case SassKind::global_load:
    return "the global load";
  case SassKind::local_load:
  case SassKind::local_store:
    return "local memory";
  case SassKind::global_atomic:
  case SassKind::fence:
    return "the atomic";
  case SassKind::shared_load:
    return stall.empty() ? "the shared-memory load" : other;
  case SassKind::special:
    return stall.empty() ? "the special function (MUFU)" : other;
  default:
    return other;
  }
}

void Diagnoser::add_stall_cause(Rule& stall_rule) {
  const std::string& stall = stall_rule.stall;
  Category category = Category::other;
  if (stall == "long_sb" || stall == "lg" || stall == "drain" || stall == "membar") {
    category = Category::memory_latency;
  } else if (stall == "barrier") {
    category = Category::barrier_stalls;
  } else if (stall == "mio" || stall == "short_sb") {
    category = Category::mio_pressure;
  } else if (stall == "no_inst") {
    category = Category::instruction_cache;
  } else if (stall == "math") {
    category = Category::compute_bound;
  }
  Draft* existing = find(category);
  Draft& draft = existing != nullptr ? *existing : add(category, "ncu:CPIStall");
  take_rule(draft, stall_rule);
  if (existing != nullptr) {
    return;
  }
  std::optional<std::size_t> line;
  std::string waited = "memory";
  if (m_has_code && !stall.empty()) {
    std::map<std::size_t, double> per;
    if (stall == "drain") {
      // Warps at exit wait for their outstanding writes: the line that writes the most.
      per = per_line([](const Instruction& i) { return is_write(i); },
                     [](const Instruction& i) { return i.sass->counters.l2_sectors; });
    } else {
      for (const Wait& wait : m_code.waits) {
        if (wait.reason == stall && m_code.instructions[wait.for_].line) {
          per[*m_code.instructions[wait.for_].line] += wait.samples;
        }
      }
    }
    line = largest(per);
    if (line) {
      set_line(draft, *line);
      waited = waited_kind(stall, *line);
      draft.samples = stall == "drain" ? 0.0 : per[*line];
      own(draft, [&](const Instruction& i) {
        return i.line == line && (i.op.kind == SassKind::global_load ||
                                  i.op.kind == SassKind::local_load || stall != "long_sb");
      });
      draft.cause.evidence.push_back(
          {"source page: " + stall + " stall samples for " + where(m_code.lines[*line]), per[*line],
           stall == "drain"
               ? fmt::format("L2 sectors {} writes: what the warps at exit wait for",
                             where(m_code.lines[*line]))
               : fmt::format("{} of the samples are warps waiting for {}",
                             pct0(100 * share_of(per[*line])), where(m_code.lines[*line]))});
    }
  }
  const std::string at = line ? " at " + where(m_code.lines[*line]) : std::string();
  switch (category) {
  case Category::memory_latency:
    draft.cause.title =
        fmt::format("Memory latency: warps wait on {}{} ({} stalls) with {} of "
                    "DRAM bandwidth in use: too few bytes in flight",
                    waited, at, stall_name(stall),
                    m_facts.dram_throughput_pct ? pct(m_facts.dram_throughput_pct->value)
                                                : std::string("an unknown share"));
    break;
  case Category::barrier_stalls:
    draft.cause.title =
        "Barrier stalls" + at + ": warps wait at barriers for the rest of their block";
    break;
  case Category::mio_pressure:
    draft.cause.title = "MIO pressure" + at + ": the shared-memory/special-function queue is full";
    break;
  case Category::instruction_cache:
    draft.cause.title = "Instruction fetch: warps wait for instructions (cache misses or branches)";
    break;
  default:
    draft.cause.title = first_sentence(stall_rule.result->description);
    break;
  }
}

void Diagnoser::add_stall_metrics() {
  if (!m_rules.empty() || m_facts.roofline.bottleneck != Bottleneck::latency ||
      parallelism_cause() != nullptr) {
    return;
  }
  struct Stall {
    const std::optional<SourcedNumber>* fact;
    Category category;
    std::string_view title;
  };
  const std::array<Stall, 4> stalls{{
      {&m_facts.long_scoreboard_stall_pct, Category::memory_latency,
       "Memory latency: warps wait on global or local memory (long-scoreboard stalls)"},
      {&m_facts.lg_throttle_stall_pct, Category::memory_latency,
       "Memory latency: the global/local memory queue is full (LG-throttle stalls)"},
      {&m_facts.mio_throttle_stall_pct, Category::mio_pressure,
       "MIO pressure: the shared-memory/special-function queue is full"},
      {&m_facts.barrier_stall_pct, Category::barrier_stalls,
       "Barrier stalls: warps wait at barriers for the rest of their block"},
  }};
  for (const Stall& stall : stalls) {
    const std::optional<SourcedNumber>& fact = *stall.fact;
    if (!fact || fact->value < k_stall_metric_pct || find(stall.category) != nullptr) {
      continue;
    }
    Draft& draft = add(stall.category, "kprof:metrics");
    std::string dram;
    if (m_facts.roofline.dram_peak_fraction) {
      dram = fmt::format(", DRAM at {} of peak", pct(100 * *m_facts.roofline.dram_peak_fraction));
    }
    draft.cause.title =
        fmt::format("{}: {} of the warps' cycles{}", stall.title, pct(fact->value), dram);
    draft.cause.evidence.push_back(fact_evidence(*fact, "stalled share of active warp cycles"));
  }
}

std::optional<StallSpread> Diagnoser::stall_spread() const {
  StallSpread largest;
  if (m_has_code) {
    std::map<std::string, double> by_reason;
    for (const Wait& wait : m_code.waits) {
      if (is_waiting(wait.reason)) {
        by_reason[wait.reason] += wait.samples;
      }
    }
    for (const auto& [reason, samples] : by_reason) {
      if (samples / m_code.samples > largest.share) {
        largest = StallSpread{reason, samples / m_code.samples, "of the warps' samples"};
      }
    }
  } else {
    bool known = false;
    for (const Rule& stall : m_rules) {
      if (stall.result->name == "CPIStall" && stall.stall_share_pct) {
        known = true;
        if (*stall.stall_share_pct / 100 > largest.share) {
          largest = StallSpread{stall.stall, *stall.stall_share_pct / 100,
                                "of the cycles between two issues (ncu's CPIStall)"};
        }
      }
    }
    if (!known) {
      return std::nullopt;
    }
  }
  if (largest.reason.empty() || largest.share >= k_dominant_stall_share) {
    return std::nullopt;
  }
  return largest;
}

void Diagnoser::lower_confidence(Draft& draft, const StallSpread& spread) {
  if (!is_stall_model(draft.estimate_rule) ||
      draft.cause.estimate_confidence != EstimateConfidence::medium) {
    return;
  }
  draft.cause.estimate_confidence = EstimateConfidence::low;
  draft.cause.evidence.push_back(
      {"stall reasons: the largest share", 100 * spread.share,
       fmt::format("no single stall reason dominates the warps' cycles (the largest, {}, holds {} "
                   "{}): hiding one moves the warps to the others, so ncu's {} estimate "
                   "rebalances the time more than it reduces it",
                   stall_words(spread.reason), pct(100 * spread.share), spread.of,
                   draft.estimate_rule)});
}

void Diagnoser::add_other_rules() {
  for (Rule& other : m_rules) {
    if (other.used || !other.global_pct) {
      continue;
    }
    const std::string& name = other.result->name;
    if (name == "HighPipeUtilization" || name == "IssueSlotUtilization" ||
        name == "SOLBottleneck") {
      continue; // symptoms, folded after ranking
    }
    Draft& draft = add(Category::other, "ncu:" + name);
    take_rule(draft, other);
    draft.cause.title = fmt::format("{} (ncu {})", first_sentence(other.result->description), name);
    const std::string& description = other.result->description;
    const std::size_t advice = first_sentence(description).size();
    draft.cause.fix =
        "ncu's advice: " +
        (advice < description.size() ? std::string(description.substr(advice + 1)) : description);
  }
}

} // namespace kprof::diagnosis

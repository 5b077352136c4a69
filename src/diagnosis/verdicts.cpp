// The roofline's verdicts: a memory- or compute-bound kernel whose time no defect explains is
// dram_bound, cache_bound or compute_bound; a kernel near neither roof with no cause found is
// latency_bound.
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

void Diagnoser::add_roofline() {
  const Roofline& roofline = m_facts.roofline;
  if (roofline.bottleneck == Bottleneck::memory && roofline.memory_sol_pct) {
    add_memory_verdict(roofline);
  } else if (roofline.bottleneck == Bottleneck::compute && roofline.compute_sol_pct) {
    add_compute_verdict(roofline);
  }
}

void Diagnoser::add_latency_verdict() {
  const Roofline& roofline = m_facts.roofline;
  if (m_drafts.empty() && (roofline.compute_sol_pct || roofline.memory_sol_pct)) {
    Draft& draft = add(Category::latency_bound, "kprof:roofline");
    draft.cause.title =
        fmt::format("Latency-bound: compute {} and memory {} of peak, and no defect found",
                    roofline.compute_sol_pct ? pct(*roofline.compute_sol_pct) : std::string("?"),
                    roofline.memory_sol_pct ? pct(*roofline.memory_sol_pct) : std::string("?"));
    draft.cause.evidence.push_back({"roofline", roofline.explanation, "the roofline's verdict"});
  }
}

void Diagnoser::add_memory_verdict(const Roofline& roofline) {
  const double memory = *roofline.memory_sol_pct;
  // The defects whose excess traffic ncu measures (sectors, wavefronts) explain the verdict.
  // A chain of dependent loads wastes sectors too: its addresses are data.
  Draft* chain = nullptr;
  for (Draft& draft : m_drafts) {
    chain = draft.moves_excess && draft.cause.category == Category::memory_latency ? &draft : chain;
  }
  // On the L1's roof with no wasted global sectors, the shared-memory accesses are the traffic.
  const std::optional<SourcedNumber>& l1 = m_facts.l1_throughput_pct;
  const auto above_l1 = [&](const std::optional<SourcedNumber>& other) {
    return other && other->value > l1->value;
  };
  const bool l1_busiest =
      l1 && !above_l1(m_facts.dram_throughput_pct) && !above_l1(m_facts.l2_throughput_pct);
  if (l1_busiest && find(Category::uncoalesced_access) == nullptr && chain == nullptr &&
      add_shared_pipe_pressure(memory, Bottleneck::memory)) {
    return;
  }
  // DRAM when it is (nearly) what the memory SOL is made of (every DRAM byte also passes L2);
  // without ncu's DRAM throughput, the bandwidth against the GPU's datasheet peak says it.
  std::optional<SourcedNumber> dram_pct = m_facts.dram_throughput_pct;
  if (!dram_pct && roofline.dram_peak_fraction) {
    dram_pct = SourcedNumber{100 * *roofline.dram_peak_fraction,
                             "roofline: DRAM bandwidth / the datasheet's peak"};
  }
  const bool dram_made = dram_pct && dram_pct->value >= k_dram_share_of_sol * memory;
  for (const Category defect : {Category::uncoalesced_access, Category::bank_conflicts}) {
    Draft* found = find(defect);
    // Shared-memory wavefronts move no DRAM byte: conflicts explain an L1's SOL, not DRAM's (a
    // lookup table's conflicts took the verdict of a kernel at 79% of DRAM peak).
    if (found != nullptr && defect == Category::bank_conflicts && dram_made) {
      found = nullptr;
    }
    found = found != nullptr ? found : chain;
    if (found != nullptr) {
      found->cause.evidence.push_back(
          {"roofline: memory SOL", memory,
           fmt::format("memory-bound at {} of peak, on bytes the defect wastes: fixing it, not "
                       "more bandwidth, is the gain",
                       pct(memory))});
      if (found->cause.category == Category::uncoalesced_access) {
        found->cause.title += fmt::format("; memory-bound at {} of peak on them: an "
                                          "access-pattern defect, not the roofline",
                                          pct0(memory));
      }
      return;
    }
  }
  struct Unit {
    std::string_view name;
    const std::optional<SourcedNumber>* fact;
  };
  const std::array<Unit, 3> units{{{"DRAM", &m_facts.dram_throughput_pct},
                                   {"L2", &m_facts.l2_throughput_pct},
                                   {"L1", &m_facts.l1_throughput_pct}}};
  const Unit* busiest = nullptr;
  for (const Unit& unit : units) {
    if (*unit.fact && (busiest == nullptr || (*unit.fact)->value > (**busiest->fact).value)) {
      busiest = &unit;
    }
  }
  const bool dram = dram_pct ? dram_made : busiest != nullptr && busiest->name == "DRAM";
  Draft& draft = add(dram ? Category::dram_bound : Category::cache_bound, "kprof:roofline");
  estimate(draft, 100 - memory, EstimateConfidence::high);
  std::string bandwidth;
  if (roofline.dram_bytes_per_s) {
    bandwidth = " (" + format_with_unit(*roofline.dram_bytes_per_s, "byte/s") + ")";
  }
  if (dram) {
    draft.cause.title = fmt::format("DRAM-bandwidth-bound at {} of peak{}: the bytes moved are "
                                    "used; only moving fewer of them gains",
                                    pct(dram_pct ? dram_pct->value : memory), bandwidth);
  } else if (busiest != nullptr && busiest->name != "DRAM") {
    draft.cause.title = fmt::format("{}-bandwidth-bound at {} of peak", busiest->name,
                                    pct((**busiest->fact).value));
  } else {
    draft.cause.title = fmt::format(
        "Cache-bandwidth-bound: memory SOL {} with DRAM at {} of peak (L1 or L2: the default "
        "set's throughputs name which)",
        pct(memory), dram_pct ? pct(dram_pct->value) : std::string("?"));
  }
  draft.cause.evidence.push_back({"roofline: memory SOL", memory, roofline.explanation});
  if (dram_pct && !m_facts.dram_throughput_pct) {
    draft.cause.evidence.push_back(fact_evidence(*dram_pct, "DRAM bandwidth, of its peak"));
  }
  for (const Unit& unit : units) {
    if (*unit.fact) {
      draft.cause.evidence.push_back(
          fact_evidence(**unit.fact, std::string(unit.name) + " throughput, of its peak"));
    }
  }
}

void Diagnoser::add_compute_verdict(const Roofline& roofline) {
  const double compute = *roofline.compute_sol_pct;
  for (const Category defect : {Category::tensor_cores_unused, Category::warp_divergence}) {
    if (Draft* found = find(defect)) {
      found->cause.evidence.push_back(
          {"roofline: compute SOL", compute,
           fmt::format("compute-bound at {} of peak, on work the defect wastes", pct(compute))});
      return;
    }
  }
  if (add_shared_pipe_pressure(compute, Bottleneck::compute)) {
    return;
  }
  Draft& draft = add(Category::compute_bound, "kprof:roofline");
  // With SMs idle for a tenth of the cycles or more and a cause that leaves them idle (a partial
  // last wave, blocks finishing unevenly), the compute SOL counts the idle SMs' cycles too: the
  // roof's own headroom is the busy SMs' distance from their peak, the rest is that cause's.
  const std::optional<double> idle = idle_sm_share();
  const bool idle_cause =
      find(Category::tail_effect) != nullptr || find(Category::load_imbalance) != nullptr;
  if (idle && *idle >= k_idle_sm_share && *idle < 1 && idle_cause) {
    const double busy = std::min(100.0, compute / (1 - *idle));
    estimate(draft, 100 - busy, EstimateConfidence::high);
    draft.cause.evidence.push_back(
        {m_facts.sm_active_cycles->metric + " / " + m_facts.elapsed_cycles->metric,
         100 * (1 - *idle),
         fmt::format("the SMs had warps for {} of the launch's cycles: SM throughput {} of peak "
                     "while active, so the roof's own headroom is {}; the idle SMs' share is the "
                     "parallelism cause's",
                     pct(100 * (1 - *idle)), pct(busy), pct(100 - busy))});
  } else {
    estimate(draft, 100 - compute, EstimateConfidence::high);
  }
  std::string pipe;
  if (m_facts.fma_pipe_pct) {
    pipe += "; FMA pipe " + pct(m_facts.fma_pipe_pct->value);
    draft.cause.evidence.push_back(fact_evidence(*m_facts.fma_pipe_pct, "FMA pipe utilization"));
  }
  if (m_facts.tensor_pipe_pct) {
    pipe += "; tensor pipe " + pct(m_facts.tensor_pipe_pct->value);
    draft.cause.evidence.push_back(fact_evidence(*m_facts.tensor_pipe_pct, "tensor pipe activity"));
  }
  if (m_facts.issue_active_pct) {
    pipe += "; issue slots " + pct(m_facts.issue_active_pct->value);
    draft.cause.evidence.push_back(fact_evidence(*m_facts.issue_active_pct, "issue slots busy"));
  }
  draft.cause.title = fmt::format("Compute-bound: SM throughput {} of peak{}", pct(compute), pipe);
  draft.cause.evidence.push_back({"roofline: compute SOL", compute, roofline.explanation});
}

} // namespace kprof::diagnosis

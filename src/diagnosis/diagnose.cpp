// Design note: the ranked diagnosis (docs/diagnosis.md).
//
// A diagnosis is built in five steps, each from numbers the capture holds:
//  1. causes from the evidence that names a defect: ncu's rules that do (UncoalescedGlobalAccess,
//     UncoalescedSharedAccess, TheoreticalOccupancy, AchievedOccupancy, LaunchConfiguration,
//     ThreadDivergence), the launch against the GPU's SMs, the metrics (spill requests, sector
//     use, occupancy limits), and, with a source page, the instructions (excessive sectors and
//     wavefronts per instruction, local-memory instructions, contended atomics, a matrix product
//     without tensor instructions, lanes idle per line);
//  2. every cause with instructions owns the samples spent on them and on waiting for them (a
//     stall waits for the load that produced the register it reads: Code::waits), which is its
//     estimate when no rule gives one, and which decides where ncu's per-stall rules (CPIStall)
//     go: into the cause that owns most of that stall's samples; without a source page, into the
//     cause the stall's kind belongs to; else they become a cause of their own (memory latency
//     on the load the stalls wait for, barrier stalls, ...);
//  3. the roofline: a memory- or compute-bound verdict is folded into a defect that explains it
//     (memory-bound at 89% of peak on sectors used to 12.5% is an access defect, not a kernel at
//     its roofline), and is a cause of its own (dram_bound, cache_bound, compute_bound) otherwise;
//  4. pointing at code: parallelism causes take the line the warps wait on, causes fixed at the
//     launch the launch's line in the kernel file; every cause gets its fix in the kernel's
//     language (fixes.cpp);
//  5. ranking (ranking.cpp): a launch of a few microseconds leads with launch-bound; estimates
//     that keep the work are capped by the roofline's headroom; ncu's stall-model estimates are
//     low-confidence when no stall reason dominates; by estimate, ties broken by evidence; then
//     the generic symptoms (IssueSlotUtilization, "all compute pipelines are under-utilized") go
//     to the first cause as evidence.
// ncu's estimates are its global ones (a local estimate is about a unit, not the launch's time,
// and leaves the cause without an estimate); kprof's own are upper bounds of the same kind, each
// documented where it is computed.
#include "kprof/diagnosis.hpp"

#include "diagnosis/diagnoser.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "diagnosis/text.hpp"
#include "kprof/numbers.hpp"

namespace kprof {
namespace diagnosis {

Diagnoser::Diagnoser(const DiagnosisInput& input)
    : m_input(input), m_launch(*input.launch), m_facts(*input.facts),
      m_rules(rules_of(*input.launch)) {
  if (input.blocks != nullptr && input.hot_lines != nullptr) {
    m_code = read_code(*input.blocks, *input.hot_lines);
  }
  m_has_code = !m_code.instructions.empty() && m_code.samples > 0;
  m_totals = totals_of(m_code);
  const KernelSource* source = input.kernel_source;
  if (source != nullptr && source->text && !is_library_kernel(m_launch.name)) {
    m_launch_site = find_launch(*source->text, kernel_identifier(m_launch.name));
  }
}

Diagnosis Diagnoser::run() {
  add_uncoalesced();
  add_bank_conflicts();
  add_launch_causes();
  add_occupancy();
  add_spills();
  add_tensor_cores();
  add_atomics();
  add_divergence();
  own_samples();
  weigh_bank_conflicts();
  add_roofline();
  fold_stall_rules();
  add_other_rules();
  add_stall_metrics();
  add_latency_verdict();
  add_launch_bound();
  point_at_code();
  write_fixes();
  Diagnosis out;
  out.causes = rank();
  out.notes = notes();
  return out;
}

Rule* Diagnoser::rule(std::string_view name) {
  for (Rule& rule : m_rules) {
    if (!rule.used && rule.result->name == name) {
      return &rule;
    }
  }
  return nullptr;
}

Draft* Diagnoser::find(Category category) {
  for (Draft& draft : m_drafts) {
    if (draft.cause.category == category) {
      return &draft;
    }
  }
  return nullptr;
}

Draft& Diagnoser::add(Category category, std::string source) {
  Draft draft;
  draft.cause.category = category;
  draft.cause.source = std::move(source);
  m_drafts.push_back(std::move(draft));
  return m_drafts.back();
}

void Diagnoser::take_rule(Draft& draft, Rule& rule, std::string_view how) {
  rule.used = true;
  // A roofline verdict's estimate is its headroom: a kernel at its roof gains no more.
  const Category category = draft.cause.category;
  const bool verdict = category == Category::dram_bound || category == Category::cache_bound ||
                       category == Category::compute_bound;
  if (rule.global_pct && !(verdict && draft.cause.estimated_speedup_pct) &&
      estimate(draft, *rule.global_pct, rule_confidence(rule))) {
    draft.estimate_rule = rule.result->name;
  }
  draft.cause.evidence.push_back(rule_evidence(rule, how));
}

bool Diagnoser::estimate(Draft& draft, double pct, EstimateConfidence confidence) {
  std::optional<double>& current = draft.cause.estimated_speedup_pct;
  if (current && pct <= *current) {
    return false;
  }
  current = pct;
  draft.cause.estimate_confidence = confidence;
  draft.estimate_rule.clear();
  return true;
}

void Diagnoser::set_line(Draft& draft, std::size_t line) const {
  const UserLine& user = m_code.lines[line];
  draft.cause.line = DiagnosisLine{user.file, user.line};
}

std::optional<std::size_t> Diagnoser::largest(const std::map<std::size_t, double>& sums) {
  std::optional<std::size_t> best;
  for (const auto& [line, value] : sums) {
    if (value > 0 && (!best || value > sums.at(*best))) {
      best = line;
    }
  }
  return best;
}

void Diagnoser::add_waiting_lines(Draft& draft) const {
  std::map<std::size_t, double> waiting;
  for (const Wait& wait : m_code.waits) {
    if (wait.at != wait.for_ && draft.owned.contains(wait.for_) &&
        m_code.instructions[wait.at].line) {
      waiting[*m_code.instructions[wait.at].line] += wait.samples;
    }
  }
  std::vector<std::pair<double, std::size_t>> ordered;
  ordered.reserve(waiting.size());
  for (const auto& [line, samples] : waiting) {
    ordered.emplace_back(samples, line);
  }
  std::sort(ordered.rbegin(), ordered.rend());
  for (std::size_t i = 0; i < ordered.size() && i < 2; ++i) {
    const UserLine& line = m_code.lines[ordered[i].second];
    draft.cause.evidence.push_back(
        {"source page: stall samples at " + where(line), ordered[i].first,
         fmt::format("{} of the samples are warps at {} waiting for the value these "
                     "instructions produce",
                     pct0(100 * share_of(ordered[i].first)), where(line))});
  }
}

std::string Diagnoser::launch_note() const {
  const KernelSource* source = m_input.kernel_source;
  if (is_library_kernel(m_launch.name)) {
    return "a library's kernel: the library launches it, so its launch is not in the kernel file";
  }
  if (source == nullptr) {
    return "the launch's line is not shown: a capture read on its own does not say which file "
           "launched the kernel (a profiled round does: metadata.kernel_file)";
  }
  if (!source->text) {
    return fmt::format("the launch's line is not shown: the kernel file {} could not be read ({})",
                       source->path, source->error);
  }
  const std::string name = kernel_identifier(m_launch.name);
  return fmt::format("{} is not launched in {} (no `{}[grid](...)` or `{}<<<...>>>` there): it is "
                     "launched from another file",
                     name, basename_of(source->path), name, name);
}

std::vector<std::string> Diagnoser::notes() const {
  std::vector<std::string> out;
  if (m_input.page == PageKind::raw) {
    out.emplace_back("no ncu rules: this is ncu's raw page; `--metrics deep` records the details "
                     "page, whose rules add uncoalesced access, bank conflicts, occupancy, "
                     "divergence and tail effects with ncu's estimates");
  } else if (m_launch.rules.empty()) {
    out.emplace_back("ncu evaluated no rules for this launch");
  }
  if (m_input.blocks == nullptr) {
    out.emplace_back("no source counters: `--source` (implied by `--metrics deep`) adds the "
                     "lines, the load each stall waits for, spills, atomic contention and "
                     "tensor-core use");
  } else if (!m_has_code) {
    out.emplace_back("the source page has no instructions of this launch (no line info)");
  }
  if (m_wants_launch && !m_launch_site) {
    out.push_back(launch_note());
  }
  if (m_input.metric_set == "lean") {
    out.emplace_back("the lean set has only the roofline's metrics: `default` adds occupancy "
                     "limits, stall reasons, sector use and branch uniformity");
  }
  return out;
}

} // namespace diagnosis

Diagnosis diagnose(const DiagnosisInput& input) {
  KPROF_ASSERT(input.launch != nullptr && input.facts != nullptr);
  return diagnosis::Diagnoser(input).run();
}

} // namespace kprof

// Causes of the launch: too few blocks, a partial last wave, occupancy (theoretical and
// achieved), and a launch about as short as launching it.
#include "diagnosis/diagnoser.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "diagnosis/text.hpp"
#include "kprof/numbers.hpp"

namespace kprof::diagnosis {

void Diagnoser::add_launch_causes() {
  const std::optional<SourcedNumber>& sms = m_facts.sm_count;
  const double grid = blocks();
  Rule* launch = rule("LaunchConfiguration");
  while (launch != nullptr && !launch->global_pct) {
    launch->used = true; // advice without an estimate ("two blocks per SM for __syncthreads")
    launch = rule("LaunchConfiguration");
  }
  if (sms && grid > 0 && grid < sms->value) {
    Draft& draft = add(Category::too_few_blocks,
                       launch != nullptr ? "ncu:LaunchConfiguration" : "kprof:launch");
    if (launch != nullptr) {
      take_rule(draft, *launch);
    } else {
      estimate(draft, 100 * (1 - grid / sms->value), EstimateConfidence::medium);
    }
    draft.cause.title = fmt::format("Too few blocks: {} of {} for {}, {} idle",
                                    counted(grid, "block"), counted(threads_per_block(), "thread"),
                                    counted(sms->value, "SM"), counted(sms->value - grid, "SM"));
    draft.cause.evidence.push_back({"launch: grid", grid, "blocks in the grid"});
    draft.cause.evidence.push_back(fact_evidence(*sms, "SMs of the GPU"));
    if (Rule* achieved = rule("AchievedOccupancy")) {
      take_rule(draft, *achieved, "the occupancy the idle SMs cost");
    }
    return;
  }
  if (launch == nullptr) {
    return;
  }
  Draft& draft = add(Category::tail_effect, "ncu:LaunchConfiguration");
  take_rule(draft, *launch);
  const std::optional<SourcedNumber>& waves = m_facts.waves_per_sm;
  if (waves) {
    draft.cause.evidence.push_back(fact_evidence(*waves, "waves of blocks the grid makes"));
    draft.cause.title =
        fmt::format("Partial last wave: {} blocks make {} waves, the last one partly empty",
                    count(grid), format_fixed(waves->value, 2));
  } else {
    draft.cause.title =
        fmt::format("Partial last wave: {} blocks leave the last wave partly empty", count(grid));
  }
}

std::vector<Diagnoser::Limit> Diagnoser::occupancy_limits() const {
  std::vector<Limit> limits;
  const auto add_limit = [&](const std::optional<SourcedNumber>& fact, std::string_view resource) {
    if (fact && fact->value > 0) {
      limits.push_back(Limit{fact->value, resource, &*fact});
    }
  };
  add_limit(m_facts.block_limit_registers, "registers");
  add_limit(m_facts.block_limit_shared_mem, "shared memory");
  add_limit(m_facts.block_limit_warps, "warps");
  add_limit(m_facts.block_limit_blocks, "block slots");
  add_limit(m_facts.block_limit_barriers, "barriers");
  std::stable_sort(limits.begin(), limits.end(),
                   [](const Limit& a, const Limit& b) { return a.blocks < b.blocks; });
  return limits;
}

std::optional<double> Diagnoser::exact_waves() const {
  const std::vector<Limit> limits = occupancy_limits();
  const std::optional<SourcedNumber>& sms = m_facts.sm_count;
  const std::optional<SourcedNumber>& max_warps = m_facts.max_warps_per_sm;
  if (limits.empty() || !sms || sms->value <= 0 || blocks() <= 0) {
    return m_facts.waves_per_sm ? std::optional<double>(m_facts.waves_per_sm->value) : std::nullopt;
  }
  double per_sm = limits.front().blocks;
  if (!m_facts.block_limit_warps && max_warps && warps_per_block() > 0) {
    per_sm = std::min(per_sm, std::floor(max_warps->value / warps_per_block()));
  }
  return per_sm > 0 ? std::optional<double>(blocks() / (sms->value * per_sm)) : std::nullopt;
}

std::optional<SourcedNumber> Diagnoser::theoretical_occupancy() const {
  if (m_facts.theoretical_occupancy_pct) {
    return m_facts.theoretical_occupancy_pct;
  }
  const std::vector<Limit> limits = occupancy_limits();
  const std::optional<SourcedNumber>& max_warps = m_facts.max_warps_per_sm;
  if (limits.empty() || !max_warps || max_warps->value <= 0 || threads_per_block() <= 0) {
    return std::nullopt;
  }
  double blocks_per_sm = limits.front().blocks;
  if (!m_facts.block_limit_warps) {
    blocks_per_sm = std::min(blocks_per_sm, std::floor(max_warps->value / warps_per_block()));
  }
  return SourcedNumber{
      std::min(100.0, 100 * blocks_per_sm * warps_per_block() / max_warps->value),
      "kprof: blocks per SM (the smallest launch__occupancy_limit_*) x warps per block / " +
          max_warps->metric};
}

void Diagnoser::add_occupancy() {
  Rule* theoretical_rule = rule("TheoreticalOccupancy");
  const std::optional<SourcedNumber> theoretical = theoretical_occupancy();
  // Occupancy needs blocks: a grid of fewer blocks than SMs that fills less than one wave leaves
  // every SM with fewer blocks than its limits allow, so raising the limits adds no warp; the
  // warps the occupancy rule misses are the blocks the grid does not have.
  const std::optional<double> grid_waves = exact_waves();
  Draft* grid = find(Category::too_few_blocks);
  const bool grid_bound = grid != nullptr && grid_waves && *grid_waves < 1;
  if (grid_bound && theoretical_rule != nullptr) {
    take_rule(*grid, *theoretical_rule,
              fmt::format("folded here: {} blocks fill {} of one wave, so no SM reaches the "
                          "blocks its limits allow and only more blocks add warps",
                          count(blocks()), format_fixed(*grid_waves, 2)));
    theoretical_rule = nullptr;
  }
  const bool by_metrics =
      !grid_bound && m_rules.empty() && theoretical && theoretical->value <= k_low_occupancy_pct;
  if (theoretical_rule != nullptr || by_metrics) {
    Draft& draft = add(Category::low_occupancy,
                       theoretical_rule != nullptr ? "ncu:TheoreticalOccupancy" : "kprof:metrics");
    if (theoretical_rule != nullptr) {
      take_rule(draft, *theoretical_rule);
    } else if (m_facts.roofline.bottleneck == Bottleneck::latency) {
      // Without rules: what the missing warps could hide, for a kernel waiting on latency.
      estimate(draft, 100 - theoretical->value, EstimateConfidence::medium);
    }
    describe_occupancy(draft, theoretical);
  }
  // What an uneven finish measurably costs: the SMs' idle share beyond what the last wave's
  // empty slots explain (a ragged partition: 83% of the cycles idle against ncu's 10% estimate).
  const std::optional<double> idle = idle_sm_share();
  const std::optional<double> uneven = [&]() -> std::optional<double> {
    if (!idle || !grid_waves || *grid_waves <= 0) {
      return std::nullopt;
    }
    const double full = std::ceil(*grid_waves);
    return *idle - (full - *grid_waves) / full;
  }();
  const auto add_uneven = [&](Draft& draft) {
    if (!uneven || *uneven < k_idle_sm_share) {
      return;
    }
    draft.cause.evidence.push_back(
        {m_facts.sm_active_cycles->metric + " / " + m_facts.elapsed_cycles->metric, 100 * *idle,
         fmt::format("the SMs sat idle for {} of the launch's cycles, {} of them beyond the "
                     "last wave's empty slots ({} waves): what an even split of the work "
                     "would give back at most",
                     pct(100 * *idle), pct(100 * *uneven), format_fixed(*grid_waves, 2))});
    if (estimate(draft, 100 * *uneven, EstimateConfidence::medium)) {
      draft.cause.title += fmt::format(", the SMs idle {} of the cycles", pct(100 * *uneven));
    }
  };
  Rule* achieved_rule = rule("AchievedOccupancy");
  if (achieved_rule == nullptr) {
    // ncu rates the occupancy gap, and not at all when the gap is small; SMs idle beyond the
    // last wave's empty slots cost the time all the same (a triangular partition whose last
    // program has twice the mean's work: SMs idle 26% of the cycles, no AchievedOccupancy rule).
    if (uneven && *uneven >= k_idle_sm_share && find(Category::too_few_blocks) == nullptr) {
      Draft& draft = add(Category::load_imbalance, "kprof:launch");
      draft.cause.title = "Blocks finish unevenly: SMs sit idle while others work";
      add_uneven(draft);
    }
    return;
  }
  // A grid under one wave explains the gap when the empty part of the wave is most of it.
  const std::optional<SourcedNumber>& waves = m_facts.waves_per_sm;
  const std::optional<SourcedNumber>& achieved = m_facts.achieved_occupancy_pct;
  if (waves && waves->value < 1 && achieved && theoretical && theoretical->value > 0) {
    const double gap = 1 - achieved->value / theoretical->value;
    if (1 - waves->value >= gap / 2) {
      Draft& draft = add(Category::too_few_blocks, "ncu:AchievedOccupancy");
      take_rule(draft, *achieved_rule);
      draft.cause.title = fmt::format(
          "Too few blocks to fill the GPU: {} blocks fill {} of one wave (achieved occupancy "
          "{} of the theoretical {})",
          count(blocks()), format_fixed(waves->value, 2), pct(achieved->value),
          pct(theoretical->value));
      draft.cause.evidence.push_back(fact_evidence(*waves, "waves of blocks the grid makes"));
      draft.cause.evidence.push_back(fact_evidence(*achieved, "achieved occupancy"));
      return;
    }
  }
  // ncu rates the gap only locally (of the occupancy, not the launch's time): it costs time when
  // blocks finish unevenly, which leaves SMs without a warp while others work. SMs busy for all
  // but a few percent of the cycles say the gap is the scheduler's between short blocks.
  if (!achieved_rule->global_pct && idle && *idle < k_idle_sm_share) {
    achieved_rule->used = true;
    return;
  }
  Draft& draft = add(Category::load_imbalance, "ncu:AchievedOccupancy");
  take_rule(draft, *achieved_rule);
  if (achieved && theoretical) {
    draft.cause.title = fmt::format(
        "Achieved occupancy {} of the theoretical {}: warps finish unevenly or blocks are too "
        "short-lived to keep the SMs full",
        pct(achieved->value), pct(theoretical->value));
    draft.cause.evidence.push_back(fact_evidence(*achieved, "achieved occupancy"));
    draft.cause.evidence.push_back(fact_evidence(*theoretical, "theoretical occupancy"));
  } else {
    draft.cause.title = "Achieved occupancy well below the theoretical";
  }
  add_uneven(draft);
}

void Diagnoser::describe_occupancy(Draft& draft,
                                   const std::optional<SourcedNumber>& theoretical) const {
  const std::vector<Limit> limits = occupancy_limits();
  std::string limiter;
  if (!limits.empty()) {
    const Limit& smallest = limits.front();
    draft.cause.evidence.push_back(
        fact_evidence(*smallest.fact, fmt::format("blocks per SM the {} allow: the smallest limit",
                                                  smallest.resource)));
    if (smallest.resource == "registers" && m_facts.registers_per_thread) {
      limiter = fmt::format("registers: {} per thread", count(m_facts.registers_per_thread->value));
      draft.cause.evidence.push_back(
          fact_evidence(*m_facts.registers_per_thread, "registers per thread"));
    } else if (smallest.resource == "shared memory") {
      const double shared =
          m_facts.shared_mem_allocated_bytes
              ? m_facts.shared_mem_allocated_bytes->value
              : m_facts.shared_mem_dynamic_bytes.value_or(SourcedNumber{}).value +
                    m_facts.shared_mem_static_bytes.value_or(SourcedNumber{}).value;
      limiter = fmt::format("shared memory: {} bytes per block", count(shared));
      for (const auto* fact : {&m_facts.shared_mem_dynamic_bytes, &m_facts.shared_mem_static_bytes,
                               &m_facts.shared_mem_allocated_bytes}) {
        if (*fact) {
          draft.cause.evidence.push_back(fact_evidence(**fact, "shared memory per block"));
        }
      }
    } else if (smallest.resource == "warps") {
      limiter = fmt::format("the block size: {} per block", counted(warps_per_block(), "warp"));
    } else if (smallest.resource == "block slots") {
      limiter = fmt::format("the SM's block slots: blocks of only {}",
                            counted(warps_per_block(), "warp"));
    } else {
      limiter = std::string(smallest.resource);
    }
    draft.cause.title =
        fmt::format("Low occupancy: {} theoretical ({} of {} per SM), limited by {}",
                    theoretical ? pct(theoretical->value) : std::string("?"),
                    counted(smallest.blocks, "block"), counted(warps_per_block(), "warp"), limiter);
  } else {
    draft.cause.title = fmt::format("Low occupancy: {} theoretical",
                                    theoretical ? pct(theoretical->value) : std::string("?"));
  }
  if (theoretical) {
    draft.cause.evidence.push_back(fact_evidence(*theoretical, "theoretical occupancy"));
  }
  if (m_facts.achieved_occupancy_pct) {
    draft.cause.evidence.push_back(
        fact_evidence(*m_facts.achieved_occupancy_pct, "achieved occupancy"));
  }
}

void Diagnoser::point_at_code() {
  std::optional<std::size_t> waited;
  double waited_samples = 0;
  if (m_has_code) {
    std::map<std::size_t, double> per;
    for (const Wait& wait : m_code.waits) {
      if (is_waiting(wait.reason) && m_code.instructions[wait.for_].line) {
        per[*m_code.instructions[wait.for_].line] += wait.samples;
      }
    }
    waited = largest(per);
    waited_samples = waited ? per[*waited] : 0.0;
  }
  for (Draft& draft : m_drafts) {
    const Category category = draft.cause.category;
    if (is_parallelism(category) && waited && !draft.cause.line) {
      // More warps or blocks hide the waits; the line they wait on is where the work is.
      const UserLine& line = m_code.lines[*waited];
      set_line(draft, *waited);
      draft.samples = std::max(draft.samples, waited_samples);
      draft.cause.title +=
          fmt::format("; the warps wait most on {} at {} ({} of the samples)",
                      waited_kind("", *waited), where(line), pct0(100 * share_of(waited_samples)));
      draft.cause.evidence.push_back(
          {"source page: stall samples waiting for " + where(line), waited_samples,
           fmt::format("{} of the launch's samples are warps waiting for {}'s results: the line "
                       "more warps would overlap, and where to put more independent work",
                       pct0(100 * share_of(waited_samples)), where(line))});
    }
    if (!is_fixed_at_launch(category)) {
      continue;
    }
    m_wants_launch = true;
    if (m_launch_site) {
      draft.cause.launch =
          DiagnosisLaunch{m_input.kernel_source->path, m_launch_site->line, m_launch_site->text};
      std::string more;
      if (m_launch_site->count > 1) {
        more = fmt::format(" (and {} more launches of it in the file)", m_launch_site->count - 1);
      }
      draft.cause.evidence.push_back(
          {fmt::format("kernel file: {}:{}", basename_of(m_input.kernel_source->path),
                       m_launch_site->line),
           m_launch_site->text,
           "the launch, where the grid, the block and the launch's options "
           "are set" +
               more});
    }
  }
}

void Diagnoser::add_launch_bound() {
  const std::optional<SourcedNumber>& duration = m_facts.duration_ns;
  if (!duration || duration->value >= k_launch_bound_short_ns) {
    return;
  }
  // The work the launch does, timed at the roofline's peaks: its larger SOL share of the duration.
  const Roofline& roofline = m_facts.roofline;
  const std::optional<double> sol =
      roofline.compute_sol_pct || roofline.memory_sol_pct
          ? std::optional<double>(std::max(roofline.compute_sol_pct.value_or(0.0),
                                           roofline.memory_sol_pct.value_or(0.0)))
          : std::nullopt;
  const std::optional<double> work_ns =
      sol ? std::optional<double>(duration->value * *sol / 100) : std::nullopt;
  const bool as_short_as_a_launch = duration->value < k_launch_bound_ns;
  if (!as_short_as_a_launch && !(work_ns && *work_ns < k_launch_bound_work_ns)) {
    return;
  }
  Draft& draft = add(Category::launch_bound, "kprof:metrics");
  if (as_short_as_a_launch) {
    draft.cause.title = fmt::format(
        "Launch-bound: {} us, about what launching a kernel costs: no grid, block or memory "
        "change makes it shorter than its launch; batch the calls into one launch, fuse it with "
        "its neighbours, or replay the sequence as a CUDA graph",
        format_fixed(duration->value / 1000, 2));
  } else {
    draft.cause.title = fmt::format(
        "Launch-bound: {} us for about {} us of work at the GPU's peaks ({}% SOL): the launch and "
        "the ramp of its blocks are most of it, and a better grid gains at most down to a "
        "launch's few microseconds; batch the calls into one launch, fuse it with its "
        "neighbours, or replay the sequence as a CUDA graph",
        format_fixed(duration->value / 1000, 2), format_fixed(*work_ns / 1000, 2),
        format_fixed(*sol, 2));
    draft.cause.evidence.push_back({"kprof: max(compute, memory) SOL x duration", *work_ns,
                                    "the launch's work at the roofline's peaks, ns"});
  }
  draft.cause.evidence.push_back(fact_evidence(*duration, "the launch's duration, ns"));
}

} // namespace kprof::diagnosis

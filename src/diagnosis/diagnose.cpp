// Design note: the ranked diagnosis (docs/diagnosis.md).
//
// A diagnosis is built in four steps, each from numbers the capture holds:
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
//  4. ranking by estimated speedup, then the generic symptoms (IssueSlotUtilization, "all compute
//     pipelines are under-utilized") go to the first cause as evidence.
// ncu's estimates are its global ones (a local estimate is about a unit, not the launch's time,
// and leaves the cause without an estimate); kprof's own are upper bounds of the same kind, each
// documented where it is computed.
#include "kprof/diagnosis.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "diagnosis/code.hpp"
#include "kprof/numbers.hpp"
#include "kprof/strings.hpp"

namespace kprof {
namespace diagnosis {
namespace {

using Category = DiagnosisCategory;

// --- thresholds (docs/diagnosis.md) -------------------------------------------------------------

/// Without ncu's rule: a kernel whose global accesses move at least this fraction of excessive
/// sectors (or use at most 1 - this of each loaded sector) is uncoalesced.
constexpr double k_excess_fraction = 0.25;
/// Without ncu's rule: the same for shared-memory wavefronts.
constexpr double k_shared_excess_fraction = 0.25;
/// Without ncu's rule: theoretical occupancy at or below this is low.
constexpr double k_low_occupancy_pct = 50.0;
/// A line whose instructions run with at most this many of 32 lanes on average is divergent.
constexpr double k_divergent_lanes = 24.0;
/// A matrix-product line must hold this share of the samples to be a tensor-core cause.
constexpr double k_tensor_line_share = 0.05;
/// The tensor pipe below this (percent) counts as unused (the roofline's threshold).
constexpr double k_tensor_in_use_pct = 5.0;
/// A kernel shorter than this (ns) is about as long as its launch.
constexpr double k_launch_bound_ns = 4000.0;
/// Without rules: a stall reason holding at least this share of the warps' cycles is a cause.
constexpr double k_stall_metric_pct = 30.0;
/// DRAM at this fraction of the memory SOL or more is what bounds a memory-bound kernel.
constexpr double k_dram_share_of_sol = 0.9;
/// A stall rule goes into the cause owning at least this share of the stall's samples.
constexpr double k_fold_share = 0.5;

constexpr double k_warp = 32.0;
constexpr double k_sector_bytes = 32.0;

// --- text ---------------------------------------------------------------------------------------

std::string pct(double value) {
  return format_fixed(value, value < 10 ? 2 : 1) + "%";
}

std::string pct0(double value) {
  return format_fixed(value, 0) + "%";
}

/// 112459776 -> "112,459,776".
std::string count(double value) {
  std::string digits = format_fixed(std::round(value), 0);
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) {
    digits.erase(0, 1);
  }
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

/// "1 block", "4 blocks".
std::string counted(double value, std::string_view thing) {
  return fmt::format("{} {}{}", count(value), thing, std::round(value) == 1 ? "" : "s");
}

std::string_view basename_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string where(const UserLine& line) {
  return fmt::format("{}:{}", basename_of(line.file), line.line);
}

std::string first_sentence(std::string_view text) {
  const std::size_t end = text.find(". ");
  return std::string(end == std::string_view::npos ? text : text.substr(0, end + 1));
}

// --- rules --------------------------------------------------------------------------------------

/// What a CPIStall rule says the warps wait for, from its text (ncu names the stall only in
/// words; the phrases are those of ncu 2025.3's rules).
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

/// ncu's stall names in words.
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

/// The stall's short name for a title ("long-scoreboard").
std::string stall_name(std::string_view stall) {
  const std::string words = stall_words(stall);
  return words.substr(0, words.find(' '));
}

struct Rule {
  const RuleResult* result = nullptr;
  std::optional<double> global_pct; ///< the estimate when ncu made it global
  std::string stall;                ///< CPIStall: the stall it is about ("" unknown)
  bool used = false;
};

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
    }
    rules.push_back(std::move(rule));
  }
  return rules;
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

// --- causes being built -------------------------------------------------------------------------

struct Draft {
  DiagnosisCause cause;
  std::set<std::size_t> owned; ///< instructions whose samples it owns
};

DiagnosisEvidence fact_evidence(const SourcedNumber& fact, std::string meaning) {
  return {fact.metric, fact.value, std::move(meaning)};
}

/// Everything the cause builders read.
class Diagnoser {
public:
  explicit Diagnoser(const DiagnosisInput& input)
      : m_input(input), m_launch(*input.launch), m_facts(*input.facts),
        m_rules(rules_of(*input.launch)) {
    if (input.blocks != nullptr && input.hot_lines != nullptr) {
      m_code = read_code(*input.blocks, *input.hot_lines);
    }
    m_has_code = !m_code.instructions.empty() && m_code.samples > 0;
  }

  Diagnosis run() {
    add_uncoalesced();
    add_bank_conflicts();
    add_launch_causes();
    add_occupancy();
    add_spills();
    add_tensor_cores();
    add_atomics();
    add_divergence();
    own_samples();
    add_roofline();
    fold_stall_rules();
    add_other_rules();
    add_stall_metrics();
    add_latency_verdict();
    add_launch_bound();
    Diagnosis out;
    out.causes = rank();
    out.notes = notes();
    return out;
  }

private:
  // --- helpers ---

  Rule* rule(std::string_view name) {
    for (Rule& rule : m_rules) {
      if (!rule.used && rule.result->name == name) {
        return &rule;
      }
    }
    return nullptr;
  }

  Draft* find(Category category) {
    for (Draft& draft : m_drafts) {
      if (draft.cause.category == category) {
        return &draft;
      }
    }
    return nullptr;
  }

  Draft& add(Category category, std::string source) {
    Draft draft;
    draft.cause.category = category;
    draft.cause.source = std::move(source);
    m_drafts.push_back(std::move(draft));
    return m_drafts.back();
  }

  /// Takes `rule`'s global estimate (or none for a local one) and its evidence.
  static void take_rule(Draft& draft, Rule& rule, std::string_view how = {}) {
    rule.used = true;
    // A roofline verdict's estimate is its headroom: a kernel at its roof gains no more.
    const Category category = draft.cause.category;
    const bool verdict = category == Category::dram_bound || category == Category::cache_bound ||
                         category == Category::compute_bound;
    if (rule.global_pct && !(verdict && draft.cause.estimated_speedup_pct)) {
      draft.cause.estimated_speedup_pct =
          std::max(draft.cause.estimated_speedup_pct.value_or(0.0), *rule.global_pct);
    }
    draft.cause.evidence.push_back(rule_evidence(rule, how));
  }

  [[nodiscard]] double blocks() const {
    return static_cast<double>(m_launch.grid[0]) * static_cast<double>(m_launch.grid[1]) *
           static_cast<double>(m_launch.grid[2]);
  }
  [[nodiscard]] double threads_per_block() const {
    return static_cast<double>(m_launch.block[0]) * static_cast<double>(m_launch.block[1]) *
           static_cast<double>(m_launch.block[2]);
  }
  [[nodiscard]] double warps_per_block() const { return std::ceil(threads_per_block() / k_warp); }

  [[nodiscard]] double share_of(double samples) const {
    return m_code.samples > 0 ? samples / m_code.samples : 0.0;
  }

  void set_line(Draft& draft, std::size_t line) const {
    const UserLine& user = m_code.lines[line];
    draft.cause.line = DiagnosisLine{user.file, user.line};
  }

  /// Per user line, the sum of `value` over the instructions for which `keep` holds.
  template <class Keep, class Value>
  std::map<std::size_t, double> per_line(Keep keep, Value value) const {
    std::map<std::size_t, double> sums;
    for (const Instruction& instruction : m_code.instructions) {
      if (instruction.line && keep(instruction)) {
        sums[*instruction.line] += value(instruction);
      }
    }
    return sums;
  }

  static std::optional<std::size_t> largest(const std::map<std::size_t, double>& sums) {
    std::optional<std::size_t> best;
    for (const auto& [line, value] : sums) {
      if (value > 0 && (!best || value > sums.at(*best))) {
        best = line;
      }
    }
    return best;
  }

  void own(Draft& draft, const auto& keep) const {
    for (std::size_t i = 0; i < m_code.instructions.size(); ++i) {
      if (keep(m_code.instructions[i])) {
        draft.owned.insert(i);
      }
    }
  }

  /// Evidence of the lines whose stalls wait for `draft`'s instructions (the consumers).
  void add_waiting_lines(Draft& draft) const {
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

  // --- 1. causes --------------------------------------------------------------------------------

  void add_uncoalesced() {
    Rule* found = rule("UncoalescedGlobalAccess");
    double sectors = 0;
    double excessive = 0;
    for (const Instruction& instruction : m_code.instructions) {
      sectors += instruction.sass->counters.l2_sectors;
      excessive += instruction.sass->counters.l2_sectors_excessive;
    }
    const std::optional<SourcedNumber>& use = m_facts.global_load_sector_use_pct;
    const bool by_code = m_has_code && sectors > 0 && excessive / sectors >= k_excess_fraction;
    // 0 means the kernel ran no LDG whose sectors ncu could average.
    const bool by_metric =
        use && use->value > 0 && use->value <= 100 * (1 - k_excess_fraction) && !m_has_code;
    if (found == nullptr && !by_code && !by_metric) {
      return;
    }
    Draft& draft = add(Category::uncoalesced_access,
                       found != nullptr ? "ncu:UncoalescedGlobalAccess"
                                        : (by_code ? "kprof:source" : "kprof:metrics"));
    if (found != nullptr) {
      take_rule(draft, *found);
    }
    const auto excessive_of = [](const Instruction& i) {
      return i.sass->counters.l2_sectors_excessive;
    };
    own(draft, [&](const Instruction& i) { return excessive_of(i) > 0; });
    const std::optional<std::size_t> line =
        largest(per_line([&](const Instruction& i) { return excessive_of(i) > 0; }, excessive_of));
    std::string what = "global accesses";
    std::string used_text;
    if (line) {
      set_line(draft, *line);
      const UserLine& user = m_code.lines[*line];
      const LineCounters& counters = user.counters;
      bool stores = false;
      bool loads = false;
      for (const Instruction& instruction : m_code.instructions) {
        if (instruction.line == line && excessive_of(instruction) > 0) {
          stores = stores || instruction.op.kind == SassKind::global_store;
          loads = loads || instruction.op.kind == SassKind::global_load;
        }
      }
      what = stores && !loads ? "global stores" : (loads && !stores ? "global loads" : what);
      if (counters.l2_sectors > 0 && counters.l2_sectors_ideal > 0) {
        const double used = counters.l2_sectors_ideal / counters.l2_sectors;
        used_text = fmt::format("{} of the sectors moved are needed ({}x the ideal)",
                                pct(100 * used), format_fixed(1 / used, 1));
        draft.cause.evidence.push_back(
            {"source page: L2 Theoretical Sectors Global at " + where(user), counters.l2_sectors,
             fmt::format("sectors the line's accesses move; {} would do",
                         count(counters.l2_sectors_ideal))});
      }
      add_waiting_lines(draft);
    } else if (use && use->value > 0) {
      what = "global loads";
      used_text = fmt::format("{} of each loaded 32-byte sector used (up to {}x fewer bytes)",
                              pct(use->value), format_fixed(100 / use->value, 1));
    }
    if (use && use->value > 0) {
      draft.cause.evidence.push_back(
          fact_evidence(*use, fmt::format("the global loads use {} of the bytes of each sector "
                                          "they move",
                                          pct(use->value))));
    }
    if (sectors > 0) {
      draft.cause.evidence.push_back(
          {"source page: L2 Theoretical Sectors Global Excessive", excessive,
           fmt::format("{} of the kernel's {} global sectors are excessive",
                       pct(100 * excessive / sectors), count(sectors))});
    }
    draft.cause.title = fmt::format("Uncoalesced {}{}{}", what,
                                    line ? " at " + where(m_code.lines[*line]) : std::string(),
                                    used_text.empty() ? "" : ": " + used_text);
    if (!draft.cause.estimated_speedup_pct && !m_has_code && use) {
      // Without rule or source page: the wasted share of the load bytes, as much of the time as
      // memory is busy.
      const double memory = m_facts.roofline.memory_sol_pct.value_or(0.0);
      draft.cause.estimated_speedup_pct = (1 - use->value / 100) * memory;
    }
  }

  void add_bank_conflicts() {
    Rule* found = rule("UncoalescedSharedAccess");
    double wavefronts = 0;
    double excessive = 0;
    for (const Instruction& instruction : m_code.instructions) {
      wavefronts += instruction.sass->counters.shared_wavefronts;
      excessive += instruction.sass->counters.shared_wavefronts_excessive;
    }
    const bool by_code =
        m_has_code && wavefronts > 0 && excessive / wavefronts >= k_shared_excess_fraction;
    if (found == nullptr && !by_code) {
      return;
    }
    Draft& draft = add(Category::bank_conflicts,
                       found != nullptr ? "ncu:UncoalescedSharedAccess" : "kprof:source");
    if (found != nullptr) {
      take_rule(draft, *found);
    }
    const auto excessive_of = [](const Instruction& i) {
      return i.sass->counters.shared_wavefronts_excessive;
    };
    own(draft, [&](const Instruction& i) { return excessive_of(i) > 0; });
    const std::optional<std::size_t> line =
        largest(per_line([&](const Instruction& i) { return excessive_of(i) > 0; }, excessive_of));
    std::string detail;
    if (line) {
      set_line(draft, *line);
      const UserLine& user = m_code.lines[*line];
      const LineCounters& counters = user.counters;
      if (counters.shared_wavefronts_ideal > 0) {
        const double ways = counters.shared_wavefronts / counters.shared_wavefronts_ideal;
        detail = fmt::format(": {} wavefronts per access where 1 would do", format_fixed(ways, 1));
      }
      draft.cause.evidence.push_back(
          {"source page: L1 Wavefronts Shared Excessive at " + where(user),
           counters.shared_wavefronts_excessive,
           fmt::format("excessive shared-memory wavefronts of the line, of {} in all",
                       count(counters.shared_wavefronts))});
      add_waiting_lines(draft);
    }
    if (wavefronts > 0) {
      draft.cause.evidence.push_back(
          {"source page: L1 Wavefronts Shared Excessive", excessive,
           fmt::format("{} of the kernel's {} shared-memory wavefronts are excessive",
                       pct(100 * excessive / wavefronts), count(wavefronts))});
    }
    draft.cause.title =
        fmt::format("Shared-memory bank conflicts{}{}",
                    line ? " at " + where(m_code.lines[*line]) : std::string(), detail);
  }

  void add_launch_causes() {
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
        draft.cause.estimated_speedup_pct = 100 * (1 - grid / sms->value);
      }
      draft.cause.title =
          fmt::format("Too few blocks: {} of {} for {}, {} idle", counted(grid, "block"),
                      counted(threads_per_block(), "thread"), counted(sms->value, "SM"),
                      counted(sms->value - grid, "SM"));
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

  /// Blocks per SM each resource allows, smallest first: (blocks, resource, fact).
  struct Limit {
    double blocks = 0;
    std::string_view resource;
    const SourcedNumber* fact = nullptr;
  };

  [[nodiscard]] std::vector<Limit> occupancy_limits() const {
    std::vector<Limit> limits;
    const auto add_limit = [&](const std::optional<SourcedNumber>& fact,
                               std::string_view resource) {
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

  /// Theoretical occupancy: ncu's, else computed from the limits and the SM's warps.
  [[nodiscard]] std::optional<SourcedNumber> theoretical_occupancy() const {
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

  void add_occupancy() {
    Rule* theoretical_rule = rule("TheoreticalOccupancy");
    const std::optional<SourcedNumber> theoretical = theoretical_occupancy();
    const bool by_metrics =
        m_rules.empty() && theoretical && theoretical->value <= k_low_occupancy_pct;
    if (theoretical_rule != nullptr || by_metrics) {
      Draft& draft =
          add(Category::low_occupancy,
              theoretical_rule != nullptr ? "ncu:TheoreticalOccupancy" : "kprof:metrics");
      if (theoretical_rule != nullptr) {
        take_rule(draft, *theoretical_rule);
      } else if (m_facts.roofline.bottleneck == Bottleneck::latency) {
        // Without rules: what the missing warps could hide, for a kernel waiting on latency.
        draft.cause.estimated_speedup_pct = 100 - theoretical->value;
      }
      describe_occupancy(draft, theoretical);
    }
    Rule* achieved_rule = rule("AchievedOccupancy");
    if (achieved_rule == nullptr) {
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
  }

  void describe_occupancy(Draft& draft, const std::optional<SourcedNumber>& theoretical) const {
    const std::vector<Limit> limits = occupancy_limits();
    std::string limiter;
    if (!limits.empty()) {
      const Limit& smallest = limits.front();
      draft.cause.evidence.push_back(fact_evidence(
          *smallest.fact,
          fmt::format("blocks per SM the {} allow: the smallest limit", smallest.resource)));
      if (smallest.resource == "registers" && m_facts.registers_per_thread) {
        limiter =
            fmt::format("registers: {} per thread", count(m_facts.registers_per_thread->value));
        draft.cause.evidence.push_back(
            fact_evidence(*m_facts.registers_per_thread, "registers per thread"));
      } else if (smallest.resource == "shared memory") {
        const double shared =
            m_facts.shared_mem_allocated_bytes
                ? m_facts.shared_mem_allocated_bytes->value
                : m_facts.shared_mem_dynamic_bytes.value_or(SourcedNumber{}).value +
                      m_facts.shared_mem_static_bytes.value_or(SourcedNumber{}).value;
        limiter = fmt::format("shared memory: {} bytes per block", count(shared));
        for (const auto* fact :
             {&m_facts.shared_mem_dynamic_bytes, &m_facts.shared_mem_static_bytes,
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
      draft.cause.title = fmt::format(
          "Low occupancy: {} theoretical ({} of {} per SM), limited by {}",
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

  void add_spills() {
    const auto is_local = [](const Instruction& i) {
      return (i.op.kind == SassKind::local_load || i.op.kind == SassKind::local_store) &&
             i.sass->counters.instructions_executed > 0;
    };
    const bool by_code =
        m_has_code && std::any_of(m_code.instructions.begin(), m_code.instructions.end(), is_local);
    const std::optional<SourcedNumber>& spills = m_facts.spill_requests;
    if (!by_code && !(spills && spills->value > 0)) {
      return;
    }
    Draft& draft = add(Category::register_spills, by_code ? "kprof:source" : "kprof:metrics");
    own(draft, is_local);
    std::string registers;
    if (m_facts.registers_per_thread) {
      registers =
          fmt::format(" at {} registers per thread", count(m_facts.registers_per_thread->value));
      draft.cause.evidence.push_back(
          fact_evidence(*m_facts.registers_per_thread, "registers per thread"));
    }
    if (spills && spills->value > 0) {
      draft.cause.evidence.push_back(
          fact_evidence(*spills, "local-memory requests the spills make"));
      draft.cause.title = fmt::format("Register spills: {} local-memory requests{}",
                                      count(spills->value), registers);
    } else {
      double executed = 0;
      for (const Instruction& instruction : m_code.instructions) {
        executed += is_local(instruction) ? instruction.sass->counters.instructions_executed : 0;
      }
      draft.cause.title = fmt::format("Register spills: {} local-memory instructions executed{}",
                                      count(executed), registers);
    }
    if (by_code) {
      const auto line = largest(
          per_line(is_local, [](const Instruction& i) { return i.sass->counters.samples; }));
      if (line) {
        const UserLine& user = m_code.lines[*line];
        draft.cause.evidence.push_back(
            {"source page: local-memory instructions at " + where(user), user.counters.samples,
             fmt::format("the line with the most spill code ({} of the samples on the line); "
                         "where spills land is the compiler's choice",
                         pct0(100 * share_of(user.counters.samples)))});
      }
    }
    // Occupancy limited by the same registers is the same register pressure.
    Draft* occupancy = find(Category::low_occupancy);
    const std::vector<Limit> limits = occupancy_limits();
    if (occupancy != nullptr && !limits.empty() && limits.front().resource == "registers") {
      m_spill_absorbs_occupancy = true;
    }
  }

  void add_tensor_cores() {
    const std::optional<SourcedNumber>& tensor = m_facts.tensor_pipe_pct;
    if (!m_has_code || !tensor || tensor->value >= k_tensor_in_use_pct) {
      return;
    }
    static constexpr std::array<std::string_view, 7> k_matrix_products{
        "tl.dot(", "tl.dot_scaled(", "mma_sync(", "mma.sync", "wgmma", "__hmma", "tcgen05.mma"};
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < m_code.lines.size(); ++i) {
      const UserLine& line = m_code.lines[i];
      const bool product = std::any_of(
          k_matrix_products.begin(), k_matrix_products.end(),
          [&](std::string_view call) { return line.text.find(call) != std::string::npos; });
      if (product && share_of(line.counters.samples) >= k_tensor_line_share &&
          (!best || line.counters.samples > m_code.lines[*best].counters.samples)) {
        best = i;
      }
    }
    if (!best) {
      return;
    }
    double tensor_ops = 0;
    double fma_ops = 0;
    for (const Instruction& instruction : m_code.instructions) {
      if (instruction.line != best) {
        continue;
      }
      if (instruction.op.kind == SassKind::tensor) {
        tensor_ops += instruction.sass->counters.instructions_executed;
      } else if (instruction.sass->text.find("FFMA") != std::string::npos ||
                 instruction.sass->text.find("HFMA2") != std::string::npos) {
        fma_ops += instruction.sass->counters.instructions_executed;
      }
    }
    if (tensor_ops > 0) {
      return; // the line does reach the tensor pipe
    }
    Draft& draft = add(Category::tensor_cores_unused, "kprof:source");
    set_line(draft, *best);
    own(draft, [&](const Instruction& i) { return i.line == best; });
    const UserLine& line = m_code.lines[*best];
    const double share = share_of(line.counters.samples);
    draft.cause.title = fmt::format(
        "Tensor cores unused: the matrix product at {} runs on the FMA pipe (tensor pipe {}, {} "
        "of the samples on the line)",
        where(line), pct(tensor->value), pct0(100 * share));
    draft.cause.evidence.push_back(
        fact_evidence(*tensor, "the tensor pipe's activity, of its peak"));
    if (m_facts.fma_pipe_pct) {
      draft.cause.evidence.push_back(fact_evidence(*m_facts.fma_pipe_pct, "FMA pipe utilization"));
    }
    draft.cause.evidence.push_back({"source page: instructions at " + where(line), fma_ops,
                                    "FFMA/HFMA2 instructions the line executed, and no "
                                    "tensor-core (HMMA, HGMMA, ...) instruction"});
  }

  void add_atomics() {
    if (!m_has_code) {
      return;
    }
    // Lanes per sector above the addresses a sector holds: some lanes of each request update the
    // same address (pigeonhole), and the L2 serializes them.
    const auto contended = [](const Instruction& i) {
      const LineCounters& c = i.sass->counters;
      if (i.op.kind != SassKind::global_atomic || c.l2_sectors <= 0 ||
          c.thread_instructions_executed <= 0) {
        return false;
      }
      const double addresses_per_sector = k_sector_bytes / std::max(4, i.op.access_bytes);
      return c.thread_instructions_executed / c.l2_sectors > addresses_per_sector;
    };
    if (std::none_of(m_code.instructions.begin(), m_code.instructions.end(), contended)) {
      return;
    }
    Draft& draft = add(Category::atomic_contention, "kprof:source");
    std::set<std::size_t> atomic_lines;
    double updates = 0;
    double sectors = 0;
    for (std::size_t i = 0; i < m_code.instructions.size(); ++i) {
      const Instruction& instruction = m_code.instructions[i];
      if (contended(instruction)) {
        draft.owned.insert(i);
        updates += instruction.sass->counters.thread_instructions_executed;
        sectors += instruction.sass->counters.l2_sectors;
        if (instruction.line) {
          atomic_lines.insert(*instruction.line);
        }
      }
    }
    // The fences around them on their lines (Triton's acq_rel atomics) wait for them too.
    own(draft, [&](const Instruction& i) {
      return i.op.kind == SassKind::fence && i.line && atomic_lines.contains(*i.line);
    });
    std::optional<std::size_t> line = largest(
        per_line([&](const Instruction& i) { return i.line && atomic_lines.contains(*i.line); },
                 [](const Instruction& i) { return i.sass->counters.samples; }));
    if (!line && !atomic_lines.empty()) {
      line = *atomic_lines.begin();
    }
    if (line) {
      set_line(draft, *line);
    }
    const double lanes = sectors > 0 ? updates / sectors : 0;
    draft.cause.title = fmt::format(
        "Atomic contention{}: {} lanes update each 32-byte sector per request, {} updates in all",
        line ? " at " + where(m_code.lines[*line]) : std::string(), format_fixed(lanes, 1),
        count(updates));
    draft.cause.evidence.push_back({"source page: Thread Instructions Executed (atomics)", updates,
                                    "lanes that ran the atomic instructions: one update each"});
    draft.cause.evidence.push_back(
        {"source page: L2 Theoretical Sectors Global (atomics)", sectors,
         "sectors they update: more lanes per sector than addresses in it means lanes of one "
         "request update the same address"});
  }

  void add_divergence() {
    Rule* found = rule("ThreadDivergence");
    const std::optional<SourcedNumber>& lanes = m_facts.active_threads_per_warp;
    const bool by_metrics = m_rules.empty() && lanes && lanes->value <= k_divergent_lanes;
    if (found == nullptr && !by_metrics) {
      return;
    }
    Draft& draft =
        add(Category::warp_divergence, found != nullptr ? "ncu:ThreadDivergence" : "kprof:metrics");
    if (found != nullptr) {
      take_rule(draft, *found);
    }
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < m_code.lines.size(); ++i) {
      const LineCounters& c = m_code.lines[i].counters;
      if (c.instructions_executed <= 0 ||
          c.thread_instructions_executed / c.instructions_executed > k_divergent_lanes) {
        continue;
      }
      if (!best || c.samples > m_code.lines[*best].counters.samples) {
        best = i;
      }
    }
    std::string at;
    if (best && m_code.lines[*best].counters.samples > 0) {
      set_line(draft, *best);
      const LineCounters& c = m_code.lines[*best].counters;
      const double line_lanes = c.thread_instructions_executed / c.instructions_executed;
      at = " at " + where(m_code.lines[*best]);
      draft.cause.evidence.push_back(
          {"source page: Thread Instructions Executed / Instructions Executed at " +
               where(m_code.lines[*best]),
           line_lanes,
           fmt::format("lanes of 32 active on the line's instructions ({} of the samples)",
                       pct0(100 * share_of(c.samples)))});
    }
    std::string detail;
    if (lanes) {
      detail = fmt::format(": {} of 32 lanes active on average", format_fixed(lanes->value, 1));
      draft.cause.evidence.push_back(fact_evidence(*lanes, "lanes of 32 active per instruction"));
    }
    if (const std::optional<SourcedNumber>& on = m_facts.predicated_on_threads_per_warp) {
      detail += fmt::format("{} {} not predicated off", detail.empty() ? ":" : ",",
                            format_fixed(on->value, 1));
      draft.cause.evidence.push_back(
          fact_evidence(*on, "lanes of 32 that run an instruction and are not predicated off"));
    }
    if (m_facts.branch_uniform_pct) {
      draft.cause.evidence.push_back(
          fact_evidence(*m_facts.branch_uniform_pct, "branch targets taken by the whole warp"));
    }
    if (m_facts.divergent_branches) {
      draft.cause.evidence.push_back(
          fact_evidence(*m_facts.divergent_branches, "divergent branches per warp scheduler"));
    }
    draft.cause.title = "Warp divergence" + at + detail;
  }

  // --- 2. samples and stall rules ---------------------------------------------------------------

  [[nodiscard]] static bool is_write(const Instruction& instruction) {
    return instruction.op.kind == SassKind::global_store ||
           instruction.op.kind == SassKind::global_atomic;
  }

  /// The samples of `wait` that `draft` owns: all of them when it waits for one of the draft's
  /// instructions; for a drain at exit (warps waiting for their outstanding writes), the draft's
  /// share of the kernel's written sectors.
  [[nodiscard]] double owned_samples(const Draft& draft, const Wait& wait) const {
    if (draft.owned.contains(wait.for_)) {
      return wait.samples;
    }
    if (wait.reason != "drain" || m_write_sectors <= 0) {
      return 0;
    }
    double sectors = 0;
    for (const std::size_t i : draft.owned) {
      if (is_write(m_code.instructions[i])) {
        sectors += m_code.instructions[i].sass->counters.l2_sectors;
      }
    }
    return wait.samples * sectors / m_write_sectors;
  }

  void own_samples() {
    if (!m_has_code) {
      return;
    }
    for (const Instruction& instruction : m_code.instructions) {
      if (is_write(instruction)) {
        m_write_sectors += instruction.sass->counters.l2_sectors;
      }
    }
    for (Draft& draft : m_drafts) {
      if (draft.owned.empty()) {
        continue;
      }
      double owned = 0;
      for (const Wait& wait : m_code.waits) {
        owned += owned_samples(draft, wait);
      }
      if (!draft.cause.estimated_speedup_pct) {
        draft.cause.estimated_speedup_pct = 100 * share_of(owned);
      }
      draft.cause.evidence.push_back(
          {"source page: warp stall samples", owned,
           fmt::format("{} of the launch's {} samples are spent on these instructions or "
                       "waiting for them",
                       pct(100 * share_of(owned)), count(m_code.samples))});
    }
  }

  /// Samples of `stall` each draft owns; `total` gets all of that stall's samples.
  [[nodiscard]] std::vector<double> stall_owners(std::string_view stall, double& total) const {
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

  /// Without a source page: the cause a stall's kind belongs to.
  Draft* owner_by_kind(std::string_view stall) {
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

  /// Causes that leave the warps too few to hide latency.
  Draft* parallelism_cause() {
    for (const Category category : {Category::too_few_blocks, Category::low_occupancy}) {
      if (Draft* found = find(category)) {
        return found;
      }
    }
    return nullptr;
  }

  void fold_stall_rules() {
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

  /// What the samples of `stall` spent for `line` wait for, in words ("the global load").
  [[nodiscard]] std::string waited_kind(std::string_view stall, std::size_t line) const {
    if (stall == "drain") {
      return "their writes";
    }
    std::map<SassKind, double> kinds;
    for (const Wait& wait : m_code.waits) {
      if (wait.reason == stall && m_code.instructions[wait.for_].line == line) {
        kinds[m_code.instructions[wait.for_].op.kind] += wait.samples;
      }
    }
    const auto most =
        std::max_element(kinds.begin(), kinds.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most == kinds.end()) {
      return "memory";
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
    default:
      return "memory";
    }
  }

  void add_stall_cause(Rule& stall_rule) {
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
        own(draft, [&](const Instruction& i) {
          return i.line == line && (i.op.kind == SassKind::global_load ||
                                    i.op.kind == SassKind::local_load || stall != "long_sb");
        });
        draft.cause.evidence.push_back(
            {"source page: " + stall + " stall samples for " + where(m_code.lines[*line]),
             per[*line],
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
      draft.cause.title =
          "MIO pressure" + at + ": the shared-memory/special-function queue is full";
      break;
    case Category::instruction_cache:
      draft.cause.title =
          "Instruction fetch: warps wait for instructions (cache misses or branches)";
      break;
    default:
      draft.cause.title = first_sentence(stall_rule.result->description);
      break;
    }
  }

  /// Without rules (a raw page), the stall metrics of the default set: a stall that holds the
  /// warps most of the time names its cause, without an estimate (a share of stalled warp
  /// cycles is not a share of the launch's time). Only for a kernel near neither roof.
  void add_stall_metrics() {
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

  void add_other_rules() {
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
      draft.cause.title =
          fmt::format("{} (ncu {})", first_sentence(other.result->description), name);
    }
  }

  // --- 3. roofline ------------------------------------------------------------------------------

  void add_roofline() {
    const Roofline& roofline = m_facts.roofline;
    if (roofline.bottleneck == Bottleneck::memory && roofline.memory_sol_pct) {
      add_memory_verdict(roofline);
    } else if (roofline.bottleneck == Bottleneck::compute && roofline.compute_sol_pct) {
      add_compute_verdict(roofline);
    }
  }

  /// A kernel near neither roof with no cause found says so (never beside another cause).
  void add_latency_verdict() {
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

  void add_memory_verdict(const Roofline& roofline) {
    const double memory = *roofline.memory_sol_pct;
    // The defects whose excess traffic ncu measures (sectors, wavefronts) explain the verdict.
    for (const Category defect : {Category::uncoalesced_access, Category::bank_conflicts}) {
      if (Draft* found = find(defect)) {
        found->cause.evidence.push_back(
            {"roofline: memory SOL", memory,
             fmt::format("memory-bound at {} of peak, on bytes the defect wastes: fixing it, not "
                         "more bandwidth, is the gain",
                         pct(memory))});
        if (defect == Category::uncoalesced_access) {
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
    // DRAM when it is (nearly) what the memory SOL is made of (every DRAM byte also passes L2);
    // without ncu's DRAM throughput, the bandwidth against the GPU's datasheet peak says it.
    std::optional<SourcedNumber> dram_pct = m_facts.dram_throughput_pct;
    if (!dram_pct && roofline.dram_peak_fraction) {
      dram_pct = SourcedNumber{100 * *roofline.dram_peak_fraction,
                               "roofline: DRAM bandwidth / the datasheet's peak"};
    }
    const bool dram = dram_pct ? dram_pct->value >= k_dram_share_of_sol * memory
                               : busiest != nullptr && busiest->name == "DRAM";
    Draft& draft = add(dram ? Category::dram_bound : Category::cache_bound, "kprof:roofline");
    draft.cause.estimated_speedup_pct = 100 - memory;
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

  void add_compute_verdict(const Roofline& roofline) {
    const double compute = *roofline.compute_sol_pct;
    for (const Category defect : {Category::tensor_cores_unused, Category::warp_divergence}) {
      if (Draft* found = find(defect)) {
        found->cause.evidence.push_back(
            {"roofline: compute SOL", compute,
             fmt::format("compute-bound at {} of peak, on work the defect wastes", pct(compute))});
        return;
      }
    }
    Draft& draft = add(Category::compute_bound, "kprof:roofline");
    draft.cause.estimated_speedup_pct = 100 - compute;
    std::string pipe;
    if (m_facts.fma_pipe_pct) {
      pipe += "; FMA pipe " + pct(m_facts.fma_pipe_pct->value);
      draft.cause.evidence.push_back(fact_evidence(*m_facts.fma_pipe_pct, "FMA pipe utilization"));
    }
    if (m_facts.tensor_pipe_pct) {
      pipe += "; tensor pipe " + pct(m_facts.tensor_pipe_pct->value);
      draft.cause.evidence.push_back(
          fact_evidence(*m_facts.tensor_pipe_pct, "tensor pipe activity"));
    }
    if (m_facts.issue_active_pct) {
      pipe += "; issue slots " + pct(m_facts.issue_active_pct->value);
      draft.cause.evidence.push_back(fact_evidence(*m_facts.issue_active_pct, "issue slots busy"));
    }
    draft.cause.title =
        fmt::format("Compute-bound: SM throughput {} of peak{}", pct(compute), pipe);
    draft.cause.evidence.push_back({"roofline: compute SOL", compute, roofline.explanation});
  }

  void add_launch_bound() {
    const std::optional<SourcedNumber>& duration = m_facts.duration_ns;
    if (!duration || duration->value >= k_launch_bound_ns) {
      return;
    }
    Draft& draft = add(Category::launch_bound, "kprof:metrics");
    draft.cause.title = fmt::format(
        "Launch-bound: {} us, about what launching a kernel costs; fuse it with its neighbours",
        format_fixed(duration->value / 1000, 2));
    draft.cause.evidence.push_back(fact_evidence(*duration, "the launch's duration, ns"));
  }

  // --- 4. ranking
  // ---------------------------------------------------------------------------------

  std::vector<DiagnosisCause> rank() {
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

  std::vector<std::string> notes() const {
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
    if (m_input.metric_set == "lean") {
      out.emplace_back("the lean set has only the roofline's metrics: `default` adds occupancy "
                       "limits, stall reasons, sector use and branch uniformity");
    }
    return out;
  }

  const DiagnosisInput& m_input;
  const KernelRecord& m_launch;
  const LaunchFacts& m_facts;
  std::vector<Rule> m_rules;
  Code m_code;
  bool m_has_code = false;
  std::deque<Draft> m_drafts; ///< a deque: a Draft& stays valid while causes are added
  double m_write_sectors = 0; ///< L2 sectors of every store and atomic
  bool m_spill_absorbs_occupancy = false;
};

} // namespace
} // namespace diagnosis

Diagnosis diagnose(const DiagnosisInput& input) {
  KPROF_ASSERT(input.launch != nullptr && input.facts != nullptr);
  return diagnosis::Diagnoser(input).run();
}

} // namespace kprof

// kprof internal: the diagnosis being built. `Diagnoser` holds what the cause builders read (the
// launch, its facts, ncu's rules, the code of the source page) and the causes being built; its
// steps live in one file per concern (docs/diagnosis.md, the design note in diagnose.cpp):
// code_causes.cpp (defects the instructions and metrics show), launch_causes.cpp (the grid,
// occupancy, the launch's length), stall_causes.cpp (samples owned, ncu's stall rules),
// verdicts.cpp (the roofline) and ranking.cpp (the order).
#pragma once

#include <cmath>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diagnosis/code.hpp"
#include "diagnosis/launch_site.hpp"
#include "diagnosis/rules.hpp"
#include "kprof/diagnosis.hpp"

namespace kprof::diagnosis {

using Category = DiagnosisCategory;

// --- thresholds (docs/diagnosis.md) ------------------------------------------------------------

/// Without ncu's rule: a kernel whose global accesses move at least this fraction of excessive
/// sectors (or use at most 1 - this of each loaded sector) is uncoalesced.
inline constexpr double k_excess_fraction = 0.25;
/// Without ncu's rule: the same for shared-memory wavefronts.
inline constexpr double k_shared_excess_fraction = 0.25;
/// Without ncu's rule: theoretical occupancy at or below this is low.
inline constexpr double k_low_occupancy_pct = 50.0;
/// A line whose instructions run with at most this many of 32 lanes on average is divergent.
inline constexpr double k_divergent_lanes = 24.0;
/// A matrix-product line must hold this share of the samples to be a tensor-core cause.
inline constexpr double k_tensor_line_share = 0.05;
/// A matrix product written as FMAs: FMAs whose two factors are loaded values make at least this
/// share of the executed instructions, and ...
inline constexpr double k_fma_product_share = 0.25;
/// ... one of each such FMA's factors is read by at least this many of them on average (a value
/// reused, as a tile's column and row are; an elementwise a * b + c reads each once).
inline constexpr double k_fma_product_reuse = 2.0;
/// The tensor pipe below this (percent) counts as unused (the roofline's threshold).
inline constexpr double k_tensor_in_use_pct = 5.0;
/// A kernel shorter than this (ns) is about as long as its launch.
inline constexpr double k_launch_bound_ns = 4000.0;
/// A kernel shorter than this (ns) is launch-bound too when its work at the roofline's peaks (its
/// larger SOL share of its duration) would take under k_launch_bound_work_ns: the launch and the
/// ramp of its few blocks are most of it.
inline constexpr double k_launch_bound_short_ns = 10000.0;
inline constexpr double k_launch_bound_work_ns = 1000.0;
/// Without rules: a stall reason holding at least this share of the warps' cycles is a cause.
inline constexpr double k_stall_metric_pct = 30.0;
/// DRAM at this fraction of the memory SOL or more is what bounds a memory-bound kernel.
inline constexpr double k_dram_share_of_sol = 0.9;
/// A stall rule goes into the cause owning at least this share of the stall's samples.
inline constexpr double k_fold_share = 0.5;

/// SMs idle (no warp resident) for at least this share of the launch's cycles are idle enough to
/// matter: an achieved-occupancy gap that ncu rates only locally is then load imbalance, and a
/// compute roof's headroom is split with the cause that leaves them idle.
inline constexpr double k_idle_sm_share = 0.10;
/// Atomics that hold at least this share of the samples (waiting on them, and the writes warps
/// wait for at exit) while the L2 is below k_atomic_idle_l2_pct of its peak are serialized on the
/// few addresses they update: contention across warps.
inline constexpr double k_atomic_sample_share = 0.30;
inline constexpr double k_atomic_idle_l2_pct = 20.0;
/// The L1/shared-memory pipe at this share of its peak or more is near its roof (the roofline's
/// own threshold, RooflineThresholds::latency_pct).
inline constexpr double k_shared_pipe_busy_pct = 60.0;

inline constexpr double k_warp = 32.0;
inline constexpr double k_sector_bytes = 32.0;

/// The language of a kernel's source, for its fixes.
enum class KernelLanguage {
  triton,
  cuda,    ///< CUDA C++
  library, ///< a library's kernel (PyTorch, cuBLAS, ...): its call is what the candidate controls
  unknown, ///< the capture does not show it: a fix gives both phrasings
};

/// No stall reason holding at least this share of the warps' cycles dominates them.
inline constexpr double k_dominant_stall_share = 0.5;

/// A defect whose excess the capture measures (wasted sectors or wavefronts, spill traffic,
/// serialized atomics, idle lanes, FMA instructions where the tensor pipe would do): fixing it
/// moves fewer bytes or runs fewer instructions.
inline bool is_measured_excess(Category category) {
  switch (category) {
  case Category::uncoalesced_access:
  case Category::bank_conflicts:
  case Category::register_spills:
  case Category::tensor_cores_unused:
  case Category::atomic_contention:
  case Category::warp_divergence:
    return true;
  default:
    return false;
  }
}

/// A cause whose fix moves the same bytes and runs the same instructions (more blocks or warps,
/// latency hidden, the launch's cost): it cannot make the launch faster than its busier unit at
/// its peak, so the roofline's headroom bounds its estimate.
inline bool keeps_the_work(Category category) {
  switch (category) {
  case Category::too_few_blocks:
  case Category::tail_effect:
  case Category::low_occupancy:
  case Category::load_imbalance:
  case Category::barrier_stalls:
  case Category::memory_latency:
  case Category::mio_pressure:
  case Category::instruction_cache:
  case Category::launch_bound:
  case Category::latency_bound:
    return true;
  default:
    return false;
  }
}

/// A cause of too little parallelism: too few blocks, a partial last wave, occupancy. Its fix is
/// at the launch, and what it costs shows where the warps wait.
inline bool is_parallelism(Category category) {
  return category == Category::too_few_blocks || category == Category::tail_effect ||
         category == Category::low_occupancy || category == Category::load_imbalance;
}

/// A cause whose fix is at the kernel's launch: the grid, the block or num_warps, batching.
inline bool is_fixed_at_launch(Category category) {
  return is_parallelism(category) || category == Category::register_spills ||
         category == Category::launch_bound;
}

/// A stall reason of a warp waiting on something (not "selected": issuing; not "not_selected":
/// ready, another warp was picked).
inline bool is_waiting(std::string_view reason) {
  return reason != "selected" && reason != "not_selected";
}

/// A cause being built.
struct Draft {
  DiagnosisCause cause;
  std::set<std::size_t> owned; ///< instructions whose samples it owns
  /// The source-page samples the cause rests on (owned, or waiting on its line): evidence that
  /// breaks a tie of estimates.
  double samples = 0;
  std::string estimate_rule; ///< the ncu rule whose estimate it carries ("" for kprof's own)
  /// The cause carries a measured excess though its category is not one of is_measured_excess's:
  /// the wasted sectors of a chain of dependent loads (whose addresses are data), the issue slots
  /// shared-memory accesses take from a compute-bound kernel.
  bool moves_excess = false;
};

/// Whether fixing `draft` moves fewer bytes or runs fewer instructions.
inline bool has_measured_excess(const Draft& draft) {
  return draft.moves_excess || is_measured_excess(draft.cause.category);
}

/// The largest stall reason of a launch whose stalls no single reason dominates.
struct StallSpread {
  std::string reason; ///< ncu's name ("long_sb")
  double share = 0;   ///< of the warps' cycles, 0..1
  std::string of;     ///< what the share is of, in words
};

inline DiagnosisEvidence fact_evidence(const SourcedNumber& fact, std::string meaning) {
  return {fact.metric, fact.value, std::move(meaning)};
}

/// Everything the cause builders read, and the causes being built.
class Diagnoser {
public:
  explicit Diagnoser(const DiagnosisInput& input);

  Diagnosis run();

private:
  /// Blocks per SM each resource allows, smallest first: (blocks, resource, fact).
  struct Limit {
    double blocks = 0;
    std::string_view resource;
    const SourcedNumber* fact = nullptr;
  };

  // --- helpers (diagnose.cpp) ---
  Rule* rule(std::string_view name);
  Draft* find(Category category);
  Draft& add(Category category, std::string source);
  /// Takes `rule`'s global estimate (or none for a local one) and its evidence.
  static void take_rule(Draft& draft, Rule& rule, std::string_view how = {});
  /// Gives `draft` the estimate `pct` with its confidence, when it has none or a smaller one;
  /// true when it did.
  static bool estimate(Draft& draft, double pct, EstimateConfidence confidence);
  void set_line(Draft& draft, std::size_t line) const;
  static std::optional<std::size_t> largest(const std::map<std::size_t, double>& sums);
  /// Evidence of the lines whose stalls wait for `draft`'s instructions (the consumers).
  void add_waiting_lines(Draft& draft) const;
  std::vector<std::string> notes() const;
  /// Why no cause shows the launch's line.
  std::string launch_note() const;

  // --- 1. causes from the code and the metrics (code_causes.cpp) ---
  void add_uncoalesced();
  void add_bank_conflicts();
  /// Caps the bank conflicts' estimate by the samples at the conflicting accesses when the L1 is
  /// not near its roof (after own_samples()).
  void weigh_bank_conflicts();
  void add_spills();
  void add_tensor_cores();
  /// add_tensor_cores() where no line calls a matrix product: FMAs of two loaded factors at
  /// least k_fma_product_share of the instructions, one factor of each read by
  /// k_fma_product_reuse of them on average, in a kernel not memory-bound.
  void add_fma_product(const SourcedNumber& tensor);
  void add_atomics();
  /// The share of the samples spent waiting on global atomics (their writes outstanding at exit
  /// included) when it shows them serialized across warps: at least k_atomic_sample_share, with
  /// the L2 below k_atomic_idle_l2_pct of its peak and a grid of at least one wave; else nullopt.
  [[nodiscard]] std::optional<double> serialized_atomics_share() const;
  void add_divergence();
  /// The share of the global loads' excessive sectors on loads whose address is the value of an
  /// earlier load whose own address was loaded too (a chain of dependent loads), and how many
  /// such loads the code has.
  [[nodiscard]] std::pair<double, std::size_t> chained_excess() const;
  /// A kernel at `roof` (compute: `sol` is the compute SOL; memory, on the L1: the memory SOL)
  /// whose L1/shared-memory pipe is near its peak without bank conflicts that explain it: the
  /// shared-memory instructions take the issue slots and the L1's bandwidth (mio_pressure).
  /// True when it added the cause.
  bool add_shared_pipe_pressure(double sol, Bottleneck roof);

  // --- 1. causes of the launch (launch_causes.cpp) ---
  void add_launch_causes();
  [[nodiscard]] std::vector<Limit> occupancy_limits() const;
  /// The grid's waves from its blocks and the blocks an SM holds (the smallest limit), else
  /// ncu's `Waves Per SM`, which is printed to two decimals: 265 blocks over 264 slots read 1.00.
  [[nodiscard]] std::optional<double> exact_waves() const;
  /// Theoretical occupancy: ncu's, else computed from the limits and the SM's warps.
  [[nodiscard]] std::optional<SourcedNumber> theoretical_occupancy() const;
  void add_occupancy();
  void describe_occupancy(Draft& draft, const std::optional<SourcedNumber>& theoretical) const;
  void add_launch_bound();
  /// Parallelism causes get the line the warps wait on most; causes fixed at the launch get the
  /// launch's line in the kernel file.
  void point_at_code();

  // --- 5. the fix of each cause, in the kernel's language (fixes.cpp) ---
  [[nodiscard]] KernelLanguage language() const;
  void write_fixes();

  // --- 2. samples owned and ncu's stall rules (stall_causes.cpp) ---
  [[nodiscard]] static bool is_write(const Instruction& instruction);
  /// The samples of `wait` that `draft` owns: all of them when it waits for one of the draft's
  /// instructions; for a drain at exit (warps waiting for their outstanding writes), the draft's
  /// share of the kernel's written sectors.
  [[nodiscard]] double owned_samples(const Draft& draft, const Wait& wait) const;
  void own_samples();
  /// Samples of `stall` each draft owns; `total` gets all of that stall's samples.
  [[nodiscard]] std::vector<double> stall_owners(std::string_view stall, double& total) const;
  /// Without a source page: the cause a stall's kind belongs to.
  Draft* owner_by_kind(std::string_view stall);
  /// Causes that leave the warps too few to hide latency.
  Draft* parallelism_cause();
  void fold_stall_rules();
  /// What the samples of `stall` (every waiting reason when empty) spent for `line` wait for, in
  /// words ("the global load").
  [[nodiscard]] std::string waited_kind(std::string_view stall, std::size_t line) const;
  void add_stall_cause(Rule& stall_rule);
  /// Without rules (a raw page), the stall metrics of the default set: a stall that holds the
  /// warps most of the time names its cause, without an estimate (a share of stalled warp
  /// cycles is not a share of the launch's time). Only for a kernel near neither roof.
  void add_stall_metrics();
  void add_other_rules();
  /// The largest stall reason when no single one dominates the warps' cycles (the source page's
  /// samples, else ncu's CPIStall rules' shares); nullopt when one does or nothing says.
  [[nodiscard]] std::optional<StallSpread> stall_spread() const;
  /// An estimate of ncu's stall model on a launch whose stalls are spread: low confidence.
  static void lower_confidence(Draft& draft, const StallSpread& spread);

  // --- 3. the roofline's verdicts (verdicts.cpp) ---
  void add_roofline();
  /// A kernel near neither roof with no cause found says so (never beside another cause).
  void add_latency_verdict();
  void add_memory_verdict(const Roofline& roofline);
  void add_compute_verdict(const Roofline& roofline);

  // --- 4. ranking (ranking.cpp) ---
  std::vector<DiagnosisCause> rank();
  /// Bounds the estimate of a cause that keeps the work by the roofline's headroom.
  void cap_by_headroom(Draft& draft) const;
  /// Bounds a partial last wave's estimate by the share of the cycles the SMs sat idle.
  void cap_by_idle_sms(Draft& draft) const;
  /// The share of the launch's cycles an SM had no warp (1 - SM Active Cycles / Elapsed Cycles),
  /// 0..1; nullopt when the capture lacks either.
  [[nodiscard]] std::optional<double> idle_sm_share() const;

  // --- small helpers ---
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

  void own(Draft& draft, const auto& keep) const {
    for (std::size_t i = 0; i < m_code.instructions.size(); ++i) {
      if (keep(m_code.instructions[i])) {
        draft.owned.insert(i);
      }
    }
  }

  const DiagnosisInput& m_input;
  const KernelRecord& m_launch;
  const LaunchFacts& m_facts;
  std::vector<Rule> m_rules;
  Code m_code;
  bool m_has_code = false;
  std::deque<Draft> m_drafts; ///< a deque: a Draft& stays valid while causes are added
  /// The launch's shared-memory wavefronts and L2 sectors written, summed once (totals_of).
  struct CodeTotals {
    double shared_wavefronts = 0;
    double shared_excessive = 0; ///< of shared_wavefronts
    double write_sectors = 0;    ///< L2 sectors of every store and atomic
    double atomic_sectors = 0;   ///< of write_sectors, the global atomics'
  };
  [[nodiscard]] static CodeTotals totals_of(const Code& code);
  CodeTotals m_totals;
  bool m_spill_absorbs_occupancy = false;
  std::optional<LaunchSite> m_launch_site; ///< in the candidate's kernel file
  bool m_wants_launch = false;             ///< a cause is fixed at the launch
};

} // namespace kprof::diagnosis

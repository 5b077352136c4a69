// Causes from the code and the metrics: uncoalesced global accesses, bank conflicts, spills,
// tensor cores unused, contended atomics, warp divergence (docs/diagnosis.md, "Categories").
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

void Diagnoser::add_uncoalesced() {
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
  // A load whose address is the value of a load whose address was loaded too (p = next[p], a
  // pointer chase) reads where the data says: its sectors are wasted because its addresses are
  // data, and each step waits for the last. Such a chain is the defect to fix (independent
  // loads, the chains' nodes laid out side by side), not the indexing.
  const auto [chained_share, chained_loads] = chained_excess();
  const bool chain = chained_share >= k_fold_share;
  Draft& draft = add(chain ? Category::memory_latency : Category::uncoalesced_access,
                     found != nullptr ? "ncu:UncoalescedGlobalAccess"
                                      : (by_code ? "kprof:source" : "kprof:metrics"));
  draft.moves_excess = chain;
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
      used_text = fmt::format("{} of the sectors moved are needed ({}x the ideal)", pct(100 * used),
                              format_fixed(1 / used, 1));
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
  if (chain) {
    draft.cause.evidence.push_back(
        {"source page: dependent global loads", static_cast<double>(chained_loads),
         fmt::format("loads whose address is the value an earlier load returned, itself loaded "
                     "from a loaded address; {} of the excessive sectors are theirs",
                     pct(100 * chained_share))});
    draft.cause.title = fmt::format(
        "Dependent loads{}: each load's address is the value the one before returned ({} "
        "chained loads), so every step waits a full memory latency{}",
        line ? " at " + where(m_code.lines[*line]) : std::string(),
        count(static_cast<double>(chained_loads)), used_text.empty() ? "" : "; " + used_text);
  } else {
    draft.cause.title = fmt::format("Uncoalesced {}{}{}", what,
                                    line ? " at " + where(m_code.lines[*line]) : std::string(),
                                    used_text.empty() ? "" : ": " + used_text);
  }
  if (!draft.cause.estimated_speedup_pct && !m_has_code && use) {
    // Without rule or source page: the wasted share of the load bytes, as much of the time as
    // memory is busy.
    const double memory = m_facts.roofline.memory_sol_pct.value_or(0.0);
    estimate(draft, (1 - use->value / 100) * memory, EstimateConfidence::high);
  }
}

std::pair<double, std::size_t> Diagnoser::chained_excess() const {
  if (!m_has_code) {
    return {0.0, 0};
  }
  std::vector<SassOp> ops;
  ops.reserve(m_code.instructions.size());
  for (const Instruction& instruction : m_code.instructions) {
    ops.push_back(instruction.op);
  }
  const std::vector<std::size_t> producers = scoreboard_producers(ops, is_long_scoreboard_producer);
  const auto loaded_address = [&](std::size_t i) {
    const std::size_t from = producers[i];
    return from != i && ops[from].kind == SassKind::global_load;
  };
  double excessive = 0;
  double chained = 0;
  std::size_t loads = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind != SassKind::global_load) {
      continue;
    }
    const double sectors = m_code.instructions[i].sass->counters.l2_sectors_excessive;
    excessive += sectors;
    if (loaded_address(i) && loaded_address(producers[i])) {
      chained += sectors;
      ++loads;
    }
  }
  return {excessive > 0 ? chained / excessive : 0.0, loads};
}

bool Diagnoser::add_shared_pipe_pressure(double sol, Bottleneck roof) {
  const std::optional<SourcedNumber>& l1 = m_facts.l1_throughput_pct;
  if (!m_has_code || !l1 || l1->value < k_shared_pipe_busy_pct) {
    return false;
  }
  // Bank conflicts whose excess is a small part of the wavefronts cannot make the pipe busy;
  // the number of accesses does.
  const double wavefronts = m_totals.shared_wavefronts;
  const double excessive = m_totals.shared_excessive;
  if (find(Category::bank_conflicts) != nullptr &&
      (wavefronts <= 0 || excessive >= k_shared_excess_fraction * wavefronts)) {
    return false;
  }
  const auto shared = [](const Instruction& i) {
    return i.op.kind == SassKind::shared_load || i.op.kind == SassKind::shared_store ||
           i.op.kind == SassKind::shared_atomic;
  };
  double executed = 0;
  double shared_executed = 0;
  for (const Instruction& instruction : m_code.instructions) {
    executed += instruction.sass->counters.instructions_executed;
    shared_executed += shared(instruction) ? instruction.sass->counters.instructions_executed : 0;
  }
  const std::optional<std::size_t> line = largest(per_line(
      shared, [](const Instruction& i) { return i.sass->counters.instructions_executed; }));
  if (executed <= 0 || !line) {
    return false;
  }
  // Compute-bound with the shared-memory pipe near its roof: the issue slots go to shared-memory
  // accesses (and their addressing); holding the values in registers frees them. Memory-bound on
  // the L1 itself: its bandwidth goes to them, and fewer of them is the gain.
  Draft& draft = add(Category::mio_pressure, "kprof:source");
  draft.moves_excess = true; // the fix runs fewer instructions
  own(draft, shared);
  set_line(draft, *line);
  const double share = shared_executed / executed;
  estimate(draft, 100 * share, EstimateConfidence::high);
  const bool compute = roof == Bottleneck::compute;
  draft.cause.title =
      fmt::format("MIO pressure at {}: shared-memory accesses are {} of the instructions, with the "
                  "L1/shared-memory pipe at {} of its peak and {} at {} of theirs",
                  where(m_code.lines[*line]), pct(100 * share), pct(l1->value),
                  compute ? "the SMs" : "memory", pct(sol));
  draft.cause.evidence.push_back(fact_evidence(*l1, "L1/shared-memory throughput, of its peak"));
  draft.cause.evidence.push_back(
      {"source page: Instructions Executed (shared-memory accesses)", shared_executed,
       fmt::format("{} of the launch's {} warp instructions: the issue slots they take are the "
                   "estimate",
                   pct(100 * share), count(executed))});
  draft.cause.evidence.push_back(
      {compute ? "roofline: compute SOL" : "roofline: memory SOL", sol,
       compute ? fmt::format("compute-bound at {} of peak, issuing the shared-memory accesses",
                             pct(sol))
               : fmt::format("memory-bound at {} of peak on the L1, which the shared-memory "
                             "accesses keep busy: fewer of them, not more bandwidth, is the gain",
                             pct(sol))});
  return true;
}

void Diagnoser::add_bank_conflicts() {
  Rule* found = rule("UncoalescedSharedAccess");
  const double wavefronts = m_totals.shared_wavefronts;
  const double excessive = m_totals.shared_excessive;
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

void Diagnoser::weigh_bank_conflicts() {
  // Conflicts cost time in two ways: the shared pipe's throughput, when the L1 is near its roof,
  // or the latency of the conflicting accesses, which the warps' samples at them (and waiting
  // for them) measure. ncu's estimate is the excessive wavefronts' share, whatever they cost: a
  // 48 KiB codebook's conflicts rated 68% held 3.4% of the samples, with the L1 21% busy.
  Draft* draft = find(Category::bank_conflicts);
  const std::optional<SourcedNumber>& l1 = m_facts.l1_throughput_pct;
  if (draft == nullptr || !m_has_code || !l1 || l1->value >= k_shared_pipe_busy_pct) {
    return;
  }
  std::optional<double>& estimate = draft->cause.estimated_speedup_pct;
  const double sampled = 100 * share_of(draft->samples);
  if (!estimate || *estimate <= sampled) {
    return;
  }
  draft->cause.evidence.push_back(
      {"source page: warp stall samples at the conflicting accesses", draft->samples,
       fmt::format("the estimate of {} capped here: the warps spend {} of their samples at the "
                   "conflicting accesses or waiting for them, and the L1 is {} busy (under {}), "
                   "so the extra wavefronts cost their latency, not the pipe's throughput",
                   pct(*estimate), pct(sampled), pct(l1->value), pct(k_shared_pipe_busy_pct))});
  estimate = sampled;
}

void Diagnoser::add_spills() {
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
    draft.cause.evidence.push_back(fact_evidence(*spills, "local-memory requests the spills make"));
    draft.cause.title =
        fmt::format("Register spills: {} local-memory requests{}", count(spills->value), registers);
  } else {
    double executed = 0;
    for (const Instruction& instruction : m_code.instructions) {
      executed += is_local(instruction) ? instruction.sass->counters.instructions_executed : 0;
    }
    draft.cause.title = fmt::format("Register spills: {} local-memory instructions executed{}",
                                    count(executed), registers);
  }
  if (by_code) {
    const auto line =
        largest(per_line(is_local, [](const Instruction& i) { return i.sass->counters.samples; }));
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

void Diagnoser::add_tensor_cores() {
  const std::optional<SourcedNumber>& tensor = m_facts.tensor_pipe_pct;
  if (!m_has_code || !tensor || tensor->value >= k_tensor_in_use_pct) {
    return;
  }
  static constexpr std::array<std::string_view, 7> k_matrix_products{
      "tl.dot(", "tl.dot_scaled(", "mma_sync(", "mma.sync", "wgmma", "__hmma", "tcgen05.mma"};
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < m_code.lines.size(); ++i) {
    const UserLine& line = m_code.lines[i];
    const bool product =
        std::any_of(k_matrix_products.begin(), k_matrix_products.end(), [&](std::string_view call) {
          return line.text.find(call) != std::string::npos;
        });
    if (product && share_of(line.counters.samples) >= k_tensor_line_share &&
        (!best || line.counters.samples > m_code.lines[*best].counters.samples)) {
      best = i;
    }
  }
  if (!best) {
    add_fma_product(*tensor);
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
  draft.cause.evidence.push_back(fact_evidence(*tensor, "the tensor pipe's activity, of its peak"));
  if (m_facts.fma_pipe_pct) {
    draft.cause.evidence.push_back(fact_evidence(*m_facts.fma_pipe_pct, "FMA pipe utilization"));
  }
  draft.cause.evidence.push_back({"source page: instructions at " + where(line), fma_ops,
                                  "FFMA/HFMA2 instructions the line executed, and no "
                                  "tensor-core (HMMA, HGMMA, ...) instruction"});
}

namespace {

/// The load whose value register `reg` holds at instruction `at` (address order): the nearest
/// earlier writer of `reg`, followed back through at most two single-register transforms (a
/// move, a half-to-float conversion, a shift of bf16 bits), when it is a global or shared load.
std::optional<std::size_t> loaded_from(const std::vector<Instruction>& code, std::size_t at,
                                       int reg) {
  constexpr std::size_t k_window = 256;
  int transforms = 0;
  const std::size_t stop = at > k_window ? at - k_window : 0;
  for (std::size_t j = at; j-- > stop && reg >= 0;) {
    const SassOp& op = code[j].op;
    if (std::find(op.writes.begin(), op.writes.end(), reg) == op.writes.end()) {
      continue;
    }
    if (op.kind == SassKind::global_load || op.kind == SassKind::shared_load) {
      return j;
    }
    if (op.kind != SassKind::other || op.fma || op.reads.size() != 1 || ++transforms > 2) {
      return std::nullopt;
    }
    reg = op.reads.front();
  }
  return std::nullopt;
}

} // namespace

void Diagnoser::add_fma_product(const SourcedNumber& tensor) {
  if (m_facts.roofline.bottleneck == Bottleneck::memory) {
    return; // bytes bound it: a faster product gains nothing
  }
  // FMAs multiplying two loaded values, each loaded value used by several of them: the inner
  // step of a matrix product (an outer product of a column and a row tile) on the FMA pipe.
  double total = 0;
  std::map<std::size_t, std::pair<std::size_t, std::size_t>> factor_loads; // FMA -> its loads
  std::map<std::size_t, int> uses;                                         // load -> FMAs
  for (std::size_t k = 0; k < m_code.instructions.size(); ++k) {
    const Instruction& i = m_code.instructions[k];
    total += i.sass->counters.instructions_executed;
    if (!i.op.fma || !i.line) {
      continue;
    }
    const std::optional<std::size_t> a = loaded_from(m_code.instructions, k, i.op.factors[0]);
    const std::optional<std::size_t> b = loaded_from(m_code.instructions, k, i.op.factors[1]);
    if (a && b) {
      factor_loads[k] = {*a, *b};
      ++uses[*a];
      ++uses[*b];
    }
  }
  // A product's factor is used again by the next FMAs (a tile's column against the row); an
  // elementwise a * b + c uses each loaded value once.
  double products = 0;
  double reuse = 0;
  std::set<std::size_t> fmas;
  std::set<std::size_t> loads;
  for (const auto& [k, factors] : factor_loads) {
    const double executed = m_code.instructions[k].sass->counters.instructions_executed;
    products += executed;
    reuse += executed * std::max(uses[factors.first], uses[factors.second]);
    fmas.insert(k);
    loads.insert(factors.first);
    loads.insert(factors.second);
  }
  if (total <= 0 || products < k_fma_product_share * total ||
      reuse < k_fma_product_reuse * products) {
    return;
  }
  reuse /= products;
  Draft& draft = add(Category::tensor_cores_unused, "kprof:source");
  own(draft, [&](const Instruction& i) {
    const auto index = static_cast<std::size_t>(&i - m_code.instructions.data());
    return fmas.contains(index) || loads.contains(index);
  });
  const std::optional<std::size_t> line = largest(per_line(
      [&](const Instruction& i) {
        return fmas.contains(static_cast<std::size_t>(&i - m_code.instructions.data()));
      },
      [](const Instruction& i) { return i.sass->counters.samples; }));
  if (line) {
    set_line(draft, *line);
  }
  draft.cause.title = fmt::format(
      "Tensor cores unused: a matrix product written as FMAs{} ({} of the instructions multiply "
      "two loaded values, a factor used by {} FMAs on average; tensor pipe {})",
      line ? " at " + where(m_code.lines[*line]) : std::string(), pct0(100 * products / total),
      format_fixed(reuse, 1), pct(tensor.value));
  draft.cause.evidence.push_back(fact_evidence(tensor, "the tensor pipe's activity, of its peak"));
  if (m_facts.fma_pipe_pct) {
    draft.cause.evidence.push_back(fact_evidence(*m_facts.fma_pipe_pct, "FMA pipe utilization"));
  }
  draft.cause.evidence.push_back(
      {"source page: FFMA/HFMA2 of two loaded factors", products,
       fmt::format("{} of the launch's {} warp instructions: FMAs whose both factors are loaded "
                   "values (a tile's column times a tile's row), the work an MMA instruction does "
                   "16 x 8 x 16 at a time",
                   pct0(100 * products / total), count(total))});
  draft.cause.evidence.push_back({"source page: FMAs per loaded factor", reuse,
                                  "the FMAs that read the more used of each FMA's two loaded "
                                  "factors: a value feeds several, as a matrix product's tiles "
                                  "do (an elementwise product uses each once)"});
}

void Diagnoser::add_atomics() {
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
  const bool by_requests =
      std::any_of(m_code.instructions.begin(), m_code.instructions.end(), contended);
  // 0 when the requests prove contention, or nothing shows the updates queued.
  const double queued = by_requests ? 0.0 : serialized_atomics_share().value_or(0.0);
  if (!by_requests && queued <= 0) {
    return;
  }
  const auto counted = [&](const Instruction& i) {
    return by_requests ? contended(i) : i.op.kind == SassKind::global_atomic;
  };
  Draft& draft = add(Category::atomic_contention, "kprof:source");
  std::set<std::size_t> atomic_lines;
  double updates = 0;
  double sectors = 0;
  for (std::size_t i = 0; i < m_code.instructions.size(); ++i) {
    const Instruction& instruction = m_code.instructions[i];
    if (counted(instruction)) {
      draft.owned.insert(i);
      updates += instruction.sass->counters.thread_instructions_executed;
      sectors += instruction.sass->counters.l2_sectors;
      if (instruction.line) {
        atomic_lines.insert(*instruction.line);
      }
    }
  }
  // Their sectors are the updates' (a contended atomic's excess is the queue, not a layout to
  // coalesce): the atomics are this cause's alone.
  if (Draft* uncoalesced = find(Category::uncoalesced_access)) {
    for (const std::size_t i : draft.owned) {
      uncoalesced->owned.erase(i);
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
  if (queued > 0) {
    draft.cause.title = fmt::format(
        "Atomic contention{}: warps wait on the atomics for {} of the samples while the L2 is "
        "{} busy: {} updates queue on the few addresses they share",
        line ? " at " + where(m_code.lines[*line]) : std::string(), pct0(100 * queued),
        pct(m_facts.l2_throughput_pct->value), count(updates));
    draft.cause.evidence.push_back(
        {"source page: samples waiting on the atomics", 100 * queued,
         "percent of the launch's samples spent waiting on global atomics (and on the writes "
         "outstanding at exit, by the atomics' share of the written sectors)"});
    draft.cause.evidence.push_back(fact_evidence(
        *m_facts.l2_throughput_pct,
        "the L2's throughput, of its peak: updates spread over many addresses would keep it "
        "busy; a grid that fills the GPU waiting on an idle L2 waits on updates to the same "
        "addresses, which the L2 applies one after another"));
    draft.cause.evidence.push_back({"source page: Thread Instructions Executed (atomics)", updates,
                                    "lanes that ran the atomic instructions: one update each"});
    return;
  }
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

std::optional<double> Diagnoser::serialized_atomics_share() const {
  const std::optional<SourcedNumber>& l2 = m_facts.l2_throughput_pct;
  const std::optional<double> waves = exact_waves();
  if (!l2 || l2->value >= k_atomic_idle_l2_pct || !waves || *waves < 1 || m_code.samples <= 0) {
    return std::nullopt; // an L2 near work, or too few warps in flight to queue
  }
  const double atomic_sectors = m_totals.atomic_sectors;
  const double write_sectors = m_totals.write_sectors;
  double waiting = 0;
  for (const Wait& wait : m_code.waits) {
    if (m_code.instructions[wait.for_].op.kind == SassKind::global_atomic) {
      waiting += wait.samples;
    } else if (wait.reason == "drain" && write_sectors > 0) {
      waiting += wait.samples * atomic_sectors / write_sectors;
    }
  }
  const double share = waiting / m_code.samples;
  if (share < k_atomic_sample_share) {
    return std::nullopt;
  }
  return share;
}

void Diagnoser::add_divergence() {
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

} // namespace kprof::diagnosis

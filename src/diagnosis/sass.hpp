// kprof internal: what the diagnosis reads of one SASS instruction (its kind, the registers it
// writes and reads), and which load a stalled instruction waits for.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

namespace kprof::diagnosis {

/// What an instruction does, as far as the diagnosis cares.
enum class SassKind {
  other,
  global_load,   ///< LDG, LD (generic)
  global_store,  ///< STG, ST
  local_load,    ///< LDL: a spilled register read back
  local_store,   ///< STL: a register spilled
  shared_load,   ///< LDS, LDSM
  shared_store,  ///< STS
  global_atomic, ///< ATOMG, ATOM, RED, REDG
  shared_atomic, ///< ATOMS
  fence,         ///< MEMBAR, ERRBAR, CCTL, FENCE: the orderings around atomics
  tensor,        ///< HMMA, HGMMA, IMMA, QGMMA, ...: the tensor pipe
  special,       ///< MUFU: sine, exponent, reciprocal on the XU pipe
  barrier,       ///< BAR: the block's warps wait here for each other
  exit,          ///< EXIT
};

/// One decoded instruction: "@!P0 LDG.E.128 R16, desc[UR6][R2.64]" is a global_load writing
/// R16..R19 and reading R2, R3.
struct SassOp {
  SassKind kind = SassKind::other;
  std::vector<int> writes; ///< general registers written (RZ never)
  std::vector<int> reads;  ///< general registers read
  /// Predicates (P0..P6) written (a compare's results, a carry out) and read (the guard @P0, a
  /// select's condition, a carry in); PT never. A value can reach an address through them: a
  /// binary search's next index is chosen by comparing the value it loaded last.
  std::vector<int> predicates_written;
  std::vector<int> predicates_read;
  int access_bytes = 0; ///< bytes per lane of a memory access (.64 -> 8, .128 -> 16, else 4)
  /// A fused multiply-add on the FMA pipe (FFMA, HFMA2): the registers of its two factors (the
  /// first register each names; -1 for a constant or an immediate). The addend is not a factor.
  bool fma = false;
  std::array<int, 2> factors{-1, -1};
};

/// Decodes the SASS text of a source-page row. Text it does not know is `other`, with the
/// registers it names still read. Never fails.
SassOp decode_sass(std::string_view text);

/// True for an instruction whose result a long-scoreboard stall waits for (global and local
/// loads, atomics that return a value).
bool is_long_scoreboard_producer(const SassOp& op);

/// True for an instruction whose result a short-scoreboard stall waits for (shared-memory loads
/// and atomics, special functions).
bool is_short_scoreboard_producer(const SassOp& op);

/// For each instruction of `ops` (one launch, address order), the index of the instruction whose
/// result it waits for when it stalls on a scoreboard: the nearest earlier instruction writing
/// one of its registers, followed back through arithmetic until one that `is_producer` accepts
/// (at most `max_steps` instructions back). Its own index when none is found.
std::vector<std::size_t> scoreboard_producers(const std::vector<SassOp>& ops,
                                              bool (*is_producer)(const SassOp&),
                                              std::size_t max_steps = 96);

} // namespace kprof::diagnosis

// Design note: the SASS the diagnosis reads.
//
// ncu's source page gives every instruction's text (`@!P0 LDG.E.128 R16, desc[UR6][R2.64]`) and
// counters. The diagnosis needs three things from the text: what kind of instruction it is (a
// global load, a spill, an atomic, a tensor-core op), which general registers it writes (the
// first operand of an instruction that is not a store, widened by `.64`/`.128`/`.WIDE`), and which
// it reads (every other `R<n>`). A long-scoreboard stall is counted by ncu on the instruction
// that waits, the consumer; the load it waits for is found by walking back from the consumer to
// the nearest earlier writer of one of its registers, through arithmetic, until a load. That is
// the static order of the code, not a trace: a value carried around a loop is found at its
// producer before the loop body only when the producer precedes it. Uniform registers (`UR`),
// predicates and constants are not followed.
#include "diagnosis/sass.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

namespace kprof::diagnosis {
namespace {

bool starts_with_any(std::string_view text, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view prefix) { return text.starts_with(prefix); });
}

/// The opcode's first component ("LDG" of "LDG.E.128").
std::string_view base_of(std::string_view opcode) {
  return opcode.substr(0, opcode.find('.'));
}

SassKind kind_of(std::string_view opcode) {
  const std::string_view base = base_of(opcode);
  if (base == "LDG" || base == "LD") {
    return SassKind::global_load;
  }
  if (base == "STG" || base == "ST") {
    return SassKind::global_store;
  }
  if (base == "LDL") {
    return SassKind::local_load;
  }
  if (base == "STL") {
    return SassKind::local_store;
  }
  if (base == "LDS" || base == "LDSM") {
    return SassKind::shared_load;
  }
  if (base == "STS") {
    return SassKind::shared_store;
  }
  if (base == "ATOMG" || base == "ATOM" || base == "RED" || base == "REDG") {
    return SassKind::global_atomic;
  }
  if (base == "ATOMS") {
    return SassKind::shared_atomic;
  }
  if (base == "MEMBAR" || base == "ERRBAR" || base == "CCTL" || base == "FENCE") {
    return SassKind::fence;
  }
  if (starts_with_any(base, {"HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "BMMA", "BGMMA", "DMMA",
                             "UTCHMMA", "UTCQMMA", "UTCIMMA"})) {
    return SassKind::tensor;
  }
  if (base == "MUFU") {
    return SassKind::special;
  }
  if (base == "BAR") {
    return SassKind::barrier;
  }
  if (base == "EXIT") {
    return SassKind::exit;
  }
  return SassKind::other;
}

bool writes_no_register(SassKind kind) {
  return kind == SassKind::global_store || kind == SassKind::local_store ||
         kind == SassKind::shared_store || kind == SassKind::fence || kind == SassKind::exit;
}

/// Registers a `.64`/`.128` operand or opcode covers.
int width_of(std::string_view suffix) {
  if (suffix.find(".128") != std::string_view::npos) {
    return 4;
  }
  if (suffix.find(".64") != std::string_view::npos ||
      suffix.find(".WIDE") != std::string_view::npos) {
    return 2;
  }
  return 1;
}

/// Bytes per lane of a memory instruction's opcode: its width suffix (.64, .128), or its packed
/// type (Hopper's vector atomics: ATOMG.E.ADD.F32x4 updates four floats, 16 bytes, per lane;
/// .F16x2 two halves, 4 bytes), else 4.
int access_bytes_of(std::string_view opcode) {
  int bytes = 4 * width_of(opcode);
  for (std::size_t x = opcode.find('x'); x != std::string_view::npos; x = opcode.find('x', x + 1)) {
    std::size_t digits = x;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(opcode[digits - 1])) != 0) {
      --digits;
    }
    if (digits == x || x + 1 >= opcode.size() ||
        std::isdigit(static_cast<unsigned char>(opcode[x + 1])) == 0) {
      continue;
    }
    const int bits = std::atoi(std::string(opcode.substr(digits, x - digits)).c_str());
    const int lanes = opcode[x + 1] - '0';
    if ((bits == 16 || bits == 32 || bits == 64) && (lanes == 2 || lanes == 4 || lanes == 8)) {
      bytes = std::max(bytes, bits / 8 * lanes);
    }
  }
  return bytes;
}

/// The predicate register an operand names ("P3", "!P3"), PT excepted.
std::optional<int> predicate_of(std::string_view operand) {
  if (operand.starts_with('!')) {
    operand.remove_prefix(1);
  }
  if (operand.size() == 2 && operand[0] == 'P' && operand[1] >= '0' && operand[1] <= '6') {
    return operand[1] - '0';
  }
  return std::nullopt;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// Every general register `operand` names ("desc[UR6][R2.64+0x10]" -> R2, R3), RZ left out.
void registers_in(std::string_view operand, std::vector<int>& out) {
  for (std::size_t i = 0; i < operand.size(); ++i) {
    if (operand[i] != 'R' || (i > 0 && is_name_char(operand[i - 1]))) {
      continue;
    }
    std::size_t end = i + 1;
    while (end < operand.size() && std::isdigit(static_cast<unsigned char>(operand[end])) != 0) {
      ++end;
    }
    if (end == i + 1 ||
        (end < operand.size() &&
         (std::isalpha(static_cast<unsigned char>(operand[end])) != 0 || operand[end] == '_'))) {
      continue; // RZ, or part of a longer name
    }
    const int first = std::stoi(std::string(operand.substr(i + 1, end - i - 1)));
    const int width = width_of(operand.substr(end, operand.find_first_of(",]+ ", end) - end));
    for (int r = first; r < first + width; ++r) {
      out.push_back(r);
    }
    i = end;
  }
}

std::vector<std::string_view> split_operands(std::string_view text) {
  std::vector<std::string_view> operands;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[') {
      ++depth;
    } else if (c == ']') {
      --depth;
    } else if (c == ',' && depth <= 0) {
      std::string_view operand = text.substr(start, i - start);
      while (!operand.empty() && (operand.front() == ' ' || operand.front() == '{')) {
        operand.remove_prefix(1);
      }
      while (!operand.empty() &&
             (operand.back() == ' ' || operand.back() == ';' || operand.back() == '}')) {
        operand.remove_suffix(1);
      }
      if (!operand.empty()) {
        operands.push_back(operand);
      }
      start = i + 1;
    }
  }
  return operands;
}

} // namespace

SassOp decode_sass(std::string_view text) {
  SassOp op;
  std::size_t at = text.find_first_not_of(' ');
  if (at == std::string_view::npos) {
    return op;
  }
  text.remove_prefix(at);
  if (text.starts_with('@')) { // the predicate guarding the instruction
    const std::size_t space = text.find(' ');
    if (const std::optional<int> guard = predicate_of(text.substr(1, space - 1))) {
      op.predicates_read.push_back(*guard);
    }
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
  }
  const std::size_t space = text.find(' ');
  const std::string_view opcode = text.substr(0, space);
  const std::string_view operands_text =
      space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
  op.kind = kind_of(opcode);
  op.access_bytes = access_bytes_of(opcode);
  const std::vector<std::string_view> operands = split_operands(operands_text);
  std::size_t first_read = 0;
  if (!operands.empty() && !writes_no_register(op.kind) && operands.front().starts_with('R') &&
      operands.front().find('[') == std::string_view::npos) {
    std::vector<int> written;
    registers_in(operands.front(), written);
    // The opcode's width (LDG.E.128 R16) widens a destination named by its first register.
    const int width = std::max(width_of(opcode), static_cast<int>(written.size()));
    if (!written.empty()) {
      for (int r = written.front(); r < written.front() + width; ++r) {
        op.writes.push_back(r);
      }
    }
    first_read = 1;
  }
  for (std::size_t i = first_read; i < operands.size(); ++i) {
    registers_in(operands[i], op.reads);
  }
  const std::string_view base = base_of(opcode);
  if ((base == "FFMA" || base == "HFMA2") && first_read == 1 && operands.size() >= 4) {
    op.fma = true;
    for (std::size_t f = 0; f < 2; ++f) {
      std::vector<int> named;
      registers_in(operands[1 + f], named);
      op.factors[f] = named.empty() ? -1 : named.front();
    }
  }
  // Predicates right after the destination (or first: ISETP P0, PT, ...) are written; any after
  // the first source operand are read.
  bool destinations = true;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const std::optional<int> predicate = predicate_of(operands[i]);
    if (predicate) {
      (destinations ? op.predicates_written : op.predicates_read).push_back(*predicate);
    } else if (operands[i] != "PT" && operands[i] != "!PT" && !(i == 0 && first_read == 1)) {
      destinations = false;
    }
  }
  return op;
}

bool is_long_scoreboard_producer(const SassOp& op) {
  return (op.kind == SassKind::global_load || op.kind == SassKind::local_load ||
          op.kind == SassKind::global_atomic) &&
         !op.writes.empty();
}

bool is_short_scoreboard_producer(const SassOp& op) {
  return (op.kind == SassKind::shared_load || op.kind == SassKind::shared_atomic ||
          op.kind == SassKind::special) &&
         !op.writes.empty();
}

std::vector<std::size_t> scoreboard_producers(const std::vector<SassOp>& ops,
                                              bool (*is_producer)(const SassOp&),
                                              std::size_t max_steps) {
  // General registers by number, predicates after them (k_predicate_base + n), gathered once
  // per instruction: the walk below visits each up to max_steps times.
  constexpr int k_predicate_base = 1000;
  std::vector<std::vector<int>> written(ops.size());
  std::vector<std::vector<int>> read(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    written[i] = ops[i].writes;
    for (const int p : ops[i].predicates_written) {
      written[i].push_back(k_predicate_base + p);
    }
    read[i] = ops[i].reads;
    for (const int p : ops[i].predicates_read) {
      read[i].push_back(k_predicate_base + p);
    }
  }
  std::vector<std::size_t> producers(ops.size());
  for (std::size_t consumer = 0; consumer < ops.size(); ++consumer) {
    producers[consumer] = consumer;
    // What the consumer waits for: its operands' registers (not its guard: a load's address is
    // what it waits on; the guard only decides whether it runs).
    std::set<int> wanted(ops[consumer].reads.begin(), ops[consumer].reads.end());
    const std::size_t stop = consumer > max_steps ? consumer - max_steps : 0;
    for (std::size_t j = consumer; j-- > stop && !wanted.empty();) {
      const std::vector<int>& writes = written[j];
      const bool writes_wanted =
          std::any_of(writes.begin(), writes.end(), [&](int r) { return wanted.contains(r); });
      if (!writes_wanted) {
        continue;
      }
      if (is_producer(ops[j])) {
        producers[consumer] = j;
        break;
      }
      // Arithmetic, a compare, a predicated move: what it computed from is what the consumer
      // waits for.
      for (const int r : writes) {
        wanted.erase(r);
      }
      wanted.insert(read[j].begin(), read[j].end());
    }
  }
  return producers;
}

} // namespace kprof::diagnosis

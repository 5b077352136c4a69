// The code of one launch: every instruction of its source-page blocks under the user line it
// belongs to, and what each stall sample waits for.
//
// A user line's own instructions are its block's. Triton's library lines go to the user line
// the hot lines folded them into (KernelHotLines::folded, from the PTX's inline chains); one no
// single line called stays unattributed. The CUDA toolkit's headers (`atomicAdd` is
// `__iAtomicAdd` in device_atomic_functions.hpp) have no inline chain on the page, but the
// compiler lays inlined code out inside its caller's: such an instruction belongs to the user
// line of the nearest user instruction before it in address order (after it, for the first).
#include "diagnosis/code.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace kprof::diagnosis {
namespace {

std::string_view basename_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool same_file(std::string_view a, std::string_view b) {
  return a == b || basename_of(a) == basename_of(b);
}

/// Where a block's instructions go before the toolkit's are placed.
enum class Origin { user, library, toolkit };

Origin origin_of(std::string_view file) {
  if (is_triton_library_file(file)) {
    return Origin::library;
  }
  return is_toolkit_header(file) ? Origin::toolkit : Origin::user;
}

class CodeBuilder {
public:
  explicit CodeBuilder(const KernelHotLines& hot) : m_hot(hot) {}

  Code build(const std::vector<SourceBlock>& blocks) {
    for (const SourceBlock& block : blocks) {
      const Origin origin = origin_of(block.file);
      for (const SourceLine& line : block.lines) {
        add_line(block.file, origin, line);
      }
    }
    std::stable_sort(m_pending.begin(), m_pending.end(), [](const Pending& a, const Pending& b) {
      return a.instruction.sass->address < b.instruction.sass->address;
    });
    place_toolkit_code();
    for (Pending& pending : m_pending) {
      m_code.instructions.push_back(std::move(pending.instruction));
    }
    add_waits();
    return std::move(m_code);
  }

private:
  struct Pending {
    Instruction instruction;
    Origin origin = Origin::user;
  };

  std::size_t user_line(const std::string& file, int number, std::string_view text) {
    const auto key = std::make_pair(file, number);
    if (auto found = m_index.find(key); found != m_index.end()) {
      return found->second;
    }
    UserLine line;
    line.file = file;
    line.line = number;
    line.text = std::string(text);
    m_code.lines.push_back(std::move(line));
    return m_index.emplace(key, m_code.lines.size() - 1).first->second;
  }

  /// The user line a library line was folded into.
  std::optional<std::size_t> folded_line(const std::string& file, int number) {
    for (const FoldedLine& folded : m_hot.folded) {
      if (folded.library_line == number && same_file(folded.library_file, file)) {
        std::string_view text;
        for (const HotLine& hot : m_hot.lines) {
          if (hot.line == folded.line && hot.file == folded.file) {
            text = hot.text;
          }
        }
        return user_line(folded.file, folded.line, text);
      }
    }
    return std::nullopt;
  }

  void add_line(const std::string& file, Origin origin, const SourceLine& line) {
    std::optional<std::size_t> target;
    if (origin == Origin::user) {
      target = user_line(file, line.line, line.text);
    } else if (origin == Origin::library) {
      target = folded_line(file, line.line);
    }
    m_code.samples += line.counters.samples;
    if (target) {
      m_code.lines[*target].counters += line.counters;
    }
    for (const SassInstruction& sass : line.instructions) {
      Pending pending;
      pending.instruction.sass = &sass;
      pending.instruction.op = decode_sass(sass.text);
      pending.instruction.line = target;
      pending.origin = origin;
      m_pending.push_back(std::move(pending));
    }
  }

  /// Puts each toolkit instruction (and its line's counters) at the user line around it.
  void place_toolkit_code() {
    std::optional<std::size_t> previous;
    std::optional<std::size_t> first_user;
    for (const Pending& pending : m_pending) {
      if (pending.origin == Origin::user && pending.instruction.line) {
        first_user = pending.instruction.line;
        break;
      }
    }
    for (Pending& pending : m_pending) {
      if (pending.origin == Origin::user) {
        previous = pending.instruction.line;
      } else if (pending.origin == Origin::toolkit) {
        pending.instruction.line = previous ? previous : first_user;
        if (pending.instruction.line) {
          m_code.lines[*pending.instruction.line].counters += pending.instruction.sass->counters;
        }
      }
    }
  }

  /// The barrier a warp sampled at `i` waits at: ncu samples a warp held at a barrier at the
  /// instruction after it (the compiler may put another line's code there, such as the loop's
  /// bound), so it is the nearest earlier BAR; `i` itself when none is near.
  static std::size_t barrier_before(const std::vector<SassOp>& ops, std::size_t i) {
    constexpr std::size_t k_max_steps = 8;
    for (std::size_t j = i + 1; j-- > 0 && i - j <= k_max_steps;) {
      if (ops[j].kind == SassKind::barrier) {
        return j;
      }
    }
    return i;
  }

  void add_waits() {
    std::vector<SassOp> ops;
    ops.reserve(m_code.instructions.size());
    for (const Instruction& instruction : m_code.instructions) {
      ops.push_back(instruction.op);
    }
    const std::vector<std::size_t> long_producers =
        scoreboard_producers(ops, is_long_scoreboard_producer);
    const std::vector<std::size_t> short_producers =
        scoreboard_producers(ops, is_short_scoreboard_producer);
    for (std::size_t i = 0; i < m_code.instructions.size(); ++i) {
      for (const auto& [reason, samples] : m_code.instructions[i].sass->counters.stalls) {
        std::size_t spent_for = i;
        if (reason == "long_sb") {
          spent_for = long_producers[i];
        } else if (reason == "short_sb") {
          spent_for = short_producers[i];
        } else if (reason == "barrier") {
          // A barrier in library code without a user line (Triton's reductions) leaves the
          // samples where they are.
          const std::size_t barrier = barrier_before(ops, i);
          spent_for = m_code.instructions[barrier].line ? barrier : i;
        }
        m_code.waits.push_back(Wait{i, spent_for, reason, samples});
      }
    }
  }

  const KernelHotLines& m_hot;
  Code m_code;
  std::map<std::pair<std::string, int>, std::size_t> m_index;
  std::vector<Pending> m_pending;
};

} // namespace

std::optional<std::size_t> Code::line_index(std::string_view file, int line) const {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].line == line && lines[i].file == file) {
      return i;
    }
  }
  return std::nullopt;
}

bool is_toolkit_header(std::string_view path) {
  const std::size_t include = path.rfind("/include/");
  if (include == std::string_view::npos) {
    return false;
  }
  // A component that starts with "cuda" ("cuda", "cuda-12.4") before the include directory.
  const std::size_t cuda = path.find("/cuda");
  return cuda != std::string_view::npos && cuda < include;
}

Code read_code(const std::vector<SourceBlock>& blocks, const KernelHotLines& hot) {
  return CodeBuilder(hot).build(blocks);
}

} // namespace kprof::diagnosis

// kprof internal: one launch's code as the diagnosis reads it: every SASS instruction of the
// source page with the user line it belongs to, its samples, and the load its waits are for.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnosis/sass.hpp"
#include "kprof/hot_lines.hpp"
#include "kprof/source_page.hpp"

namespace kprof::diagnosis {

/// A line of the user's code (Triton's library lines are folded into it, CUDA headers' code is
/// placed at the line whose instructions surround it).
struct UserLine {
  std::string file;
  int line = 0;
  std::string text;
  LineCounters counters; ///< the line's own row plus what was folded into it
};

/// One instruction with where it belongs.
struct Instruction {
  const SassInstruction* sass = nullptr;
  SassOp op;
  std::optional<std::size_t> line; ///< index into Code::lines; none for unattributed library code
};

/// Samples of one stall reason on one instruction, and the instruction they are spent for (the
/// load a long-scoreboard wait waits for, the shared load a short-scoreboard wait waits for,
/// the instruction itself otherwise).
struct Wait {
  std::size_t at = 0;   ///< the instruction that stalled
  std::size_t for_ = 0; ///< the instruction the samples are spent for
  std::string reason;   ///< ncu's stall name ("long_sb")
  double samples = 0;
};

struct Code {
  std::vector<UserLine> lines;
  std::vector<Instruction> instructions; ///< address order
  std::vector<Wait> waits;
  double samples = 0; ///< every sample of the launch

  /// The index of the user line `file:line`, if the code has it.
  [[nodiscard]] std::optional<std::size_t> line_index(std::string_view file, int line) const;
};

/// True for a file of the CUDA toolkit's headers (`.../cuda/include/...`,
/// `.../cuda-12.4/targets/x86_64-linux/include/...`): code inlined from them is the user's call.
bool is_toolkit_header(std::string_view path);

/// The code of one launch from its source-page blocks and hot lines (whose folds place Triton's
/// library lines). Empty when the blocks carry no instructions.
Code read_code(const std::vector<SourceBlock>& blocks, const KernelHotLines& hot);

} // namespace kprof::diagnosis

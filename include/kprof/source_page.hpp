// kprof: ncu's source page (per-line counters of a kernel), as read by src/csv/source_page.cpp.
//
// `ncu --import R.ncu-rep --page source --print-source cuda,sass --csv` prints one block per
// (launch, source file): a `"File Path","<path>"` record, a `"Function Name","<kernel>"` record,
// a header (`"Line No","Source","Address","Source","Warp Stall Sampling (All Samples)",...`, 68
// columns with ncu 2025.3.1) and then rows. A row with a line number is the total of that source
// line; a row with an empty line number is one SASS instruction under it (`...` rows stand for
// elided instructions; kprof keeps each instruction under its line). Blocks come in launch order
// and name no launch ID or NVTX range; within one launch each file has one block. Without line info
// ncu prints only a `==WARNING== No lineinfo available ...` line. See docs/hot-lines.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kprof/error.hpp"

namespace kprof {

/// The counters of one source line (a line row of the source page), or a sum of such rows.
/// A counter ncu printed as `-` or left out reads as 0.
struct LineCounters {
  double samples = 0;                      ///< "Warp Stall Sampling (All Samples)"
  double samples_not_issued = 0;           ///< "Warp Stall Sampling (Not-issued Samples)"
  double instructions_executed = 0;        ///< warp-level: "Instructions Executed"
  double thread_instructions_executed = 0; ///< "Thread Instructions Executed": the lanes
  double l2_sectors = 0;                   ///< "L2 Theoretical Sectors Global"
  double l2_sectors_ideal = 0;             ///< "L2 Theoretical Sectors Global Ideal"
  double l2_sectors_excessive = 0;         ///< "L2 Theoretical Sectors Global Excessive"
  double shared_wavefronts = 0;            ///< "L1 Wavefronts Shared"
  double shared_wavefronts_ideal = 0;
  double shared_wavefronts_excessive = 0; ///< bank conflicts
  /// "Access Size" of the line's memory instructions in bits, 0 when it has none or several.
  double access_size_bits = 0;
  /// Samples per stall reason, ncu's `stall_*` columns (All Samples, not the "(Not Issued)"
  /// twins), the `stall_` prefix removed ("long_sb", "lg", "barrier", ...), in ncu's column
  /// order, zero counts left out.
  std::vector<std::pair<std::string, double>> stalls;

  /// Adds every counter of `other` (stalls merged by reason; access size kept when equal, else 0).
  LineCounters& operator+=(const LineCounters& other);
};

/// One SASS instruction of a source line: a row of the page without a line number, under the
/// line's row. Its counters are the instruction's own (a line's are their sum).
struct SassInstruction {
  std::uint64_t address = 0; ///< "Address", as printed in hex ("0x7f45037b3220")
  std::string text;          ///< the SASS, predicate kept: "@!P0 LDG.E.128 R16, desc[UR6][R2.64]"
  LineCounters counters;
};

/// One source line of a block.
struct SourceLine {
  int line = 0;     ///< 1-based line number in `SourceBlock::file`
  std::string text; ///< the source text ncu imported ("x = tl.load(...)")
  LineCounters counters;
  /// Its SASS instructions in page order, each address once (ncu prints the instructions of some
  /// lines twice); `...` rows (elided instructions) are left out.
  std::vector<SassInstruction> instructions{};
};

/// One block of the page: the lines of one source file in one profiled launch.
struct SourceBlock {
  std::string file;     ///< "File Path", as printed (absolute on the profiled machine)
  std::string function; ///< "Function Name": the kernel
  std::vector<SourceLine> lines;
};

/// A whole source page.
struct SourcePage {
  std::vector<SourceBlock> blocks;
  /// ncu's `==WARNING==`/`==ERROR==` lines, prefix kept ("==WARNING== No lineinfo available to
  /// show CUDA-C source related to 'softmax_kernel'.").
  std::vector<std::string> messages;
};

/// Parses the text of a source page. malformed_input (naming `origin` and the line) on a block
/// without its header, a line row before any block, a header without "Line No" and
/// "Warp Stall Sampling (All Samples)", a line row with fewer fields than its header (a page cut
/// short) or an unreadable line number, or text that is not CSV. ncu leaves the quotes inside the
/// source text unescaped: they are lost (`float("inf")` reads `float(inf)`), and a row that a
/// quoted comma split into extra fields is joined back. A SASS row is kept under the line row
/// before it; one before any line row of its block, or whose address is not hex, is left out. An
/// empty page, or one with only ncu messages, is a valid page with no blocks. Never throws on any
/// input.
Result<SourcePage> parse_source_page(std::string_view text, std::string_view origin = "<text>");

/// Reads and parses a source-page CSV file (same refusals as read_ncu_csv for paths that are not
/// regular files).
Result<SourcePage> read_source_page(const std::filesystem::path& path);

/// Splits the blocks into launches, given the kernel name of every profiled launch in launch
/// order (the raw page's rows, in the same order). Returns one vector of blocks per launch
/// (empty for a launch without line info). The rule (docs/hot-lines.md): a new launch starts
/// when the function name changes, when a file repeats within the current launch, or when a
/// path sorts before the previous block's path (ncu prints the files of one launch in path
/// order). malformed_input saying so when the blocks cannot be matched to the launches.
Result<std::vector<std::vector<SourceBlock>>>
split_source_by_launch(const SourcePage& page, const std::vector<std::string>& launch_names);

} // namespace kprof

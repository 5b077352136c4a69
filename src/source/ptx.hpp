// kprof (private to src/source): the line information of a PTX text that Triton wrote.
//
// Triton's PTX names its source files in a `.file N "path"` table at the END of the text, and
// marks each instruction with `.loc N LINE COLUMN`, followed by a comment that spells the inline
// chain of that location with basenames, innermost first:
//   .loc 2 170 27   // standard.py:170:27 @[ standard.py:191:40 @[ cand1.py:13:19 ] ]
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::source {

/// One frame of an inline chain, as the comment spells it.
struct PtxFrame {
  std::string file; ///< basename, as in the comment
  int line = 0;
  int column = 0;
};

/// A `.loc` whose comment holds an inline chain (at least two frames).
struct PtxInlineChain {
  int file_index = 0;           ///< the `.loc`'s own file number (the innermost frame's file)
  std::vector<PtxFrame> frames; ///< innermost first
};

struct PtxLineInfo {
  std::map<int, std::string> files; ///< the `.file` table: number -> path
  std::vector<PtxInlineChain> chains;
};

/// Reads the `.file` table and the inline chains of `ptx`. Anything else (and text that is not
/// PTX) is ignored.
PtxLineInfo read_ptx_line_info(std::string_view ptx);

/// Just the `.file` table's paths.
std::vector<std::string> ptx_file_paths(std::string_view ptx);

} // namespace kprof::source

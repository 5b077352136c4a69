// kprof: hot lines, which line of a Triton kernel costs the time and why (src/source).
//
// ncu's source page (kprof/source_page.hpp) counts warp-stall samples per source line. Triton
// inlines its library (`tl.max`, `tl.sum`: triton/language/standard.py) into the kernel, so part
// of the samples sit on library lines. The PTX Triton compiled carries the inline chain of every
// location in its `.loc` comments (`standard.py:170:27 @[ standard.py:191:40 @[ cand1.py:13:19 ]
// ]`); kprof reads it to fold each library line back to the one user line that called it. A
// library line reached from several user lines (or without PTX) cannot be attributed and is
// kept as "inlined from `tl.sum` (standard.py:293)" with its samples. See docs/hot-lines.md.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/source_page.hpp"

namespace kprof {

/// True for a file of Triton's own package (".../triton/language/standard.py" and the like):
/// its lines are folded back to the user's line that called them.
bool is_triton_library_file(std::string_view path);

/// Where a library line was inlined from, as one PTX chain says: the user frame (the innermost
/// frame of the chain outside Triton's library; for a kernel without helper functions of its
/// own, the outermost) and the name of the function that user line called ("tl.sum"; empty when
/// it cannot be read).
struct InlineCaller {
  std::string file; ///< the user file, full path from the PTX's `.file` table
  int line = 0;
  std::string callee; ///< "tl.sum", read from the user's line at the call's column
  auto operator<=>(const InlineCaller&) const = default;
};

/// For every (file, line) that PTX locations name inside an inline chain, the user lines that
/// inlined it. Built from the PTX of one or more compiled kernels.
class InlineMap {
public:
  /// Reads one PTX text: its `.file` table and every `.loc` comment with an `@[` chain. Text that
  /// is not PTX, or PTX without line info, adds nothing. Never fails.
  void add_ptx(std::string_view ptx);

  /// The distinct user callers of `file:line` (file as a full path or a basename), empty when
  /// no PTX mentioned it.
  [[nodiscard]] std::vector<InlineCaller> callers(std::string_view file, int line) const;

  /// The user-file lines' source text, when a caller needs it to name the callee; optional.
  void add_user_source(std::string_view file, int line, std::string_view text);

  [[nodiscard]] bool empty() const;

private:
  struct Key {
    std::string file; ///< full path
    int line = 0;
    auto operator<=>(const Key&) const = default;
  };
  struct Site {
    std::string file; ///< full path of the user frame
    int line = 0;
    int column = 0;
    auto operator<=>(const Site&) const = default;
  };
  /// The name of the function called at `site`, from add_user_source's text; empty if unknown.
  [[nodiscard]] std::string callee_of(const Site& site) const;

  std::map<Key, std::set<Site>> m_sites;
  std::map<Key, std::string> m_user_text;
};

/// Finds the PTX of the kernels `kernel_names` compiled from `user_file` in a Triton cache
/// directory (`<cache>/<hash>/<kernel>.ptx`, the `.file` table naming `user_file`), leaving out
/// any written before `not_before` (a cache entry older than the kernel file cannot be of its
/// current content). Returns the PTX texts; an unreadable cache or none found is an empty vector.
std::vector<std::string> find_triton_ptx(const std::filesystem::path& triton_cache,
                                         const std::vector<std::string>& kernel_names,
                                         const std::filesystem::path& user_file,
                                         std::filesystem::file_time_type not_before);

struct HotLineOptions {
  std::size_t top = 5;        ///< hot lines per kernel
  std::size_t top_stalls = 3; ///< stall reasons per line
  /// A kernel with fewer samples than this says its shares are not to be trusted.
  double min_kernel_samples = 200;
  /// A line with fewer samples than this is marked `few_samples`.
  double min_line_samples = 20;
};

/// A library line folded into a user line, or left unattributed.
struct InlinedPart {
  std::string callee; ///< "tl.sum", empty when unknown
  std::string file;   ///< library file, as the source page printed it
  int line = 0;
  std::string text; ///< the library line's source text
  double samples = 0;
};

/// One hot line: a user line with its own samples plus the library lines folded into it.
struct HotLine {
  std::string file;
  int line = 0;
  std::string text;
  LineCounters counters; ///< own + folded
  double share = 0;      ///< counters.samples / the kernel's samples
  bool few_samples = false;
  std::vector<InlinedPart> inlined; ///< what was folded in
};

/// A Triton library line folded into the user line that called it (kept with or without samples,
/// so that the diagnosis can place the line's instructions).
struct FoldedLine {
  std::string library_file; ///< as the source page printed it
  int library_line = 0;
  std::string file; ///< the user line's file, as its hot line names it
  int line = 0;
};

/// The per-line facts of one launch (or the sum of several launches of one kernel).
struct KernelHotLines {
  double samples = 0;                    ///< all samples of the kernel, every file
  bool few_samples = false;              ///< samples < min_kernel_samples
  std::vector<HotLine> lines;            ///< every user line with samples, hottest first
  std::vector<InlinedPart> unattributed; ///< library lines no single user line called
  std::vector<FoldedLine> folded{};      ///< every library line folded, samples or not
  std::vector<std::string> notes;        ///< e.g. "no PTX found: Triton library lines not folded"
};

/// Folds the blocks of one launch (split_source_by_launch) with `inline_map` and ranks the user
/// lines by samples (ties: line order). A library line is folded only into a user line of one of
/// this launch's files (PTX of another kernel folds nothing). Never fails; an empty `blocks`
/// gives an empty result.
KernelHotLines fold_hot_lines(const std::vector<SourceBlock>& blocks, const InlineMap& inline_map,
                              const HotLineOptions& options = {});

/// The `hot_lines` member of a report's kernel entry (docs/json-schema.md):
/// {samples, few_samples, lines: [{file, line, source, samples, share, few_samples,
///  instructions_executed, stalls: [{reason, samples, share}], memory: {l2_sectors,
///  l2_sectors_excessive, shared_wavefronts_excessive, access_size_bits}, inlined: [{callee,
///  file, line, source, samples}]}], unattributed: [{callee, file, line, source, samples}],
///  notes: [text]}, with only the `options.top` hottest lines and `options.top_stalls` stalls.
Json hot_lines_to_json(const KernelHotLines& hot, const HotLineOptions& options = {});

/// A per-line diff between two rounds' `hot_lines` members of one kernel: lines matched by
/// their normalised source text (whitespace collapsed), so the match survives edits above them.
/// [{source, before: {line, share, samples} | null, after: {...} | null}], ordered by the
/// larger share. Never fails; members that are not hot_lines objects read as empty.
Json diff_hot_lines(const Json& before, const Json& after);

} // namespace kprof

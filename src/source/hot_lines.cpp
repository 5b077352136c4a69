// Design note: hot lines, and folding Triton's library lines back into the user's.
//
// Triton inlines `tl.max`, `tl.sum` and the rest of triton/language into the kernel, so ncu's
// source page puts part of a kernel's samples on lines of standard.py. The PTX of the kernel
// says, for each location, the chain of calls that inlined it (ptx.hpp). InlineMap keeps, for
// every library (file, line) in such a chain, the user line that made the call: the innermost
// frame of the chain outside Triton's library, which for a plain kernel is the outermost frame.
// fold_hot_lines adds a library line's counters to its caller when exactly one user line called
// it; otherwise the samples stay visible as "unattributed", with the callee's name when every
// caller agrees on it. Nothing is guessed from line numbers alone.
//
// The callee's name comes from the user's line at the call's column. ncu's text of a line has
// lost its indentation, so the column (an offset into the indented line) is matched against
// the calls of the text assuming an indentation of a multiple of four first, then any.
#include "kprof/hot_lines.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include <fmt/format.h>

#include "kprof/numbers.hpp"
#include "kprof/strings.hpp"
#include "source/ptx.hpp"

namespace kprof {
namespace {

constexpr int k_indent_unit = 4;

std::string_view basename_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool same_file(std::string_view a, std::string_view b) {
  return a == b || basename_of(a) == basename_of(b);
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

/// The dotted name that ends right before `text[paren]` ("tl.max" in "x - tl.max("); empty
/// when `text[paren]` is not a '(' after a name.
std::string_view name_before(std::string_view text, std::size_t paren) {
  if (paren >= text.size() || text[paren] != '(') {
    return {};
  }
  std::size_t begin = paren;
  while (begin > 0 && is_name_char(text[begin - 1])) {
    --begin;
  }
  std::string_view name = text.substr(begin, paren - begin);
  while (name.starts_with('.')) { // `(a + b).to(`: the method's name
    name.remove_prefix(1);
  }
  return name;
}

/// The call at 0-based `index` of the indented line, for a text indented by `indent`: the '('
/// is at the index or just before it.
std::string_view call_at(std::string_view text, int index, int indent) {
  for (const int at : {index - indent, index - indent - 1}) {
    if (at >= 0) {
      if (auto name = name_before(text, static_cast<std::size_t>(at)); !name.empty()) {
        return name;
      }
    }
  }
  return {};
}

/// The name of the function called at `column` (Triton's column: the offset of the call's '('
/// in the line, or of what follows it) of a source line given with or without its indentation.
std::string callee_at(std::string_view given, int column) {
  const std::string_view text = trim(given);
  const int index = column - 1;
  if (text.empty() || index < 0) {
    return {};
  }
  if (given.front() == ' ' || given.front() == '\t') { // indentation kept
    return std::string(call_at(given, index, 0));
  }
  for (int indent = 0; indent <= index; indent += k_indent_unit) {
    if (auto name = call_at(text, index, indent); !name.empty()) {
      return std::string(name);
    }
  }
  for (int indent = 0; indent <= index; ++indent) {
    if (auto name = call_at(text, index, indent); !name.empty()) {
      return std::string(name);
    }
  }
  return {};
}

/// `path` resolved through the `.file` table by basename; as given when no entry or several
/// entries have that basename.
std::string resolve(const std::map<int, std::string>& files, const std::string& name) {
  const std::string* found = nullptr;
  for (const auto& [number, path] : files) {
    if (basename_of(path) == name) {
      if (found != nullptr) {
        return name;
      }
      found = &path;
    }
  }
  return found != nullptr ? *found : name;
}

/// The full path of frame `i` of `chain`: the `.loc`'s own file for the innermost frame, else
/// the comment's basename resolved through the `.file` table.
std::string frame_path(const source::PtxLineInfo& info, const source::PtxInlineChain& chain,
                       std::size_t i) {
  const std::string& name = chain.frames[i].file;
  if (i == 0) {
    const auto own = info.files.find(chain.file_index);
    if (own != info.files.end() && same_file(own->second, name)) {
      return own->second;
    }
  }
  return resolve(info.files, name);
}

} // namespace

bool is_triton_library_file(std::string_view path) {
  return path.find("/triton/language/") != std::string_view::npos ||
         path.starts_with("triton/language/");
}

// --- InlineMap -------------------------------------------------------------------------------

void InlineMap::add_ptx(std::string_view ptx) {
  const source::PtxLineInfo info = source::read_ptx_line_info(ptx);
  for (const source::PtxInlineChain& chain : info.chains) {
    std::vector<Key> frames;
    for (std::size_t i = 0; i < chain.frames.size(); ++i) {
      frames.push_back(Key{frame_path(info, chain, i), chain.frames[i].line});
    }
    // The caller: the first frame after the innermost that is not Triton's own.
    std::size_t user = 1;
    while (user + 1 < frames.size() && is_triton_library_file(frames[user].file)) {
      ++user;
    }
    const Site site{frames[user].file, frames[user].line, chain.frames[user].column};
    for (std::size_t i = 0; i < user; ++i) {
      m_sites[frames[i]].insert(site);
    }
  }
}

void InlineMap::add_user_source(std::string_view file, int line, std::string_view text) {
  m_user_text[Key{std::string(file), line}] = std::string(text);
}

bool InlineMap::empty() const {
  return m_sites.empty();
}

std::vector<InlineCaller> InlineMap::callers(std::string_view file, int line) const {
  const std::set<Site>* sites = nullptr;
  if (auto exact = m_sites.find(Key{std::string(file), line}); exact != m_sites.end()) {
    sites = &exact->second;
  } else {
    for (const auto& [key, found] : m_sites) {
      if (key.line == line && same_file(key.file, file)) {
        sites = &found;
        break;
      }
    }
  }
  if (sites == nullptr) {
    return {};
  }
  std::set<InlineCaller> callers;
  for (const Site& site : *sites) {
    callers.insert(InlineCaller{site.file, site.line, callee_of(site)});
  }
  return {callers.begin(), callers.end()};
}

std::string InlineMap::callee_of(const Site& site) const {
  if (auto exact = m_user_text.find(Key{site.file, site.line}); exact != m_user_text.end()) {
    return callee_at(exact->second, site.column);
  }
  for (const auto& [key, text] : m_user_text) {
    if (key.line == site.line && same_file(key.file, site.file)) {
      return callee_at(text, site.column);
    }
  }
  return {};
}

// --- folding ---------------------------------------------------------------------------------

namespace {

double samples_of(const std::vector<SourceBlock>& blocks) {
  double samples = 0;
  for (const SourceBlock& block : blocks) {
    for (const SourceLine& line : block.lines) {
      samples += line.counters.samples;
    }
  }
  return samples;
}

/// The name every caller gives the callee, or empty when they differ or none knows it.
std::string common_callee(const std::vector<InlineCaller>& callers) {
  if (callers.empty()) {
    return {};
  }
  const bool agree = std::all_of(callers.begin(), callers.end(), [&](const InlineCaller& c) {
    return c.callee == callers.front().callee;
  });
  return agree ? callers.front().callee : std::string();
}

bool one_user_line(const std::vector<InlineCaller>& callers) {
  return !callers.empty() &&
         std::all_of(callers.begin(), callers.end(), [&](const InlineCaller& c) {
           return c.line == callers.front().line && c.file == callers.front().file;
         });
}

/// The hot line of `caller`, created when that user line has no row of its own.
HotLine& line_of_caller(std::vector<HotLine>& lines, const InlineCaller& caller) {
  for (const bool exact : {true, false}) {
    for (HotLine& line : lines) {
      if (line.line == caller.line &&
          (exact ? line.file == caller.file : same_file(line.file, caller.file))) {
        return line;
      }
    }
  }
  HotLine created;
  created.file = caller.file;
  created.line = caller.line;
  lines.push_back(std::move(created));
  return lines.back();
}

/// True when `file` is one of the launch's user files (PTX of another kernel names others).
bool in_launch(const std::vector<SourceBlock>& blocks, std::string_view file) {
  return std::any_of(blocks.begin(), blocks.end(), [&](const SourceBlock& block) {
    return !is_triton_library_file(block.file) && same_file(block.file, file);
  });
}

/// Folds the library lines of `block` into `lines`; returns the parts no single line of this
/// launch called.
std::vector<InlinedPart> fold_library_block(const SourceBlock& block,
                                            const std::vector<SourceBlock>& blocks,
                                            const InlineMap& map, std::vector<HotLine>& lines,
                                            std::vector<FoldedLine>& folded) {
  std::vector<InlinedPart> unattributed;
  for (const SourceLine& source : block.lines) {
    const std::vector<InlineCaller> callers = map.callers(block.file, source.line);
    InlinedPart part{common_callee(callers), block.file, source.line, source.text,
                     source.counters.samples};
    if (one_user_line(callers) && in_launch(blocks, callers.front().file)) {
      HotLine& target = line_of_caller(lines, callers.front());
      target.counters += source.counters;
      folded.push_back(FoldedLine{block.file, source.line, target.file, target.line});
      if (part.samples > 0) {
        target.inlined.push_back(std::move(part));
      }
    } else if (part.samples > 0) {
      unattributed.push_back(std::move(part));
    }
  }
  return unattributed;
}

/// True when the PTX names a caller in this launch's files for some library line (no PTX, or
/// only other kernels' PTX, folds nothing).
bool ptx_of_launch(const std::vector<SourceBlock>& blocks, const InlineMap& map) {
  for (const SourceBlock& block : blocks) {
    if (!is_triton_library_file(block.file)) {
      continue;
    }
    for (const SourceLine& source : block.lines) {
      for (const InlineCaller& caller : map.callers(block.file, source.line)) {
        if (in_launch(blocks, caller.file)) {
          return true;
        }
      }
    }
  }
  return false;
}

std::string percent(double part, double whole) {
  return format_fixed(whole > 0 ? 100.0 * part / whole : 0.0, 1);
}

void add_notes(KernelHotLines& hot, bool ptx_of_launch, const HotLineOptions& options) {
  double unattributed = 0;
  for (const InlinedPart& part : hot.unattributed) {
    unattributed += part.samples;
  }
  if (unattributed > 0 && !ptx_of_launch) {
    hot.notes.push_back(fmt::format("Triton library lines not folded: no PTX of this kernel "
                                    "({} samples, {}% of the kernel, stay on library lines)",
                                    format_number(unattributed),
                                    percent(unattributed, hot.samples)));
  } else if (unattributed > 0) {
    hot.notes.push_back(fmt::format("{} samples ({}% of the kernel) on Triton library lines "
                                    "that no single user line called",
                                    format_number(unattributed),
                                    percent(unattributed, hot.samples)));
  }
  if (hot.few_samples) {
    hot.notes.push_back(fmt::format("only {} samples: too few to trust the shares (fewer than {})",
                                    format_number(hot.samples),
                                    format_number(options.min_kernel_samples)));
  }
}

} // namespace

KernelHotLines fold_hot_lines(const std::vector<SourceBlock>& blocks, const InlineMap& inline_map,
                              const HotLineOptions& options) {
  KernelHotLines hot;
  if (blocks.empty()) {
    return hot;
  }
  InlineMap map = inline_map; // plus the user lines' text, to name the callees
  std::vector<HotLine> lines;
  for (const SourceBlock& block : blocks) {
    if (is_triton_library_file(block.file)) {
      continue;
    }
    for (const SourceLine& source : block.lines) {
      map.add_user_source(block.file, source.line, source.text);
      lines.push_back(HotLine{block.file, source.line, source.text, source.counters, 0, false, {}});
    }
  }
  for (const SourceBlock& block : blocks) {
    if (is_triton_library_file(block.file)) {
      auto parts = fold_library_block(block, blocks, map, lines, hot.folded);
      hot.unattributed.insert(hot.unattributed.end(), parts.begin(), parts.end());
    }
  }
  hot.samples = samples_of(blocks);
  hot.few_samples = hot.samples < options.min_kernel_samples;
  std::erase_if(lines, [](const HotLine& line) { return line.counters.samples <= 0; });
  std::stable_sort(lines.begin(), lines.end(), [](const HotLine& a, const HotLine& b) {
    return a.counters.samples > b.counters.samples;
  });
  for (HotLine& line : lines) {
    line.share = hot.samples > 0 ? line.counters.samples / hot.samples : 0.0;
    line.few_samples = line.counters.samples < options.min_line_samples;
  }
  hot.lines = std::move(lines);
  std::stable_sort(
      hot.unattributed.begin(), hot.unattributed.end(),
      [](const InlinedPart& a, const InlinedPart& b) { return a.samples > b.samples; });
  add_notes(hot, ptx_of_launch(blocks, map), options);
  return hot;
}

} // namespace kprof

// Reading Triton's PTX line information (ptx.hpp). Only the directives kprof needs are read, and
// a line that does not have the expected shape is skipped: the PTX comes from a cache that any
// Triton version may have written.
#include "source/ptx.hpp"

#include <cstddef>

#include "kprof/numbers.hpp"
#include "kprof/strings.hpp"

namespace kprof::source {
namespace {

/// Calls `visit` with every line of `text`, without its terminator.
template <class Visit>
void for_each_line(std::string_view text, Visit visit) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    visit(text.substr(0, end));
    if (end == std::string_view::npos) {
      break;
    }
    text.remove_prefix(end + 1);
  }
}

/// The next blank-separated word of `text`, removed from it.
std::string_view next_word(std::string_view& text) {
  text = trim(text);
  const std::size_t end = text.find_first_of(" \t");
  const std::string_view word = text.substr(0, end);
  text.remove_prefix(word.size());
  return word;
}

std::optional<int> parse_small_int(std::string_view text) {
  const auto value = parse_int(text);
  if (!value || *value < 0 || *value > 1'000'000'000) {
    return std::nullopt;
  }
  return static_cast<int>(*value);
}

/// `.file 2 "/path/standard.py"` (optionally followed by `, timestamp, size`).
bool read_file_entry(std::string_view rest, std::map<int, std::string>& files) {
  const auto number = parse_small_int(next_word(rest));
  rest = trim(rest);
  if (!number || !rest.starts_with('"')) {
    return false;
  }
  const std::size_t close = rest.find('"', 1);
  if (close == std::string_view::npos) {
    return false;
  }
  files[*number] = std::string(rest.substr(1, close - 1));
  return true;
}

/// "standard.py:170:27" -> {standard.py, 170, 27}.
std::optional<PtxFrame> read_frame(std::string_view text) {
  text = trim(text);
  const std::size_t column_colon = text.rfind(':');
  if (column_colon == std::string_view::npos || column_colon == 0) {
    return std::nullopt;
  }
  const std::size_t line_colon = text.rfind(':', column_colon - 1);
  if (line_colon == std::string_view::npos || line_colon == 0) {
    return std::nullopt;
  }
  const auto line = parse_small_int(text.substr(line_colon + 1, column_colon - line_colon - 1));
  const auto column = parse_small_int(text.substr(column_colon + 1));
  if (!line || !column) {
    return std::nullopt;
  }
  return PtxFrame{std::string(text.substr(0, line_colon)), *line, *column};
}

/// The frames of a `.loc` comment ("a.py:1:2 @[ b.py:3:4 ]"), innermost first; empty when the
/// comment is no inline chain.
std::vector<PtxFrame> read_chain(std::string_view comment) {
  std::vector<PtxFrame> frames;
  while (true) {
    const std::size_t open = comment.find("@[");
    auto frame = read_frame(comment.substr(0, open));
    if (!frame) {
      return {};
    }
    frames.push_back(std::move(*frame));
    if (open == std::string_view::npos) {
      break;
    }
    comment.remove_prefix(open + 2);
    // The outermost frame is followed by the closing brackets.
    if (comment.find("@[") == std::string_view::npos) {
      comment = comment.substr(0, comment.find(']'));
    }
  }
  return frames.size() >= 2 ? frames : std::vector<PtxFrame>{};
}

/// `.loc 2 170 27 // standard.py:170:27 @[ ... ]`.
void read_loc(std::string_view rest, std::vector<PtxInlineChain>& chains) {
  const std::size_t comment = rest.find("//");
  if (comment == std::string_view::npos || rest.find("@[", comment) == std::string_view::npos) {
    return;
  }
  std::string_view numbers = rest.substr(0, comment);
  const auto file_index = parse_small_int(next_word(numbers));
  auto frames = read_chain(rest.substr(comment + 2));
  if (file_index && !frames.empty()) {
    chains.push_back(PtxInlineChain{*file_index, std::move(frames)});
  }
}

} // namespace

PtxLineInfo read_ptx_line_info(std::string_view ptx) {
  PtxLineInfo info;
  for_each_line(ptx, [&](std::string_view line) {
    std::string_view rest = line;
    const std::string_view directive = next_word(rest);
    if (directive == ".file") {
      read_file_entry(rest, info.files);
    } else if (directive == ".loc") {
      read_loc(rest, info.chains);
    }
  });
  return info;
}

std::vector<std::string> ptx_file_paths(std::string_view ptx) {
  std::map<int, std::string> files;
  for_each_line(ptx, [&](std::string_view line) {
    std::string_view rest = line;
    if (next_word(rest) == ".file") {
      read_file_entry(rest, files);
    }
  });
  std::vector<std::string> paths;
  paths.reserve(files.size());
  for (auto& [number, path] : files) {
    paths.push_back(std::move(path));
  }
  return paths;
}

} // namespace kprof::source

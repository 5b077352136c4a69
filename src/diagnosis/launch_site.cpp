// Where a kernel is launched in the candidate's kernel file. A textual search, not a parser:
// an identifier followed by `[`...`](` or by `<<<` (template arguments between them allowed) is a
// launch; a line whose first characters are `#` or `//` is a comment. Good enough for the files
// KernelAgent and KernelBench write (one launch per kernel, in kernel_function); a kernel called
// through an alias or another module is not found, and the diagnosis says so.
#include "diagnosis/launch_site.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace kprof::diagnosis {
namespace {

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::size_t skip_spaces(std::string_view text, std::size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) {
    ++at;
  }
  return at;
}

/// The position after the bracket that closes the one at `open` (`[` or `<`), or npos.
std::size_t after_closing(std::string_view text, std::size_t open) {
  const char opening = text[open];
  const char closing = opening == '[' ? ']' : '>';
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == opening) {
      ++depth;
    } else if (text[i] == closing && --depth == 0) {
      return i + 1;
    } else if (opening == '<' && (text[i] == ';' || text[i] == '{' || text[i] == '\n')) {
      return std::string_view::npos; // a comparison, not template arguments
    }
  }
  return std::string_view::npos;
}

/// True when the name at [at, at + size) is followed by a launch.
bool launches(std::string_view text, std::size_t end) {
  std::size_t next = skip_spaces(text, end);
  if (next < text.size() && text[next] == '[') { // Triton: name[grid](...)
    const std::size_t closed = after_closing(text, next);
    return closed != std::string_view::npos && skip_spaces(text, closed) < text.size() &&
           text[skip_spaces(text, closed)] == '(';
  }
  if (text.substr(next).starts_with("<<<")) {
    return true;
  }
  if (next < text.size() && text[next] == '<') { // CUDA: name<T, 4><<<...>>>
    const std::size_t closed = after_closing(text, next);
    return closed != std::string_view::npos &&
           text.substr(skip_spaces(text, closed)).starts_with("<<<");
  }
  return false;
}

bool in_comment(std::string_view text, std::size_t at) {
  const std::size_t line_start =
      text.rfind('\n', at) == std::string_view::npos ? 0 : text.rfind('\n', at) + 1;
  const std::size_t first = skip_spaces(text, line_start);
  return text.substr(first).starts_with("#") || text.substr(first).starts_with("//");
}

} // namespace

std::string kernel_identifier(std::string_view ncu_name) {
  std::string_view name = ncu_name;
  if (name.starts_with("void ")) {
    name.remove_prefix(5);
  }
  // The parameter list: the first '(' outside template arguments.
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') {
      ++depth;
    } else if (name[i] == '>') {
      --depth;
    } else if (name[i] == '(' && depth == 0) {
      name = name.substr(0, i);
      break;
    }
  }
  while (!name.empty() && name.back() == ' ') {
    name.remove_suffix(1);
  }
  if (!name.empty() && name.back() == '>') { // template arguments of the kernel itself
    int level = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      level += name[i] == '>' ? 1 : (name[i] == '<' ? -1 : 0);
      if (level == 0) {
        name = name.substr(0, i);
        break;
      }
    }
  }
  const std::size_t scope = name.rfind("::");
  if (scope != std::string_view::npos) {
    name.remove_prefix(scope + 2);
  }
  return std::string(name);
}

std::optional<LaunchSite> find_launch(std::string_view text, std::string_view identifier) {
  if (identifier.empty()) {
    return std::nullopt;
  }
  std::optional<LaunchSite> first;
  std::size_t count = 0;
  for (std::size_t at = text.find(identifier); at != std::string_view::npos;
       at = text.find(identifier, at + 1)) {
    const std::size_t end = at + identifier.size();
    const bool whole =
        (at == 0 || !is_word(text[at - 1])) && (end >= text.size() || !is_word(text[end]));
    if (!whole || !launches(text, end) || in_comment(text, at)) {
      continue;
    }
    ++count;
    if (first) {
      continue;
    }
    const std::size_t line_start =
        text.rfind('\n', at) == std::string_view::npos ? 0 : text.rfind('\n', at) + 1;
    std::size_t line_end = text.find('\n', at);
    if (line_end == std::string_view::npos) {
      line_end = text.size();
    }
    LaunchSite site;
    site.line = 1;
    for (std::size_t i = 0; i < line_start; ++i) {
      site.line += text[i] == '\n' ? 1 : 0;
    }
    std::string_view line = text.substr(line_start, line_end - line_start);
    line.remove_prefix(std::min(line.size(), skip_spaces(line, 0)));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
      line.remove_suffix(1);
    }
    site.text = std::string(line);
    first = std::move(site);
  }
  if (first) {
    first->count = count;
  }
  return first;
}

} // namespace kprof::diagnosis

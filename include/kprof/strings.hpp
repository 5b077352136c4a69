// kprof: small string helpers shared by the modules (nothing about ncu here).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kprof {

/// `text` without leading and trailing blanks (space, tab, CR, LF). Locale-independent.
std::string_view trim(std::string_view text);

/// The lines of `text` without their '\n' or "\r\n"; a trailing newline adds no empty line.
std::vector<std::string_view> split_lines(std::string_view text);

/// ASCII case-insensitive equality ("NVIDIA H200" == "nvidia h200").
bool equals_ignoring_case(std::string_view a, std::string_view b);

/// Whether printable() keeps line breaks and tabs: yes for text of several lines (a log tail, a
/// traceback, a whole rendered table), no for one line (a message, a name in a table cell).
enum class Multiline { no, yes };

/// `text` made safe to show on a terminal, in a log or in a spreadsheet: every control character
/// becomes a visible escape `\xNN` (two lower-case hex digits), so that text from ncu, the
/// profiled program or a file name can neither move the cursor, clear the screen, set a title
/// nor ring the bell. Escaped: C0 controls (U+0000..U+001F; with Multiline::yes '\n' and '\t'
/// stay, and "\r\n" becomes "\n"), DEL (U+007F), the C1 controls U+0080..U+009F when UTF-8
/// encoded (U+009B, the one-byte CSI, as `\x9b`), and every byte that is not part of valid UTF-8
/// (overlong forms, surrogates, code points above U+10FFFF, stray or missing continuation
/// bytes) as itself (`\xff`). Everything else, printable UTF-8 included, is kept. A backslash is
/// kept as it is, so the escapes are for a person to read, not to be decoded back. Never fails.
std::string printable(std::string_view text, Multiline multiline);

/// True when printable(text, multiline) would return `text` unchanged.
bool is_printable(std::string_view text, Multiline multiline);

} // namespace kprof

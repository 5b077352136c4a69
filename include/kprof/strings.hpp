// kprof: small string helpers shared by the modules (nothing about ncu here).
#pragma once

#include <string_view>
#include <vector>

namespace kprof {

/// `text` without leading and trailing blanks (space, tab, CR, LF). Locale-independent.
std::string_view trim(std::string_view text);

/// The lines of `text` without their '\n' or "\r\n"; a trailing newline adds no empty line.
std::vector<std::string_view> split_lines(std::string_view text);

/// ASCII case-insensitive equality ("NVIDIA H200" == "nvidia h200").
bool equals_ignoring_case(std::string_view a, std::string_view b);

} // namespace kprof

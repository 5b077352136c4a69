// kprof internal: the words and numbers of the diagnosis's titles and evidence.
#pragma once

#include <string>
#include <string_view>

#include "diagnosis/code.hpp"

namespace kprof::diagnosis {

/// "12.5%", "89.1%": two decimals under 10, else one.
std::string pct(double value);
/// "13%".
std::string pct0(double value);
/// 112459776 -> "112,459,776".
std::string count(double value);
/// "1 block", "4 blocks".
std::string counted(double value, std::string_view thing);
std::string_view basename_of(std::string_view path);
/// "kernel.py:13".
std::string where(const UserLine& line);
/// The text up to its first ". ".
std::string first_sentence(std::string_view text);

} // namespace kprof::diagnosis

// kprof internal: where a kernel is launched in the candidate's kernel file: the call
// `kernel[grid](...)` of a Triton kernel, `kernel<<<grid, block>>>(...)` of a CUDA C++ one (a
// CUDA source held in a Python string, as load_inline takes it, is text of the file too).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kprof::diagnosis {

/// The name a kernel is called by in its source: ncu's name without a leading `void `, its
/// parameter list, template arguments and namespaces ("void ns::scale<4>(const float *, int)"
/// is "scale"; a Triton kernel's name is already bare).
std::string kernel_identifier(std::string_view ncu_name);

/// A line of the kernel file that launches the kernel.
struct LaunchSite {
  int line = 0;          ///< 1-based
  std::string text;      ///< the line, without its indentation
  std::size_t count = 0; ///< launches of the kernel in the file (this one is the first)
};

/// The first launch of `identifier` in `text`: `identifier[...](` (Triton; the brackets may
/// span lines) or `identifier<<<`, `identifier<T, 4><<<` (CUDA C++), not in a line that is a
/// comment. nullopt when the file launches it nowhere (it may launch it through another module).
std::optional<LaunchSite> find_launch(std::string_view text, std::string_view identifier);

} // namespace kprof::diagnosis

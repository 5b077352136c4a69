#include "kprof/error.hpp"

#include <fmt/format.h>

namespace kprof {

std::string_view to_string(ErrorCategory category) {
  switch (category) {
  case ErrorCategory::usage:
    return "usage";
  case ErrorCategory::input_not_found:
    return "input_not_found";
  case ErrorCategory::malformed_input:
    return "malformed_input";
  case ErrorCategory::no_kernels:
    return "no_kernels";
  case ErrorCategory::ncu_not_found:
    return "ncu_not_found";
  case ErrorCategory::permission_denied:
    return "permission_denied";
  case ErrorCategory::kernel_import:
    return "kernel_import";
  case ErrorCategory::problem_invalid:
    return "problem_invalid";
  case ErrorCategory::kernel_raised:
    return "kernel_raised";
  case ErrorCategory::unknown_metric:
    return "unknown_metric";
  case ErrorCategory::timeout:
    return "timeout";
  case ErrorCategory::ncu_failed:
    return "ncu_failed";
  case ErrorCategory::io:
    return "io";
  case ErrorCategory::database:
    return "database";
  case ErrorCategory::gpu_busy:
    return "gpu_busy";
  case ErrorCategory::internal:
    return "internal";
  }
  return "internal";
}

int exit_code(ErrorCategory category) {
  switch (category) {
  case ErrorCategory::usage:
    return 2;
  case ErrorCategory::input_not_found:
    return 3;
  case ErrorCategory::malformed_input:
    return 4;
  case ErrorCategory::no_kernels:
    return 5;
  case ErrorCategory::ncu_not_found:
    return 6;
  case ErrorCategory::permission_denied:
    return 7;
  case ErrorCategory::kernel_import:
    return 8;
  case ErrorCategory::problem_invalid:
    return 9;
  case ErrorCategory::kernel_raised:
    return 10;
  case ErrorCategory::unknown_metric:
    return 11;
  case ErrorCategory::timeout:
    return 12;
  case ErrorCategory::ncu_failed:
    return 13;
  case ErrorCategory::io:
    return 14;
  case ErrorCategory::database:
    return 15;
  case ErrorCategory::gpu_busy:
    return 16;
  case ErrorCategory::internal:
    return 70;
  }
  return 70;
}

Error Error::with_context(std::string_view context) const {
  Error copy = *this;
  copy.message = fmt::format("{}: {}", context, message);
  return copy;
}

Error make_error(ErrorCategory category, std::string message, std::string detail) {
  return Error{category, std::move(message), std::move(detail)};
}

void assertion_failed(const char* expression, const char* file, int line) {
  std::fprintf(stderr, "kprof: internal error: assertion `%s` failed at %s:%d\n", expression, file,
               line);
  std::abort();
}

} // namespace kprof

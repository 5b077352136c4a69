#include "kprof/error.hpp"

#include <array>
#include <new>

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
  case ErrorCategory::slurm:
    return "slurm";
  case ErrorCategory::program_crashed:
    return "program_crashed";
  case ErrorCategory::out_of_memory:
    return "out_of_memory";
  case ErrorCategory::wrong_output:
    return "wrong_output";
  case ErrorCategory::internal:
    return "internal";
  }
  return "internal";
}

std::optional<ErrorCategory> parse_error_category(std::string_view word) {
  for (int value = 0; value <= static_cast<int>(ErrorCategory::internal); ++value) {
    const auto category = static_cast<ErrorCategory>(value);
    if (to_string(category) == word) {
      return category;
    }
  }
  return std::nullopt;
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
  case ErrorCategory::slurm:
    return 17;
  case ErrorCategory::program_crashed:
    return 18;
  case ErrorCategory::out_of_memory:
    return 19;
  case ErrorCategory::wrong_output:
    return 20;
  case ErrorCategory::internal:
    return 70;
  }
  return 70;
}

namespace {
// The meanings, one per code. exit_code_table() checks that each category's row carries the code
// exit_code() gives it, so the two cannot drift apart.
constexpr std::array k_exit_codes{
    ExitCodeRow{0, "ok", "success (`history --converged`: converged)"},
    ExitCodeRow{k_exit_not_converged, "not_converged", "`history --converged`: not converged yet"},
    ExitCodeRow{2, "usage",
                "usage error (unknown option or word; the message lists the valid ones)"},
    ExitCodeRow{3, "input_not_found", "input not found or unreadable"},
    ExitCodeRow{4, "malformed_input",
                "malformed input (not ncu output, truncated, binary, bad report JSON)"},
    ExitCodeRow{5, "no_kernels",
                "no kernels (nothing profiled, or nothing left after `--kernel`/`--select`)"},
    ExitCodeRow{6, "ncu_not_found", "ncu not found"},
    ExitCodeRow{7, "permission_denied", "no permission to read GPU counters (`ERR_NVGPUCTRPERM`)"},
    ExitCodeRow{8, "kernel_import", "kernel file does not import (or lacks `kernel_function`)"},
    ExitCodeRow{9, "problem_invalid", "problem file invalid (does not import, lacks `get_inputs`)"},
    ExitCodeRow{10, "kernel_raised", "the kernel raised"},
    ExitCodeRow{11, "unknown_metric", "unknown metric name"},
    ExitCodeRow{12, "timeout", "timeout"},
    ExitCodeRow{13, "ncu_failed", "ncu failed otherwise"},
    ExitCodeRow{14, "io", "cannot write output"},
    ExitCodeRow{15, "database", "history database error"},
    ExitCodeRow{16, "gpu_busy", "GPU busy (per-GPU lock not obtained in time)"},
    ExitCodeRow{17, "slurm",
                "Slurm refused the job (`batch --slurm`), or a task ended without results"},
    ExitCodeRow{18, "program_crashed",
                "the profiled program crashed (a signal such as SIGSEGV) or exited (`os._exit`) "
                "before kprof's harness finished"},
    ExitCodeRow{19, "out_of_memory",
                "out of memory: an allocation failed (the input needs more memory than the host "
                "or the process's limit allows)"},
    ExitCodeRow{20, "wrong_output",
                "the candidate's outputs differ from the reference's (`Model`): it was profiled, "
                "its status is partial"},
    ExitCodeRow{70, "internal", "internal error (a bug in kprof)"},
    ExitCodeRow{k_exit_interrupted, "interrupted",
                "interrupted (Ctrl-C or SIGTERM): the profiled program's process group was "
                "stopped first"},
};

bool rows_match_categories() {
  for (int i = 0; i <= static_cast<int>(ErrorCategory::internal); ++i) {
    const auto category = static_cast<ErrorCategory>(i);
    bool found = false;
    for (const ExitCodeRow& row : k_exit_codes) {
      found = found || (row.name == to_string(category) && row.code == exit_code(category));
    }
    if (!found) {
      return false;
    }
  }
  return true;
}
} // namespace

std::span<const ExitCodeRow> exit_code_table() {
  static const bool checked = rows_match_categories();
  KPROF_ASSERT(checked);
  return k_exit_codes;
}

std::string exit_code_markdown() {
  std::string text = "| code | meaning |\n|---|---|\n";
  for (const ExitCodeRow& row : exit_code_table()) {
    text += fmt::format("| {} | {} |\n", row.code, row.meaning);
  }
  return text;
}

std::string exit_code_help() {
  std::string text = "Exit codes:\n";
  for (const ExitCodeRow& row : exit_code_table()) {
    std::string meaning(row.meaning);
    std::erase(meaning, '`');
    text += fmt::format("  {:>3}  {}\n", row.code, meaning);
  }
  return text;
}

Error Error::with_context(std::string_view context) const {
  Error copy = *this;
  copy.message = fmt::format("{}: {}", context, message);
  return copy;
}

Error make_error(ErrorCategory category, std::string message, std::string detail) {
  return Error{category, std::move(message), std::move(detail)};
}

Error error_from_exception(const std::exception& exception) {
  if (dynamic_cast<const std::bad_alloc*>(&exception) != nullptr) {
    return make_error(ErrorCategory::out_of_memory,
                      fmt::format("out of memory: an allocation failed ({}); the input needs more "
                                  "memory than this host or the process's limit (ulimit -v, a "
                                  "cgroup) allows",
                                  exception.what()));
  }
  return make_error(ErrorCategory::internal, exception.what());
}

void assertion_failed(const char* expression, const char* file, int line) {
  std::fprintf(stderr, "kprof: internal error: assertion `%s` failed at %s:%d\n", expression, file,
               line);
  std::abort();
}

} // namespace kprof

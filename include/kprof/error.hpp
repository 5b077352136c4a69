// kprof: typed errors and Result<T>.
//
// Failures we expect (ncu missing, no permission, a malformed CSV, ...) are values: a Result<T>
// holding an Error whose category decides retries and exit codes. Bugs in kprof itself are
// KPROF_ASSERT failures, which stay on in release builds.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace kprof {

/// What went wrong, in the user's terms. Every category has one documented exit code
/// (see exit_code() and README.md "Exit codes"). Decisions switch on this, never on message text.
enum class ErrorCategory {
  usage,             ///< bad command line or option value
  input_not_found,   ///< a named input file is missing or unreadable
  malformed_input,   ///< input is not ncu output (truncated, binary, another CSV, bad JSON)
  no_kernels,        ///< the input or the run holds no profiled kernel
  ncu_not_found,     ///< no ncu executable could be located
  permission_denied, ///< ncu may not read GPU counters (ERR_NVGPUCTRPERM)
  kernel_import,     ///< kernel.py could not be imported (or lacks kernel_function)
  problem_invalid,   ///< problem.py could not be imported or lacks get_inputs/Model
  kernel_raised,     ///< kernel_function raised during warm-up or the profiled call
  unknown_metric,    ///< a requested metric does not exist on the device
  timeout,           ///< the profiled program outlived its time limit
  ncu_failed,        ///< ncu failed in a way not covered above
  io,                ///< kprof could not write or create an output
  database,          ///< the history database is busy, corrupt or from a newer kprof
  gpu_busy,          ///< the per-GPU lock could not be taken within the wait limit
  slurm,             ///< Slurm refused the job, or a task ended without results
  program_crashed,   ///< the profiled program died (a signal, os._exit) before the harness finished
  out_of_memory,     ///< an allocation failed: the input needs more memory than kprof may use
  wrong_output,      ///< the candidate's outputs differ from the reference's (it was profiled)
  internal,          ///< a bug in kprof (last: loops over the categories end here)
};

/// The stable lower-case name of a category ("ncu_not_found"), used in JSON and Python.
std::string_view to_string(ErrorCategory category);
/// The category called `word` (to_string's words); nullopt for any other word.
std::optional<ErrorCategory> parse_error_category(std::string_view word);

/// The process exit code for a category. 0 is success; codes are stable across releases.
int exit_code(ErrorCategory category);

/// The exit code of a command stopped by Ctrl-C or SIGTERM (not an ErrorCategory: nothing failed).
inline constexpr int k_exit_interrupted = 130;
/// The exit code of `history --converged` when optimising should go on.
inline constexpr int k_exit_not_converged = 1;

/// One row of the documented exit-code table.
struct ExitCodeRow {
  int code = 0;
  std::string_view
      name; ///< the category name ("ncu_not_found"), or ok / not_converged / interrupted
  std::string_view meaning; ///< one line, Markdown (`code` spans allowed)
};

/// Every exit code kprof uses, by increasing code: 0, 1, one row per ErrorCategory (exit_code()),
/// and 130 (interrupted). The one source of README's "Exit codes" table, `kprof --help` and docs.
std::span<const ExitCodeRow> exit_code_table();

/// exit_code_table() as the Markdown table README.md shows ("| code | meaning |", one row per
/// code).
std::string exit_code_markdown();

/// exit_code_table() as plain text for `--help` ("Exit codes:" then "  N  meaning" lines).
std::string exit_code_help();

/// An expected failure: a category, a one-line message, and optional multi-line detail
/// (a Python traceback, ncu's log tail). Messages carry their context ("while reading X: ...").
struct Error {
  ErrorCategory category = ErrorCategory::internal;
  std::string message;
  std::string detail;

  /// Returns a copy whose message is prefixed with `context` ("context: message").
  [[nodiscard]] Error with_context(std::string_view context) const;
};

/// Creates an Error; a convenience for `return make_error(...)` in functions returning Result.
Error make_error(ErrorCategory category, std::string message, std::string detail = {});

/// The Error of an exception that reached a top-level handler (the CLI's, a `kprof mcp` call's,
/// the Python module's): out_of_memory for std::bad_alloc (an allocation failed: the input is
/// larger than this host or the process's memory limit allows), internal (a bug) for anything
/// else, with the exception's what().
Error error_from_exception(const std::exception& exception);

/// A value or an Error. Minimal on purpose (GCC 12 has no std::expected).
template <class T>
class [[nodiscard]] Result {
public:
  Result(T value)
      : m_state(std::in_place_index<0>, std::move(value)) {} // NOLINT: implicit by design
  Result(Error error) : m_state(std::in_place_index<1>, std::move(error)) {} // NOLINT

  [[nodiscard]] bool ok() const noexcept { return m_state.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { return std::get<0>(m_state); }
  const T& value() const& { return std::get<0>(m_state); }
  T&& value() && { return std::get<0>(std::move(m_state)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const& { return std::get<1>(m_state); }
  Error&& error() && { return std::get<1>(std::move(m_state)); }

private:
  std::variant<T, Error> m_state;
};

/// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
public:
  Result() = default;
  Result(Error error) : m_error(std::move(error)), m_failed(true) {} // NOLINT

  [[nodiscard]] bool ok() const noexcept { return !m_failed; }
  explicit operator bool() const noexcept { return ok(); }
  const Error& error() const& { return m_error; }
  Error&& error() && { return std::move(m_error); }

private:
  Error m_error;
  bool m_failed = false;
};

[[noreturn]] void assertion_failed(const char* expression, const char* file, int line);

} // namespace kprof

/// An invariant of kprof's own code. Stays on in release builds; aborts with a message.
#define KPROF_ASSERT(expr)                                                                         \
  do {                                                                                             \
    if (!(expr)) {                                                                                 \
      ::kprof::assertion_failed(#expr, __FILE__, __LINE__);                                        \
    }                                                                                              \
  } while (false)

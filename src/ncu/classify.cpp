// Deciding what one ncu run produced.
//
// ncu's exit code alone says little: it is the profiled program's code when that program fails
// (even after kernels were profiled and their rows printed), 0 when a filter matched nothing, and
// 1 for ncu's own errors. So the verdict combines the process result, ncu's `==` lines (from the
// log file and from its console, where option errors go even with --log-file) and whether kernel
// rows came out. Retries switch on `retryable`, never on the message.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "kprof/ncu.hpp"
#include "kprof/strings.hpp"

namespace kprof {
namespace {

constexpr std::size_t k_tail_lines = 40;
constexpr std::size_t k_max_line_chars = 1000;
constexpr std::string_view k_error_prefix = "==ERROR==";

bool contains_ignoring_case(std::string_view text, std::string_view needle) {
  const auto* const it =
      std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
      });
  return it != text.end();
}

/// A CSV row of ncu's output (header, units or data): starts with a quoted field.
bool is_csv_row(std::string_view line) {
  return !line.empty() && line.front() == '"';
}

/// Distinct kernel IDs among the data rows (`"0","1757",...`); details pages repeat an ID.
std::size_t count_kernels(const std::vector<std::string_view>& lines) {
  std::set<long long> ids;
  for (const auto line : lines) {
    if (line.size() < 3 || line.front() != '"') {
      continue;
    }
    const auto close = line.find('"', 1);
    if (close == std::string_view::npos || close == 1) {
      continue;
    }
    const std::string_view field = line.substr(1, close - 1);
    long long id = 0;
    const auto* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(field.data(), end, id);
    if (ec == std::errc{} && ptr == end) {
      ids.insert(id);
    }
  }
  return ids.size();
}

constexpr std::array<std::string_view, 8> k_permanent_markers = {
    "unrecognised option", "unrecognized option", "unknown option", "invalid option",
    "invalid value",       "does not exist",      "not supported",  "ambiguous"};
constexpr std::array<std::string_view, 6> k_transient_markers = {
    "failed to connect",  "timed out",        "resource temporarily unavailable",
    "connection refused", "connection reset", "try again"};

template <std::size_t N>
bool has_any(std::string_view error, const std::array<std::string_view, N>& markers) {
  return std::any_of(markers.begin(), markers.end(), [&](std::string_view marker) {
    return contains_ignoring_case(error, marker);
  });
}

/// An error another attempt cannot fix (a bad option, a missing program).
bool is_permanent_error(std::string_view error) {
  return has_any(error, k_permanent_markers);
}

/// An error a second attempt may not meet (a lost connection, a busy resource).
bool looks_transient(std::string_view error) {
  return has_any(error, k_transient_markers) && !is_permanent_error(error);
}

/// The last lines of everything ncu and the program printed, CSV rows left out (they are data,
/// and thousands of characters wide); error lines that scrolled out are put first.
std::string log_tail(const std::vector<std::string_view>& lines, const NcuLogFacts& facts) {
  std::vector<std::string_view> kept;
  std::size_t csv_rows = 0;
  for (const auto line : lines) {
    if (is_csv_row(line)) {
      ++csv_rows;
    } else {
      kept.push_back(line);
    }
  }
  while (!kept.empty() && trim(kept.back()).empty()) {
    kept.pop_back();
  }
  const std::size_t first = kept.size() > k_tail_lines ? kept.size() - k_tail_lines : 0;
  std::string out;
  for (const auto& error : facts.errors) {
    const bool in_tail = std::any_of(
        kept.begin() + static_cast<std::ptrdiff_t>(first), kept.end(),
        [&](std::string_view line) { return line.find(error) != std::string_view::npos; });
    if (!in_tail) {
      out += fmt::format("{} {}\n", k_error_prefix, error);
    }
  }
  if (csv_rows > 0) {
    out += fmt::format("({} CSV rows left out)\n", csv_rows);
  }
  for (std::size_t i = first; i < kept.size(); ++i) {
    const std::string_view line = kept[i];
    if (line.size() > k_max_line_chars) {
      out += line.substr(0, k_max_line_chars);
      out += "...\n";
    } else {
      out += line;
      out += '\n';
    }
  }
  return out;
}

NcuVerdict failure(ErrorCategory category, std::string message, std::string detail, bool partial,
                   bool retryable) {
  NcuVerdict verdict;
  verdict.error = make_error(category, std::move(message), std::move(detail));
  verdict.partial = partial;
  verdict.retryable = retryable;
  return verdict;
}

/// The signal N of a program exit code 128 + N (how a shell, and ncu, report a program a signal
/// killed); 0 for an ordinary exit code.
int signal_of_exit_code(int code) {
  constexpr int k_signal_base = 128;
  constexpr int k_last_signal = 64;
  return code > k_signal_base && code <= k_signal_base + k_last_signal ? code - k_signal_base : 0;
}

/// The program's verdict once ncu reported its exit code (the tail, the rows, the kernels).
NcuVerdict program_failed(int code, const std::vector<std::string_view>& lines,
                          const NcuLogFacts& facts, bool has_kernel_rows,
                          std::optional<std::size_t> launches) {
  const std::size_t kernels = !has_kernel_rows ? 0 : launches ? *launches : count_kernels(lines);
  const std::string when = !has_kernel_rows ? std::string("before any kernel was profiled")
                           : kernels == 0
                               ? std::string("after kernels were profiled")
                               : fmt::format("after {} kernel{}", kernels, kernels == 1 ? "" : "s");
  NcuVerdict verdict;
  if (const int signal = signal_of_exit_code(code); signal != 0) {
    verdict = failure(ErrorCategory::program_crashed,
                      fmt::format("the profiled program crashed: it was killed by {} (exit code "
                                  "{}) {}",
                                  signal_name(signal), code, when),
                      log_tail(lines, facts), has_kernel_rows, false);
    verdict.program_signal = signal;
  } else if (has_kernel_rows) {
    verdict = failure(ErrorCategory::kernel_raised,
                      fmt::format("the profiled program exited with code {} {}", code, when),
                      log_tail(lines, facts), true, false);
  } else {
    verdict = failure(ErrorCategory::ncu_failed,
                      fmt::format("the profiled program exited with code {} {}", code, when),
                      log_tail(lines, facts), false, false);
  }
  verdict.program_exit_code = code;
  return verdict;
}

} // namespace

std::string signal_name(int signal) {
  if (const char* name = sigabbrev_np(signal); name != nullptr) {
    return fmt::format("SIG{}", name);
  }
  return fmt::format("signal {}", signal);
}

NcuLogFacts scan_ncu_log(std::string_view log_text) {
  constexpr std::string_view k_app_code = "The application returned an error code (";
  NcuLogFacts facts;
  for (const auto raw_line : split_lines(log_text)) {
    const std::string_view line = trim(raw_line);
    if (line.substr(0, 2) != "==") {
      continue;
    }
    if (line.find("ERR_NVGPUCTRPERM") != std::string_view::npos) {
      facts.permission_denied = true;
      continue;
    }
    if (line.find("No kernels were profiled") != std::string_view::npos) {
      facts.no_kernels_profiled = true;
      continue;
    }
    if (line.substr(0, k_error_prefix.size()) != k_error_prefix) {
      continue;
    }
    if (const auto at = line.find(k_app_code); at != std::string_view::npos) {
      const std::string_view digits = line.substr(at + k_app_code.size());
      int code = 0;
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), code);
      if (ec == std::errc{} && ptr != digits.data() + digits.size() && *ptr == ')') {
        facts.application_exit_code = code;
        continue;
      }
    }
    facts.errors.emplace_back(trim(line.substr(k_error_prefix.size())));
  }
  return facts;
}

namespace {

/// classify_ncu_run(), with the launches counted elsewhere when `launches` is set (else from the
/// log's rows).
NcuVerdict classify(const ProcessResult& process, std::string_view log_text, bool has_kernel_rows,
                    std::optional<std::size_t> launches) {
  std::string everything(log_text);
  for (const std::string* stream : {&process.out, &process.err}) {
    if (!stream->empty()) {
      if (!everything.empty() && everything.back() != '\n') {
        everything += '\n';
      }
      everything += *stream;
    }
  }
  const auto lines = split_lines(everything);
  const NcuLogFacts facts = scan_ncu_log(everything);

  if (facts.permission_denied) {
    return failure(
        ErrorCategory::permission_denied,
        "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM); to fix: rerun with "
        "--sudo (or KPROF_NCU_USE_SUDO=1), or load the NVIDIA driver with "
        "NVreg_RestrictProfilingToAdminUsers=0, or give the container CAP_SYS_ADMIN "
        "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)",
        log_tail(lines, facts), false, false);
  }
  if (process.timed_out) {
    return failure(ErrorCategory::timeout,
                   fmt::format("ncu {}; the profiled program may hang or need a longer limit",
                               process.describe()),
                   log_tail(lines, facts), has_kernel_rows, true);
  }
  if (process.signaled) {
    return failure(ErrorCategory::ncu_failed,
                   fmt::format("ncu did not finish: {}", process.describe()),
                   log_tail(lines, facts), has_kernel_rows, true);
  }
  if (process.exit_code == 0) {
    NcuVerdict verdict;
    if (!has_kernel_rows) {
      verdict = failure(ErrorCategory::no_kernels,
                        facts.no_kernels_profiled
                            ? "ncu profiled no kernel: no launch matched the filters (NVTX range, "
                              "kernel name), or the program launched none"
                            : "ncu finished but its output holds no kernel row",
                        log_tail(lines, facts), false, false);
    }
    verdict.program_exit_code = 0;
    return verdict;
  }
  if (facts.application_exit_code) {
    return program_failed(*facts.application_exit_code, lines, facts, has_kernel_rows, launches);
  }
  const auto is_permanent = [](const std::string& e) { return is_permanent_error(e); };
  const auto is_transient = [](const std::string& e) { return looks_transient(e); };
  const bool retryable = std::any_of(facts.errors.begin(), facts.errors.end(), is_transient) &&
                         std::none_of(facts.errors.begin(), facts.errors.end(), is_permanent);
  std::string message =
      facts.errors.empty()
          ? fmt::format("ncu failed ({}) without an error message", process.describe())
          : fmt::format("ncu failed ({}): {}", process.describe(), facts.errors.front());
  return failure(ErrorCategory::ncu_failed, std::move(message), log_tail(lines, facts),
                 has_kernel_rows, retryable);
}

} // namespace

NcuVerdict classify_ncu_run(const ProcessResult& process, std::string_view log_text,
                            bool has_kernel_rows) {
  return classify(process, log_text, has_kernel_rows, std::nullopt);
}

NcuVerdict classify_ncu_run_rows_imported(const ProcessResult& process, std::string_view log_text,
                                          std::size_t launches) {
  return classify(process, log_text, launches > 0, launches);
}

} // namespace kprof

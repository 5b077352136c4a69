// Reading saved ncu output (CSV or .ncu-rep) and asking ncu which metrics exist.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/ncu.hpp"
#include "kprof/ncu_output.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

constexpr std::chrono::milliseconds k_import_timeout{120000};
constexpr std::chrono::milliseconds k_query_timeout{60000};
/// The whole import output is needed (a head dropped by the process runner breaks the CSV).
constexpr std::size_t k_max_import_bytes = std::size_t{1} << 31U;

/// The last non-empty line of `text`, for one-line messages.
std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  const auto eol = text.rfind('\n');
  return std::string(eol == std::string_view::npos ? text : text.substr(eol + 1));
}

std::string output_of(const ProcessResult& result) {
  std::string text = result.out;
  if (!result.err.empty()) {
    if (!text.empty() && text.back() != '\n') {
      text += '\n';
    }
    text += result.err;
  }
  return text;
}

/// Keeps cache file names portable: letters, digits, '.', '_' and '-'.
std::string file_name_part(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    out += plain ? c : '_';
  }
  return out;
}

/// Runs one `ncu --import ...` (`what` names it in messages) and returns its finished run:
/// ncu_not_found when ncu cannot be run, ncu_failed when it fails, malformed_input when it printed
/// more than kprof keeps.
Result<ProcessResult> run_import(const NcuInstall& ncu, std::vector<std::string> argv,
                                 std::chrono::milliseconds timeout, const std::string& what) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = timeout;
  spec.max_captured_bytes = k_max_import_bytes;
  auto result = run_process(spec);
  if (!result.ok()) {
    return make_error(
        ErrorCategory::ncu_not_found,
        fmt::format("cannot run {}: {}", ncu.executable.string(), result.error().message));
  }
  if (!result->succeeded()) {
    const std::string output = output_of(*result);
    return make_error(
        ErrorCategory::ncu_failed,
        fmt::format("{} failed ({}): {}", what, result->describe(), last_line(output)), output);
  }
  if (result->out_dropped > 0) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("{} printed more than {} bytes", what, k_max_import_bytes));
  }
  return result;
}

} // namespace

Result<std::string> export_rows(const NcuInstall& ncu, const fs::path& report,
                                std::string_view page, std::chrono::milliseconds timeout) {
  auto result = run_import(
      ncu,
      {ncu.executable.string(), "--import", report.string(), "--csv", "--page", std::string(page)},
      timeout, fmt::format("ncu --import {}", report.string()));
  if (!result) {
    return std::move(result).error();
  }
  return std::move(result->out);
}

Result<Capture> import_rows(const NcuInstall& ncu, const fs::path& report, std::string_view page,
                            const ReadOptions& options, std::chrono::milliseconds timeout) {
  auto text = export_rows(ncu, report, page, timeout);
  if (!text) {
    return std::move(text).error();
  }
  return parse_ncu_csv(*text, options, report.string());
}

Result<Capture> load_capture(const fs::path& path, const NcuInstall* ncu,
                             const ReadOptions& options) {
  if (path == k_stdin_path) {
    return read_ncu_csv_stdin(options);
  }
  if (!looks_like_ncu_report(path)) { // also what is no regular file: reading it says what it is
    return read_ncu_csv_file(path, options);
  }
  if (ncu == nullptr) {
    return make_error(ErrorCategory::ncu_not_found,
                      fmt::format("{} is an Nsight Compute report, which only ncu can read, and "
                                  "ncu was not found; install Nsight Compute, pass --ncu PATH or "
                                  "set KPROF_NCU, or give the CSV of `ncu --import {} --csv "
                                  "--page raw` instead",
                                  path.string(), path.string()));
  }
  auto capture = import_rows(*ncu, path, "raw", options, k_import_timeout);
  if (!capture.ok()) {
    return std::move(capture).error().with_context(
        fmt::format("while importing {}", path.string()));
  }
  return capture;
}

std::vector<std::string> source_page_argv(const NcuInstall& ncu, const fs::path& report) {
  return {ncu.executable.string(), "--import",  report.string(), "--page", "source",
          "--print-source",        "cuda,sass", "--csv"};
}

Result<std::string> export_source_page(const NcuInstall& ncu, const fs::path& report,
                                       std::chrono::milliseconds timeout) {
  auto result = run_import(ncu, source_page_argv(ncu, report), timeout,
                           fmt::format("ncu --import {} --page source", report.string()));
  if (!result) {
    return std::move(result).error();
  }
  return output_of(*result);
}

Result<std::string> query_metrics(const NcuInstall& ncu, std::string_view chip,
                                  const fs::path& cache_dir) {
  fs::path cache_file;
  if (!cache_dir.empty() && !ncu.version.empty()) {
    cache_file =
        cache_dir / fmt::format("query-metrics-{}-{}.txt", file_name_part(ncu.version),
                                chip.empty() ? std::string("device") : file_name_part(chip));
    if (auto cached = read_file(cache_file); cached.ok() && !cached->empty()) {
      return std::move(cached).value();
    }
  }

  ProcessSpec spec;
  spec.argv = {ncu.executable.string(), "--query-metrics"};
  if (!chip.empty()) {
    spec.argv.emplace_back("--chips");
    spec.argv.emplace_back(chip);
  }
  spec.timeout = k_query_timeout;
  spec.max_captured_bytes = std::size_t{256} << 20U;
  auto result = run_process(spec);
  if (!result.ok()) {
    return make_error(
        ErrorCategory::ncu_not_found,
        fmt::format("cannot run {}: {}", ncu.executable.string(), result.error().message));
  }
  if (!result->succeeded() || result->out.empty()) {
    const std::string output = output_of(*result);
    return make_error(ErrorCategory::ncu_failed,
                      fmt::format("ncu --query-metrics{}{} failed ({}): {}",
                                  chip.empty() ? "" : " --chips ", chip, result->describe(),
                                  last_line(output)),
                      output);
  }
  if (!cache_file.empty()) {
    // The cache only saves a minute next time; failing to write it must not fail the query.
    (void)write_file_atomic(cache_file, result->out);
  }
  return std::move(result->out);
}

} // namespace kprof

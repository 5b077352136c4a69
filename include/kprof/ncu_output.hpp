// kprof: reading ncu's CSV output (raw and details pages) into a Capture.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/capture.hpp"
#include "kprof/error.hpp"

namespace kprof {

/// How to read. The identity columns (ID, Kernel Name, NVTX, grid, block, device, CC, ...) are
/// always read into KernelRecord fields; `keep_column` decides which metric columns become cells.
struct ReadOptions {
  /// Return true to keep a metric column. Empty function: keep every column.
  /// Raw page: called once per metric column with its name. Details page: called with the label
  /// ("Duration") and, when that is refused, with "Section/Label"; the column is kept if either
  /// is accepted.
  std::function<bool(std::string_view name)> keep_column;
  /// Whether keep_column applies to the details page too. False keeps a details page whole: its
  /// columns are labels that a list of metric names does not name, and it holds only what the
  /// sections asked for.
  bool project_details_page = true;
};

/// ReadOptions that keep exactly the metric columns called one of `names` (raw metric names;
/// on the details page a label or "Section/Label"), applied to both pages.
ReadOptions keep_columns_named(std::vector<std::string> names);

/// Parses ncu `--csv` output held in memory (raw or details page, detected from the header).
/// Tolerates `==PROF==`/`==WARNING==`/`==ERROR==` lines and foreign program output before, between
/// and after the CSV, and a trailing `rc=N` line (that line and blank lines are not counted in
/// Capture::foreign_lines).
/// Values are stored in base units: the scaled units that `ncu --import --csv` prints (Kbyte,
/// Mbyte, Gbyte/s, Kbyte/block, us, ms, Mhz, ...) are converted to byte, byte/s, byte/block, ns and
/// hz, so a capture means the same whichever way it was produced.
/// Fails with:
///  - no_kernels: the header and units are there but no data row, or ncu said
///    "No kernels were profiled";
///  - malformed_input: no ncu header found, binary data, a truncated or ragged row, a value that
///    does not parse where a number is required (ID, grid, block).
/// Never throws for bad input.
Result<Capture> parse_ncu_csv(std::string_view text, const ReadOptions& options = {},
                              std::string_view source = "<memory>");

/// Reads a file produced by `ncu --csv`, streaming it in chunks so memory stays bounded by what is
/// kept, not by the file size. Only a regular file (symlinks followed) is read, and nothing ever
/// blocks: a FIFO, directory, device or socket is refused unopened. Fails with input_not_found
/// when the path is missing, unreadable or no regular file, the message saying what it is
/// ("PATH is a FIFO, not a file", "is a directory", "is a character device", "is a symlink
/// loop"), and as parse_ncu_csv otherwise; messages name the path and the line.
Result<Capture> read_ncu_csv_file(const std::filesystem::path& path,
                                  const ReadOptions& options = {});

/// The source name of standard input in captures and messages.
inline constexpr std::string_view k_stdin_source = "<stdin>";

/// Reads ncu output from standard input (`kprof report -`), streamed like a file; the source is
/// "<stdin>". An Nsight Compute report on standard input is refused (malformed_input: ncu can
/// only import a report from a file). Errors as read_ncu_csv_file.
Result<Capture> read_ncu_csv_stdin(const ReadOptions& options = {});

/// True when `path` is a regular file that is an Nsight Compute report (named `*.ncu-rep`, or
/// starting with the report magic bytes "NVR\0"), which must be converted with `ncu --import`
/// first (see kprof/ncu.hpp load_capture()). False for anything that is not a readable regular
/// file (reading it says why) and for other binary files (reading them fails as malformed
/// input). Never blocks.
bool looks_like_ncu_report(const std::filesystem::path& path);

} // namespace kprof

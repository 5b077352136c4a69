// kprof: a report of a capture profiled elsewhere (`kprof report FILE`, Python's build_report):
// the one reading of FILE, its metric set and its selection, shared by the CLI and the module.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu.hpp"

namespace kprof {

/// What `kprof report FILE --select S --kernel K... --metrics M [--ncu PATH]` reads.
struct ReportFileRequest {
  std::filesystem::path file; ///< ncu --csv output (a page or a session log), or an .ncu-rep
  std::string select = "all";
  std::vector<std::string> kernels;         ///< keep kernels whose name contains one of these
  std::string metrics = "default";          ///< the set whose metrics the report shows
  std::optional<std::filesystem::path> ncu; ///< to import an .ncu-rep (else KPROF_NCU, PATH, ...)
};

/// What a report of FILE is built (or streamed) from.
struct ReportFileParts {
  Capture capture;
  Analysis analysis;
  MetricSet metrics;
  Json run;                      ///< the run facts the report's metadata gets: {"select": S}
  std::optional<NcuInstall> ncu; ///< the ncu that imported an .ncu-rep (exports its source page)
};

/// Reads request.file (an .ncu-rep through ncu), keeps what the set needs, selects and analyses.
/// usage (a bad set or select word), input_not_found, malformed_input, ncu_not_found or
/// no_kernels errors, named with the file.
Result<ReportFileParts> read_report_file(const ReportFileRequest& request);

} // namespace kprof

#include "kprof/report_file.hpp"

#include <fmt/format.h>

#include "kprof/ncu_output.hpp"

namespace kprof {
namespace fs = std::filesystem;

Result<ReportFileParts> read_report_file(const ReportFileRequest& request) {
  auto set = resolve_metric_set(request.metrics, MetricSetUse::read);
  if (!set) {
    return std::move(set).error();
  }
  auto select = parse_select(request.select);
  if (!select) {
    return std::move(select).error();
  }
  std::optional<NcuInstall> ncu;
  if (looks_like_ncu_report(request.file)) {
    auto located = locate_ncu(request.ncu);
    if (!located) {
      return located.error().with_context(fmt::format(
          "{} is an Nsight Compute report and needs ncu to be read", request.file.string()));
    }
    ncu = std::move(located).value();
  }
  auto capture = load_capture(request.file, ncu ? &*ncu : nullptr, read_options_for(*set));
  if (!capture) {
    return std::move(capture).error();
  }
  SelectOptions options;
  options.select = *select;
  options.kernel_filters = request.kernels;
  auto analysis = analyse(*capture, options);
  if (!analysis) {
    return analysis.error().with_context(request.file.string());
  }
  Json run = Json::object();
  run["select"] = std::string(to_string(*select));
  return ReportFileParts{std::move(capture).value(), std::move(analysis).value(),
                         std::move(set).value(), std::move(run), std::move(ncu)};
}

} // namespace kprof

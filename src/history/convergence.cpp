// converged(): when an optimisation loop should stop (docs/history.md "Convergence").
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kprof/history.hpp"
#include "kprof/numbers.hpp"
#include "kprof/report_view.hpp"
#include "kprof/status.hpp"

namespace kprof {

namespace {

bool usable(const HistoryRow& row, RankedTime basis) {
  return row.status == CandidateStatus::ok && ranked_ns(row, basis).has_value();
}

/// Lower time wins; ties go to the earlier round, then the lower candidate.
bool better(const HistoryRow& a, const HistoryRow& b, RankedTime basis) {
  const double time_a = *ranked_ns(a, basis);
  const double time_b = *ranked_ns(b, basis);
  if (time_a != time_b) {
    return time_a < time_b;
  }
  if (a.round != b.round) {
    return a.round < b.round;
  }
  return a.candidate.value_or(-1) < b.candidate.value_or(-1);
}

std::string percent(double fraction) {
  return format_fixed(fraction * 100.0, 1) + "%";
}

} // namespace

std::string_view to_string(RankedTime basis) {
  switch (basis) {
  case RankedTime::measured:
    return "measured";
  case RankedTime::measured_eager:
    return "measured_eager";
  case RankedTime::ncu:
    return "ncu";
  }
  return "ncu";
}

RankedTime ranked_time(const std::vector<HistoryRow>& rows) {
  bool measured = false;
  std::set<std::string_view> modes; // of the rows that name one (schema 7 on)
  for (const HistoryRow& row : rows) {
    if (row.status == CandidateStatus::ok && row.measured_median_us.has_value()) {
      measured = true;
      if (!row.measured_mode.empty()) {
        modes.insert(row.measured_mode);
      }
    }
  }
  if (!measured) {
    return RankedTime::ncu;
  }
  return modes.size() > 1 ? RankedTime::measured_eager : RankedTime::measured;
}

std::optional<double> ranked_ns(const HistoryRow& row, RankedTime basis) {
  switch (basis) {
  case RankedTime::ncu:
    return row.total_duration_ns;
  case RankedTime::measured_eager:
    return row.measured_eager_us ? std::optional<double>(*row.measured_eager_us * 1000.0)
                                 : std::nullopt;
  case RankedTime::measured:
    break;
  }
  if (!row.measured_median_us) {
    return std::nullopt;
  }
  return *row.measured_median_us * 1000.0;
}

std::string_view to_string(ConvergenceReason reason) {
  switch (reason) {
  case ConvergenceReason::at_roofline:
    return "at_roofline";
  case ConvergenceReason::no_improvement:
    return "no_improvement";
  case ConvergenceReason::improving:
    return "improving";
  case ConvergenceReason::no_successful_round:
    return "no_successful_round";
  }
  return "improving";
}

Result<Convergence> converged(const std::vector<HistoryRow>& rows,
                              const ConvergenceOptions& options) {
  if (options.window < k_min_convergence_window) {
    return make_error(
        ErrorCategory::usage,
        fmt::format("the convergence window must be at least 1 round, not {}", options.window));
  }
  if (!(options.sol_threshold_pct > 0 && options.sol_threshold_pct <= 100)) {
    return make_error(ErrorCategory::usage,
                      fmt::format("the SOL threshold must be in (0, 100] percent, not {}",
                                  format_number(options.sol_threshold_pct)));
  }
  if (!(options.min_improvement >= 0) || !std::isfinite(options.min_improvement)) {
    return make_error(ErrorCategory::usage,
                      fmt::format("the minimum improvement must be a fraction >= 0, not {}",
                                  format_number(options.min_improvement)));
  }

  // Best usable row of each round, rounds in order (failed rounds map to nullptr).
  const RankedTime basis = ranked_time(rows);
  std::map<int, const HistoryRow*> rounds;
  const HistoryRow* best = nullptr;
  for (const auto& row : rows) {
    auto& round_best = rounds[row.round];
    if (!usable(row, basis)) {
      continue;
    }
    if (round_best == nullptr || better(row, *round_best, basis)) {
      round_best = &row;
    }
    if (best == nullptr || better(row, *best, basis)) {
      best = &row;
    }
  }

  Convergence verdict;
  verdict.basis = basis;
  verdict.rounds = static_cast<int>(rounds.size());
  if (best == nullptr) {
    verdict.reason = ConvergenceReason::no_successful_round;
    verdict.details = rounds.empty()
                          ? "no round recorded yet"
                          : fmt::format("none of {} rounds succeeded yet", rounds.size());
    return verdict;
  }
  verdict.best = best->ref();
  verdict.best_duration_ns = ranked_ns(*best, basis);
  verdict.best_sol_pct = best->max_sol_pct;
  const std::string best_name =
      fmt::format("{} ({}{})", to_string(best->ref()), duration_text(verdict.best_duration_ns),
                  basis == RankedTime::measured         ? " measured"
                  : basis == RankedTime::measured_eager ? " measured eagerly"
                                                        : "");

  // Improvement over the last `window` rounds: the best before them against the best now.
  const auto window = static_cast<std::size_t>(options.window);
  std::optional<double> before;
  if (rounds.size() >= window + 1) {
    const std::size_t cut = rounds.size() - window;
    std::size_t index = 0;
    for (const auto& [round, row] : rounds) {
      if (index++ >= cut) {
        break;
      }
      if (row != nullptr && (!before || *ranked_ns(*row, basis) < *before)) {
        before = ranked_ns(*row, basis);
      }
    }
    if (before && *before > 0) {
      verdict.improvement = (*before - *verdict.best_duration_ns) / *before;
    }
  }

  if (best->max_sol_pct && *best->max_sol_pct >= options.sol_threshold_pct) {
    verdict.converged = true;
    verdict.reason = ConvergenceReason::at_roofline;
    verdict.details = fmt::format("the best, {}, runs at {} of peak (threshold {}): it is at the "
                                  "roofline",
                                  best_name, short_percent_text(best->max_sol_pct),
                                  short_percent_text(options.sol_threshold_pct));
    return verdict;
  }
  if (verdict.improvement && *verdict.improvement <= options.min_improvement) {
    verdict.converged = true;
    verdict.reason = ConvergenceReason::no_improvement;
    verdict.details = fmt::format(
        "the best, {}, improved by {} over the last {} rounds (at most {} counts as none)",
        best_name, percent(*verdict.improvement), options.window, percent(options.min_improvement));
    return verdict;
  }
  verdict.reason = ConvergenceReason::improving;
  if (verdict.improvement) {
    verdict.details = fmt::format("the best, {}, improved by {} over the last {} rounds", best_name,
                                  percent(*verdict.improvement), options.window);
  } else if (rounds.size() < window + 1) {
    verdict.details = fmt::format("the best is {}; {} rounds are needed to judge progress, {} "
                                  "recorded",
                                  best_name, window + 1, rounds.size());
  } else {
    verdict.details = fmt::format("the best is {}; no round before the last {} succeeded, so "
                                  "there is nothing to compare with yet",
                                  best_name, options.window);
  }
  return verdict;
}

Json convergence_document(const Convergence& convergence) {
  Json doc = Json::object();
  doc["schema_version"] = k_document_schema_version;
  doc["kind"] = std::string(to_string(DocumentKind::convergence));
  doc.update(to_json(convergence));
  return doc;
}

Json to_json(const Convergence& convergence) {
  Json out = Json::object();
  out["converged"] = convergence.converged;
  out["reason"] = to_string(convergence.reason);
  if (convergence.best) {
    out["best"] =
        Json{{"round", convergence.best->round},
             {"candidate",
              convergence.best->candidate ? Json(*convergence.best->candidate) : Json(nullptr)}};
  } else {
    out["best"] = nullptr;
  }
  const auto number = [](const std::optional<double>& value) {
    return value ? Json(*value) : Json(nullptr);
  };
  out["basis"] = std::string(to_string(convergence.basis));
  out["best_duration_ns"] = number(convergence.best_duration_ns);
  out["best_sol_pct"] = number(convergence.best_sol_pct);
  out["improvement"] = number(convergence.improvement);
  out["rounds"] = convergence.rounds;
  out["details"] = convergence.details;
  return out;
}

} // namespace kprof

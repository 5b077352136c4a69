#include "kprof/status.hpp"

#include <fmt/format.h>

namespace kprof {

std::string_view to_string(CandidateStatus status) {
  switch (status) {
  case CandidateStatus::ok:
    return "ok";
  case CandidateStatus::partial:
    return "partial";
  case CandidateStatus::failed:
    return "failed";
  }
  return "failed";
}

Result<CandidateStatus> parse_candidate_status(std::string_view word) {
  for (const auto status :
       {CandidateStatus::ok, CandidateStatus::partial, CandidateStatus::failed}) {
    if (to_string(status) == word) {
      return status;
    }
  }
  return make_error(
      ErrorCategory::usage,
      fmt::format("unknown candidate status '{}' (valid: ok, partial, failed)", word));
}

} // namespace kprof

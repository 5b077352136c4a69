// kprof: the outcome of one profiled candidate, as an enum (never a string inside kprof).
#pragma once

#include <string_view>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"

namespace kprof {

/// What became of one candidate of a round.
enum class CandidateStatus {
  ok,      ///< profiled; its report is complete
  partial, ///< rows were kept, but the run failed after profiling (the report says why)
  failed,  ///< no report; an error says why
};

/// "ok", "partial", "failed": the words used in JSON, SQLite and Python.
std::string_view to_string(CandidateStatus status);

/// Parses the words of to_string(); usage error listing them otherwise.
Result<CandidateStatus> parse_candidate_status(std::string_view word);

/// A status as JSON: its word ("ok", "partial", "failed"), found by nlohmann through ADL.
inline void to_json(Json& json, CandidateStatus status) {
  json = std::string(to_string(status));
}

} // namespace kprof

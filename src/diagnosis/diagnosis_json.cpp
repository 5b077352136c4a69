// The words of the diagnosis (its categories) and its JSON (docs/json-schema.md).
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>

#include "kprof/diagnosis.hpp"

namespace kprof {
namespace {

using Category = DiagnosisCategory;

constexpr std::array<std::pair<Category, std::string_view>, 20> k_words{{
    {Category::uncoalesced_access, "uncoalesced_access"},
    {Category::bank_conflicts, "bank_conflicts"},
    {Category::too_few_blocks, "too_few_blocks"},
    {Category::tail_effect, "tail_effect"},
    {Category::low_occupancy, "low_occupancy"},
    {Category::load_imbalance, "load_imbalance"},
    {Category::register_spills, "register_spills"},
    {Category::tensor_cores_unused, "tensor_cores_unused"},
    {Category::atomic_contention, "atomic_contention"},
    {Category::warp_divergence, "warp_divergence"},
    {Category::barrier_stalls, "barrier_stalls"},
    {Category::memory_latency, "memory_latency"},
    {Category::mio_pressure, "mio_pressure"},
    {Category::instruction_cache, "instruction_cache"},
    {Category::launch_bound, "launch_bound"},
    {Category::other, "other"},
    {Category::dram_bound, "dram_bound"},
    {Category::cache_bound, "cache_bound"},
    {Category::compute_bound, "compute_bound"},
    {Category::latency_bound, "latency_bound"},
}};

} // namespace

std::string_view to_string(DiagnosisCategory category) {
  for (const auto& [known, word] : k_words) {
    if (known == category) {
      return word;
    }
  }
  return "other";
}

std::optional<DiagnosisCategory> parse_diagnosis_category(std::string_view word) {
  for (const auto& [category, known] : k_words) {
    if (known == word) {
      return category;
    }
  }
  return std::nullopt;
}

const std::vector<DiagnosisCategory>& diagnosis_categories() {
  static const std::vector<DiagnosisCategory> k_all = [] {
    std::vector<DiagnosisCategory> all;
    all.reserve(k_words.size());
    for (const auto& [category, word] : k_words) {
      all.push_back(category);
    }
    return all;
  }();
  return k_all;
}

std::string_view to_string(EstimateConfidence confidence) {
  switch (confidence) {
  case EstimateConfidence::low:
    return "low";
  case EstimateConfidence::medium:
    return "medium";
  case EstimateConfidence::high:
    return "high";
  }
  return "low";
}

void to_json(Json& out, const DiagnosisEvidence& evidence) {
  out = Json::object();
  out["metric"] = evidence.metric;
  if (const double* number = std::get_if<double>(&evidence.value)) {
    out["value"] = number_json(*number);
  } else {
    out["value"] = std::get<std::string>(evidence.value);
  }
  out["meaning"] = evidence.meaning;
}

void to_json(Json& out, const DiagnosisCause& cause) {
  out = Json::object();
  out["category"] = std::string(to_string(cause.category));
  out["title"] = cause.title;
  out["fix"] = cause.fix;
  if (cause.line) {
    out["line"] = Json{{"file", cause.line->file}, {"line", cause.line->line}};
  } else {
    out["line"] = nullptr;
  }
  if (cause.launch) {
    out["launch"] = Json{{"file", cause.launch->file},
                         {"line", cause.launch->line},
                         {"source", cause.launch->source}};
  } else {
    out["launch"] = nullptr;
  }
  Json evidence = Json::array();
  for (const DiagnosisEvidence& entry : cause.evidence) {
    evidence.push_back(entry);
  }
  out["evidence"] = std::move(evidence);
  out["estimated_speedup_pct"] =
      cause.estimated_speedup_pct ? number_json(*cause.estimated_speedup_pct) : Json(nullptr);
  out["estimate_confidence"] = cause.estimated_speedup_pct && cause.estimate_confidence
                                   ? Json(std::string(to_string(*cause.estimate_confidence)))
                                   : Json(nullptr);
  out["source"] = cause.source;
}

} // namespace kprof

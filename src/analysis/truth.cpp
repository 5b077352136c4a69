// The truth beside the counters: what the harness measured (timing, check, the reference's time
// and counts) turned into the report's "truth" object, with the speed of light from the GPU's
// datasheet peaks (gpu_specs.cpp). The harness measures; the numbers meet here, once.
#include "kprof/truth.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

namespace kprof {
namespace {

/// A finite number member of `object`, else nullopt.
std::optional<double> number_of(const Json& object, const char* key) {
  if (!object.is_object()) {
    return std::nullopt;
  }
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number()) {
    return std::nullopt;
  }
  const double value = found->get<double>();
  return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

std::string text_of(const Json& object, const char* key) {
  if (!object.is_object()) {
    return {};
  }
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

/// The members of `object` named in `keys`, in that order (absent ones null).
Json pick(const Json& object, std::initializer_list<const char*> keys) {
  Json out = Json::object();
  for (const char* key : keys) {
    const auto found = object.find(key);
    out[key] = found != object.end() ? *found : Json(nullptr);
  }
  return out;
}

/// A harness timing object as the report shows it: its numbers, or {error}.
Json timing_json(const Json& timing) {
  if (!timing.is_object()) {
    return nullptr;
  }
  if (timing.contains("error")) {
    return {{"error", text_of(timing, "error")}};
  }
  return pick(timing,
              {"median_us", "p10_us", "p90_us", "min_us", "max_us", "mean_us", "count", "spread",
               "mode", "mode_reason", "eager_median_us", "launch_us", "warmup", "budget_seconds",
               "flush_bytes", "timed_in", "gpu_before", "gpu_after", "gpu_moved"});
}

/// The candidate's speed-up over the reference, like against like: the ratio of their medians
/// when both were timed in one mode, else of their eager medians (a graph summary keeps its
/// eager one: a call of thousands of launches may be timed eagerly while the reference went
/// into a CUDA graph, and the graph's median leaves out the host's launches); the mode compared
/// in `mode`, a note when the modes differed. Null when no like pair exists.
Json speedup_json(const Json& timing, const Json& ref_timing, std::string& mode, Json& notes) {
  const std::string own_mode = timing_mode(timing);
  const std::string ref_mode = timing_mode(ref_timing);
  std::optional<double> median = number_of(timing, "median_us");
  std::optional<double> ref_median = number_of(ref_timing, "median_us");
  mode = own_mode;
  if (own_mode != ref_mode) {
    median = eager_median_us(timing);
    ref_median = eager_median_us(ref_timing);
    mode = "eager";
    if (median && ref_median) {
      notes.push_back(fmt::format(
          "the candidate was timed in {} mode and the reference in {}: the speed-up compares "
          "their eager medians ({:.2f} us against the reference's {:.2f} us)",
          own_mode, ref_mode, *median, *ref_median));
    }
  }
  if (!median || !ref_median || *median <= 0) {
    return nullptr;
  }
  return *ref_median / *median;
}

Json check_json(const Json& check) {
  if (!check.is_object()) {
    return nullptr;
  }
  return pick(check, {"verdict", "reason", "max_abs_error", "max_rel_error", "mismatches", "nan",
                      "inf", "outputs"});
}

Json speed_of_light_json(const Json& counts, const std::optional<GpuSpec>& spec,
                         std::optional<double> median_us, Json& notes) {
  if (!counts.is_object()) {
    return nullptr;
  }
  Json out = pick(counts, {"flops", "tensor_core_flops", "other_flops", "per_op", "uncounted_ops",
                           "bytes", "inputs_bytes", "outputs_bytes", "parameters_bytes", "dtype",
                           "allow_tf32", "counts_from", "error"});
  const auto tensor = number_of(counts, "tensor_core_flops");
  const auto other = number_of(counts, "other_flops");
  const auto bytes = number_of(counts, "bytes");
  out["gpu"] = spec ? Json(spec->name) : Json(nullptr);
  for (const char* key :
       {"tensor_peak", "tensor_peak_flops_per_s", "fp32_flops_per_s", "dram_bandwidth_bytes_per_s",
        "compute_us", "memory_us", "ideal_us", "bound", "share"}) {
    out[key] = nullptr;
  }
  if (!spec) {
    notes.push_back("no speed of light: kprof has no datasheet peaks of this GPU");
    return out;
  }
  if (!bytes) {
    notes.push_back("no speed of light: the reference's bytes were not counted");
    return out;
  }
  const auto light = speed_of_light(tensor.value_or(0), other.value_or(0), *bytes,
                                    text_of(counts, "dtype"), *spec);
  if (!light) {
    notes.push_back(
        fmt::format("no speed of light: no tensor peak of {} is known", text_of(counts, "dtype")));
    return out;
  }
  out["tensor_peak"] =
      light->tensor_peak.empty() ? Json(nullptr) : Json(std::string(light->tensor_peak));
  out["tensor_peak_flops_per_s"] = light->tensor_peak_flops;
  out["fp32_flops_per_s"] = spec->fp32_flops;
  out["dram_bandwidth_bytes_per_s"] = spec->dram_bandwidth_bytes_per_s;
  out["compute_us"] = light->compute_seconds * 1e6;
  out["memory_us"] = light->memory_seconds * 1e6;
  out["ideal_us"] = light->ideal_seconds * 1e6;
  out["bound"] = std::string(light->bound);
  out["share"] =
      median_us && *median_us > 0 ? Json(light->ideal_seconds * 1e6 / *median_us) : Json(nullptr);
  if (!tensor && !other) {
    notes.push_back("the speed of light is the bytes' alone: the reference's FLOPs were not "
                    "counted");
  }
  if (const auto found = counts.find("uncounted_ops");
      found != counts.end() && found->is_object() && !found->empty()) {
    std::string names;
    for (const auto& item : found->items()) {
      names += (names.empty() ? "" : ", ") + item.key();
    }
    notes.push_back(fmt::format("FlopCounterMode could not count {}: their FLOPs are not in the "
                                "speed of light",
                                names));
  }
  return out;
}

Json ncu_vs_measured_json(std::optional<double> ncu_ns, std::optional<double> median_us,
                          const Json& timing, int launches) {
  if (!ncu_ns || !median_us || *ncu_ns <= 0 || *median_us <= 0) {
    return nullptr;
  }
  const double ncu_us = *ncu_ns / 1000.0;
  const double ratio = *median_us / ncu_us;
  const bool differs =
      ratio > 1 + k_ncu_measured_threshold || ratio < 1 / (1 + k_ncu_measured_threshold);
  std::string why;
  if (differs && ratio > 1) {
    why = launches > 1
              ? fmt::format("the timed call includes what ncu does not count: the gaps between its "
                            "{} launches and the host's work between them",
                            launches)
              : "the timed call includes what ncu does not count: the launch itself and the "
                "host's work in the call";
    const auto launch_us = number_of(timing, "launch_us");
    if (text_of(timing, "mode") == "eager" && launch_us && *launch_us >= ncu_us) {
      why += " (timed eagerly: a kernel shorter than its launch measures the launch)";
    }
  } else if (differs) {
    why = "ncu's replay ran the kernel slower than a plain call: each pass flushes the caches "
          "and may fix the clocks (--clock-control), and the rows are of one call while the "
          "median is of many";
  }
  return {{"ncu_duration_us", ncu_us},
          {"measured_median_us", *median_us},
          {"ratio", ratio},
          {"threshold", k_ncu_measured_threshold},
          {"differs", differs},
          {"why", differs ? Json(why) : Json(nullptr)}};
}

} // namespace

std::string timing_mode(const Json& timing) {
  const std::string word = text_of(timing, "mode");
  return word.empty() ? std::string("eager") : word;
}

std::optional<double> eager_median_us(const Json& timing) {
  return timing_mode(timing) == "eager" ? number_of(timing, "median_us")
                                        : number_of(timing, "eager_median_us");
}

std::optional<SpeedOfLight> speed_of_light(double tensor_flops, double other_flops, double bytes,
                                           std::string_view dtype, const GpuSpec& spec) {
  SpeedOfLight light;
  if (dtype == "bfloat16") {
    light.tensor_peak = "BF16 tensor";
    light.tensor_peak_flops = spec.bf16_tensor_flops;
  } else if (dtype == "float16") {
    light.tensor_peak = "FP16 tensor";
    light.tensor_peak_flops = spec.fp16_tensor_flops;
  } else if (dtype == "float32") {
    light.tensor_peak = "TF32 tensor";
    light.tensor_peak_flops = spec.tf32_tensor_flops;
  }
  if (tensor_flops > 0 && light.tensor_peak_flops <= 0) {
    return std::nullopt;
  }
  if (other_flops > 0 && spec.fp32_flops <= 0) {
    return std::nullopt;
  }
  light.compute_seconds = (tensor_flops > 0 ? tensor_flops / light.tensor_peak_flops : 0) +
                          (other_flops > 0 ? other_flops / spec.fp32_flops : 0);
  light.memory_seconds =
      spec.dram_bandwidth_bytes_per_s > 0 ? bytes / spec.dram_bandwidth_bytes_per_s : 0;
  light.ideal_seconds = std::max(light.compute_seconds, light.memory_seconds);
  light.bound = light.memory_seconds >= light.compute_seconds ? "memory" : "compute";
  return light;
}

Json truth_json(const TruthEvidence& evidence, const std::optional<GpuSpec>& spec,
                std::optional<double> ncu_duration_ns, int launches) {
  if (!evidence.check.is_object() && !evidence.timing.is_object() &&
      !evidence.reference.is_object()) {
    return nullptr;
  }
  Json notes = Json::array();
  const std::optional<double> median_us = number_of(evidence.timing, "median_us");
  Json truth = Json::object();
  truth["timing"] = timing_json(evidence.timing);
  truth["check"] = check_json(evidence.check);
  Json reference = nullptr;
  Json light = nullptr;
  if (evidence.reference.is_object()) {
    const auto timing = evidence.reference.find("timing");
    const Json ref_timing = timing != evidence.reference.end() ? *timing : Json(nullptr);
    std::string mode;
    Json speedup = speedup_json(evidence.timing, ref_timing, mode, notes);
    reference = {
        {"error", evidence.reference.contains("error") && evidence.reference["error"].is_string()
                      ? evidence.reference["error"]
                      : Json(nullptr)},
        {"timing", timing_json(ref_timing)},
        {"speedup_mode", speedup.is_null() ? Json(nullptr) : Json(mode)},
        {"speedup", std::move(speedup)}};
    // kprof model's candidate is the reference itself: timed once, as the candidate.
    if (const auto same = evidence.reference.find("same_as_candidate");
        same != evidence.reference.end() && same->is_boolean() && same->get<bool>()) {
      reference["same_as_candidate"] = true;
    }
    const auto counts = evidence.reference.find("speed_of_light");
    if (counts != evidence.reference.end()) {
      light = speed_of_light_json(*counts, spec, median_us, notes);
    }
  }
  truth["reference"] = std::move(reference);
  truth["speed_of_light"] = std::move(light);
  truth["ncu_vs_measured"] =
      ncu_vs_measured_json(ncu_duration_ns, median_us, evidence.timing, launches);
  if (evidence.timing.is_object()) {
    const auto moved = evidence.timing.find("gpu_moved");
    if (moved != evidence.timing.end() && moved->is_array() && !moved->empty()) {
      std::string words;
      for (const Json& move : *moved) {
        words += (words.empty() ? "" : "; ") + (move.is_string() ? move.get<std::string>() : "");
      }
      notes.push_back(fmt::format("the GPU's state moved during the timing: {}", words));
    }
  }
  truth["notes"] = std::move(notes);
  return truth;
}

} // namespace kprof

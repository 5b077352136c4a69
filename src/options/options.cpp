// The profile options table and its one parser (see include/kprof/options.hpp).
//
// Values arrive as JSON from both shells: the CLI sends the words it was given (integers as
// digits), Python its keyword arguments. Every check happens here once, so a bad value reads the
// same from `kprof profile --timeout 0` and `KernelProfiler(..., ncu_timeout_seconds=0)`.
#include "kprof/options.hpp"
#include "kprof/workload.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/numbers.hpp"
#include "kprof/strings.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 5> k_select_words{"first", "last", "max-cycles", "longest",
                                                         "all"};
constexpr std::array<std::string_view, 2> k_inputs_words{"gpu", "cpu"};
constexpr std::array<std::string_view, 5> k_cast_words{"none", "auto", "bf16", "fp16", "fp32"};
constexpr std::array<std::string_view, 2> k_clock_words{"base", "none"};
constexpr std::array<std::string_view, 2> k_launches_words{"auto", "all"};

constexpr std::uint64_t k_max_u64 = std::numeric_limits<std::uint64_t>::max();

/// The binary subtype that marks a big_whole_number() (any byte; JSON text never has binary).
constexpr std::uint8_t k_big_whole_number_subtype = 0x6b;

// Help order: what and where, how ncu runs, what the harness does, which kernels are kept.
constexpr std::array k_specs{
    OptionSpec{OptionId::round,
               "round",
               "--round",
               OptionKind::integer,
               "0",
               "Round number (directory roundNNN)",
               {},
               0,
               999999,
               k_scope_run},
    OptionSpec{OptionId::out_dir,
               "out_dir",
               "--out",
               OptionKind::text,
               "kprof-out",
               "Output directory",
               {},
               0,
               0,
               k_scope_run},
    OptionSpec{OptionId::logs_dir,
               "logs_dir",
               "--logs-dir",
               OptionKind::path,
               "",
               "Also copy the KernelAgent files (roundNNN_ncu_metrics.json) into this directory",
               {},
               0,
               0,
               k_scope_run},
    OptionSpec{OptionId::metrics,
               "metrics",
               "--metrics",
               OptionKind::text,
               "default",
               "Metric set (default|lean|deep) or comma-separated metric names",
               {},
               0,
               0,
               k_scope_run | k_scope_report},
    OptionSpec{OptionId::source,
               "source",
               "--source",
               OptionKind::flag,
               "",
               "Hot lines: per-line stall samples, Triton's library lines folded into the "
               "caller (the deep set implies it)",
               {},
               0,
               0,
               k_scope_run},
    OptionSpec{OptionId::ncu,
               "ncu",
               "--ncu",
               OptionKind::path,
               "",
               "ncu executable (else KPROF_NCU, PATH, CUDA dirs)",
               {},
               0,
               0,
               k_scope_run | k_scope_report},
    OptionSpec{OptionId::python,
               "python",
               "--python",
               OptionKind::path,
               "",
               "Python for the harness (else KPROF_PYTHON, python3)",
               {},
               0,
               0,
               k_scope_run},
    OptionSpec{OptionId::use_sudo,
               "use_sudo",
               "--sudo",
               OptionKind::flag,
               "",
               "Run ncu through sudo -E (also KPROF_NCU_USE_SUDO=1)",
               {},
               0,
               0,
               k_scope_run},
    OptionSpec{OptionId::timeout,
               "timeout",
               "--timeout",
               OptionKind::integer,
               "300",
               "Seconds allowed per candidate",
               {},
               1,
               604800,
               k_scope_run},
    OptionSpec{OptionId::retries,
               "retries",
               "--retries",
               OptionKind::integer,
               "2",
               "Extra attempts after a timeout or transient ncu failure",
               {},
               0,
               100,
               k_scope_run},
    OptionSpec{OptionId::attempts,
               "attempts",
               "",
               OptionKind::integer,
               "",
               "Attempts in all, the first included: retries + 1 (Python's max_retries, counted "
               "as KernelAgent counts it)",
               {},
               1,
               101,
               k_scope_run},
    OptionSpec{OptionId::warmup,
               "warmup",
               "--warmup",
               OptionKind::integer,
               "3",
               "Un-profiled calls before the profiled one (JIT, autotune)",
               {},
               0,
               10000,
               k_scope_all},
    OptionSpec{OptionId::check,
               "check",
               "--no-check",
               OptionKind::flag,
               "",
               "Do not compare each candidate's outputs with the reference's (Model)",
               {},
               0,
               0,
               k_scope_all,
               true},
    OptionSpec{OptionId::timing,
               "timing",
               "--no-timing",
               OptionKind::flag,
               "",
               "Do not time each candidate and the reference outside ncu's replay",
               {},
               0,
               0,
               k_scope_all,
               true},
    OptionSpec{OptionId::timing_budget_ms,
               "timing_budget_ms",
               "--timing-budget-ms",
               OptionKind::integer,
               "100",
               "Timed repetitions of a candidate until this many milliseconds of GPU time ...",
               {},
               1,
               60000,
               k_scope_all},
    OptionSpec{OptionId::timing_repetitions,
               "timing_repetitions",
               "--timing-repetitions",
               OptionKind::integer,
               "1000",
               "... or this many repetitions",
               {},
               1,
               1000000,
               k_scope_all},
    OptionSpec{OptionId::tolerance,
               "tolerance",
               "--tolerance",
               OptionKind::text,
               "",
               "ATOL[,RTOL] for every floating dtype's check (default: per dtype, "
               "docs/harness.md)",
               {},
               0,
               0,
               k_scope_all},
    OptionSpec{OptionId::inputs, "inputs", "--inputs", OptionKind::word, "gpu",
               "Create problem inputs on", k_inputs_words, 0, 0, k_scope_all},
    OptionSpec{OptionId::cast, "cast", "--cast", OptionKind::word, "none",
               "Cast floating inputs to (auto: the dtype kernel_function's source names)",
               k_cast_words, 0, 0, k_scope_all},
    OptionSpec{OptionId::seed,
               "seed",
               "--seed",
               OptionKind::integer,
               "0",
               "Random seed for the inputs",
               {},
               0,
               k_max_u64,
               k_scope_all},
    OptionSpec{OptionId::clock_control, "clock_control", "--clock-control", OptionKind::word,
               "none", "ncu clock control", k_clock_words, 0, 0, k_scope_run},
    OptionSpec{OptionId::launches, "launches", "--launches", OptionKind::word, "auto",
               "Launches replayed: auto (a call of more than 32 launches is timed whole outside "
               "ncu, and only representatives of each distinct kernel are replayed), all",
               k_launches_words, 0, 0, k_scope_run},
    OptionSpec{OptionId::max_replayed,
               "max_replayed",
               "--max-replayed",
               OptionKind::integer,
               "24",
               "Under --launches auto, the most launches of a many-launch call ncu replays",
               {},
               1,
               100000,
               k_scope_run},
    OptionSpec{OptionId::select, "select", "--select", OptionKind::word, "all",
               "Launches kept per kernel name", k_select_words, 0, 0, k_scope_run | k_scope_report},
    OptionSpec{OptionId::kernels,
               "kernels",
               "--kernel",
               OptionKind::names,
               "",
               "Keep kernels whose name contains this (repeatable)",
               {},
               0,
               0,
               k_scope_run | k_scope_report},
    OptionSpec{OptionId::gpu,
               "gpu",
               "--gpu",
               OptionKind::integer,
               "",
               "GPU index (sets CUDA_VISIBLE_DEVICES)",
               {},
               0,
               1023,
               k_scope_profile},
    OptionSpec{OptionId::gpus,
               "gpus",
               "--gpus",
               OptionKind::gpu_indices,
               "",
               "Comma-separated GPU indices to spread candidates over",
               {},
               0,
               1023,
               k_scope_batch},
    OptionSpec{OptionId::record_history,
               "record_history",
               "--no-history",
               OptionKind::flag,
               "",
               "Do not record the round in DIR/kprof.db",
               {},
               0,
               0,
               k_scope_run,
               true},
    OptionSpec{OptionId::check_metrics,
               "check_metrics",
               "--no-metric-check",
               OptionKind::flag,
               "",
               "Skip validating metric names with ncu --query-metrics",
               {},
               0,
               0,
               k_scope_run,
               true},
    OptionSpec{OptionId::prestart,
               "prestart",
               "--no-prestart",
               OptionKind::flag,
               "",
               "Do not start a batch's next harness beside the running one (it takes the rest over "
               "at once when a candidate poisons the CUDA context)",
               {},
               0,
               0,
               k_scope_batch,
               true},
    OptionSpec{OptionId::standby,
               "standby",
               "",
               OptionKind::flag,
               "",
               "Keep the next harness started under ncu and waiting, so the next profile of the "
               "same problem answers sooner (Python; docs/standby.md)",
               {},
               0,
               0,
               k_scope_run},
    OptionSpec{OptionId::standby_idle_seconds,
               "standby_idle_seconds",
               "",
               OptionKind::integer,
               "600",
               "Seconds an unused standby waits before it exits",
               {},
               10,
               86400,
               k_scope_run},
    OptionSpec{OptionId::kernelagent_logs_only,
               "kernelagent_logs_only",
               "",
               OptionKind::flag,
               "",
               "With logs_dir, write the KernelAgent files (roundNNN_ncu_metrics.json) only there, "
               "where KernelAgent writes them, not also into the output directory (Python)",
               {},
               0,
               0,
               k_scope_run},
    OptionSpec{OptionId::keep_ncu_report,
               "keep_ncu_report",
               "",
               OptionKind::flag,
               "",
               "Also write roundNNN/report.ncu-rep (Python only; the CLI always keeps it)",
               {},
               0,
               0,
               k_scope_run},
};

/// "ATOL[,RTOL]" (RTOL defaults to ATOL); "" is the per-dtype defaults (nullopt, nullopt).
Result<std::pair<std::optional<double>, std::optional<double>>>
parse_tolerance(std::string_view text, std::string_view name) {
  if (trim(text).empty()) {
    return std::pair<std::optional<double>, std::optional<double>>{};
  }
  const auto comma = text.find(',');
  const std::string_view first = trim(text.substr(0, comma));
  const std::string_view second =
      comma == std::string_view::npos ? first : trim(text.substr(comma + 1));
  const std::optional<double> atol = parse_ncu_number(first);
  const std::optional<double> rtol = parse_ncu_number(second);
  if (!atol || !rtol || !std::isfinite(*atol) || !std::isfinite(*rtol) || *atol < 0 || *rtol < 0 ||
      (comma != std::string_view::npos && second.find(',') != std::string_view::npos)) {
    return make_error(ErrorCategory::usage,
                      fmt::format("{} must be ATOL or ATOL,RTOL with numbers >= 0 (\"1e-3\", "
                                  "\"1e-4,1e-3\"), not \"{}\"",
                                  name, text));
  }
  return std::pair<std::optional<double>, std::optional<double>>{atol, rtol};
}

/// parse_tolerance's text of a setting.
std::string tolerance_text(std::optional<double> atol, std::optional<double> rtol) {
  if (!atol && !rtol) {
    return {};
  }
  return format_number(atol.value_or(0)) + "," + format_number(rtol.value_or(0));
}

std::string joined(std::span<const std::string_view> words) {
  std::string text;
  for (const std::string_view word : words) {
    text += text.empty() ? "" : ", ";
    text += word;
  }
  return text;
}

std::string_view json_type_name(const Json& value) {
  if (value.is_boolean()) {
    return "a boolean";
  }
  if (value.is_number_integer() || value.is_number_unsigned() || big_whole_number_digits(value)) {
    return "an integer";
  }
  if (value.is_number()) {
    return std::isfinite(value.get<double>()) ? "a number with a fraction" : "a number";
  }
  if (value.is_string()) {
    return "a string";
  }
  if (value.is_array()) {
    return "a list";
  }
  if (value.is_null()) {
    return "None";
  }
  return "a mapping";
}

bool is_whole(const Json& value) {
  return value.is_number_integer() || value.is_number_unsigned();
}

/// A value an integer option reads as a number: a whole JSON number, or one that is out of every
/// range (NaN, an infinity, a big_whole_number()), which integer_value() refuses by the range.
bool is_number_for_integer(const Json& value) {
  return is_whole(value) || big_whole_number_digits(value) ||
         (value.is_number_float() && !std::isfinite(value.get<double>()));
}

/// What a value of `kind` must be, for "X must be ..., not ...".
std::string_view expected_type(OptionKind kind) {
  switch (kind) {
  case OptionKind::flag:
    return "a boolean";
  case OptionKind::integer:
    return "an integer";
  case OptionKind::text:
  case OptionKind::word:
    return "a string";
  case OptionKind::path:
    return "a string or None";
  case OptionKind::names:
    return "a string or a list of strings";
  case OptionKind::gpu_indices:
    return "a list of integers";
  }
  return "a string";
}

/// Whether `value` has the JSON type of `kind` (a list's elements are checked by check_type).
bool has_type(OptionKind kind, const Json& value, bool from_cli) {
  switch (kind) {
  case OptionKind::flag:
    return value.is_boolean();
  case OptionKind::integer:
    return is_number_for_integer(value) || (from_cli && value.is_string());
  case OptionKind::text:
  case OptionKind::word:
    return value.is_string();
  case OptionKind::path:
    return value.is_string() || value.is_null();
  case OptionKind::names:
  case OptionKind::gpu_indices:
    return value.is_string() || value.is_array();
  }
  return false;
}

/// usage error when `value` has not the JSON type of `spec`, naming the option, or the element
/// of a list by its index ("gpus[1] must be an integer, not a string").
Result<void> check_type(const OptionSpec& spec, const Json& value, const OptionContext& context) {
  const auto wrong = [&](const std::string& what, std::string_view expected, const Json& got) {
    return make_error(ErrorCategory::usage,
                      fmt::format("{} must be {}, not {}", what, expected, json_type_name(got)));
  };
  if (!has_type(spec.kind, value, context.cli_names)) {
    return wrong(context.name_of(spec), expected_type(spec.kind), value);
  }
  if (value.is_array()) {
    const bool names = spec.kind == OptionKind::names;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const Json& item = value[i];
      if (names ? !item.is_string() : !is_number_for_integer(item)) {
        return wrong(fmt::format("{}[{}]", context.name_of(spec), i),
                     names ? "a string" : "an integer", item);
      }
    }
  }
  return {};
}

Error range_error(const std::string& name, const OptionSpec& spec, std::string_view got) {
  return make_error(ErrorCategory::usage, fmt::format("{} must be a whole number from {} to {}, "
                                                      "got '{}'",
                                                      name, spec.min, spec.max, got));
}

/// An integer option's value, checked against its range. Digits only: "-1", "1e3" and "0x10"
/// are refused, never wrapped.
Result<std::uint64_t> integer_value(const OptionSpec& spec, const Json& value,
                                    const OptionContext& context) {
  const std::string name = context.name_of(spec);
  if (auto digits = big_whole_number_digits(value)) {
    return range_error(name, spec, *digits);
  }
  if (value.is_number_float()) {
    return range_error(name, spec, option_value_text(value)); // NaN or an infinity
  }
  std::uint64_t number = 0;
  if (value.is_number_unsigned()) {
    number = value.get<std::uint64_t>();
  } else if (value.is_number_integer()) {
    const auto signed_number = value.get<std::int64_t>();
    if (signed_number < 0) {
      return range_error(name, spec, std::to_string(signed_number));
    }
    number = static_cast<std::uint64_t>(signed_number);
  } else {
    const std::string text = value.get<std::string>();
    const char* end = text.data() + text.size();
    const auto parsed = std::from_chars(text.data(), end, number);
    const bool digits_only = !text.empty() && text.front() != '-' && text.front() != '+';
    if (!digits_only || parsed.ptr != end || parsed.ec == std::errc::invalid_argument) {
      return range_error(name, spec, text);
    }
    if (parsed.ec == std::errc::result_out_of_range) {
      return range_error(name, spec, text);
    }
  }
  if (number < spec.min || number > spec.max) {
    return range_error(name, spec,
                       value.is_string() ? value.get<std::string>() : std::to_string(number));
  }
  return number;
}

Result<std::string> word_value(const OptionSpec& spec, const Json& value,
                               const OptionContext& context) {
  auto word = value.get<std::string>();
  for (const std::string_view valid : spec.words) {
    if (word == valid) {
      return word;
    }
  }
  return make_error(
      ErrorCategory::usage,
      fmt::format("unknown {} '{}' (valid: {})", context.name_of(spec), word, joined(spec.words)));
}

/// "0,1,3" or [0, 1, 3], each index checked like --gpu.
Result<std::vector<int>> gpu_indices(const OptionSpec& spec, const Json& value,
                                     const OptionContext& context) {
  std::vector<Json> items;
  if (value.is_array()) {
    items.assign(value.begin(), value.end());
  } else {
    const auto text = value.get<std::string>();
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto end = text.find(',', start);
      items.emplace_back(text.substr(start, end == std::string::npos ? end : end - start));
      if (end == std::string::npos) {
        break;
      }
      start = end + 1;
    }
  }
  std::vector<int> indices;
  for (const Json& item : items) {
    auto index = integer_value(spec, item, context);
    if (!index) {
      return std::move(index).error();
    }
    indices.push_back(static_cast<int>(*index));
  }
  return indices;
}

std::vector<std::string> names_value(const Json& value) {
  if (value.is_string()) {
    return {value.get<std::string>()}; // one name, never its characters
  }
  return value.get<std::vector<std::string>>();
}

/// Each spec's id is its place in the table, so OptionId and the table cannot drift apart.
constexpr bool ids_follow_the_table() {
  for (std::size_t i = 0; i < k_specs.size(); ++i) {
    if (static_cast<std::size_t>(k_specs[i].id) != i) {
      return false;
    }
  }
  return true;
}
static_assert(ids_follow_the_table(), "k_specs must list the options in OptionId's order");

} // namespace

std::span<const OptionSpec> option_specs() {
  return k_specs;
}

Json big_whole_number(std::string_view digits) {
  return Json::binary(std::vector<std::uint8_t>(digits.begin(), digits.end()),
                      k_big_whole_number_subtype);
}

std::optional<std::string> big_whole_number_digits(const Json& value) {
  if (!value.is_binary() || !value.get_binary().has_subtype() ||
      value.get_binary().subtype() != k_big_whole_number_subtype) {
    return std::nullopt;
  }
  const auto& bytes = value.get_binary();
  return std::string(bytes.begin(), bytes.end());
}

std::string option_value_text(const Json& value) {
  if (auto digits = big_whole_number_digits(value)) {
    return *digits;
  }
  if (value.is_number_float()) {
    return fmt::format("{}", value.get<double>());
  }
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool is_path_option(const OptionSpec& spec) {
  return spec.kind == OptionKind::path || spec.id == OptionId::out_dir;
}

Result<void> check_path_text(std::string_view text, std::string_view name) {
  const auto nul = text.find('\0');
  if (nul == std::string_view::npos) {
    return {};
  }
  return make_error(ErrorCategory::usage,
                    fmt::format("{} holds a NUL byte after '{}': no file name can hold one, and "
                                "the system would end the name there",
                                name, text.substr(0, nul)));
}

const OptionSpec* find_option_spec(std::string_view name) {
  for (const OptionSpec& spec : k_specs) {
    if (spec.name == name) {
      return &spec;
    }
  }
  return nullptr;
}

std::string OptionContext::name_of(const OptionSpec& spec) const {
  if (cli_names && !spec.cli.empty()) {
    return std::string(spec.cli);
  }
  if (auto found = spelled.find(spec.name); found != spelled.end()) {
    return found->second;
  }
  return std::string(spec.name);
}

Result<void> check_option_types(const Json& values, const OptionContext& context) {
  if (!values.is_object()) {
    return make_error(ErrorCategory::usage,
                      fmt::format("options must be a mapping, not {}", json_type_name(values)));
  }
  for (const auto& [key, value] : values.items()) {
    const OptionSpec* spec = find_option_spec(key);
    if (spec == nullptr) {
      std::string valid;
      for (const OptionSpec& each : k_specs) {
        valid += fmt::format("{}{}", valid.empty() ? "" : ", ", context.name_of(each));
      }
      return make_error(ErrorCategory::usage,
                        fmt::format("unknown option '{}' (valid: {})", key, valid));
    }
    if (auto typed = check_type(*spec, value, context); !typed) {
      return typed;
    }
  }
  return {};
}

Result<std::vector<std::string>> option_words(const Json& values) {
  if (auto typed = check_option_types(values, OptionContext{}); !typed) {
    return std::move(typed).error();
  }
  const auto text_of = [](const Json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
  };
  std::vector<std::string> words;
  for (const OptionSpec& spec : k_specs) {
    if ((spec.cli.empty() && spec.name != "attempts") || !values.contains(spec.name)) {
      continue;
    }
    const Json& value = values[std::string(spec.name)];
    if (spec.name == "attempts" && is_whole(value)) {
      words.emplace_back("--retries"); // the CLI counts the retries only
      words.push_back(std::to_string(value.get<std::int64_t>() - 1));
      continue;
    }
    const std::string word(spec.cli);
    switch (spec.kind) {
    case OptionKind::flag:
      if (value.get<bool>() != spec.cli_negates) {
        words.push_back(word);
      }
      break;
    case OptionKind::integer:
    case OptionKind::text:
    case OptionKind::word:
      words.push_back(word);
      words.push_back(text_of(value));
      break;
    case OptionKind::path:
      if (!value.is_null()) {
        words.push_back(word);
        words.push_back(value.get<std::string>());
      }
      break;
    case OptionKind::names:
      for (const std::string& name : names_value(value)) {
        words.push_back(word);
        words.push_back(name);
      }
      break;
    case OptionKind::gpu_indices: {
      std::string list;
      if (value.is_string()) {
        list = value.get<std::string>();
      } else {
        for (const Json& index : value) {
          list += (list.empty() ? "" : ",") + index.dump();
        }
      }
      words.push_back(word);
      words.push_back(list);
      break;
    }
    }
  }
  return words;
}

Result<RunRequest> parse_run_options(const Json& values, const OptionContext& context) {
  if (auto typed = check_option_types(values, context); !typed) {
    return std::move(typed).error();
  }
  RunRequest request;
  ProfileOptions& options = request.options;
  for (const auto& [key, value] : values.items()) {
    const OptionSpec& spec = *find_option_spec(key);
    const std::string name = context.name_of(spec);
    std::uint64_t number = 0;
    std::string word;
    if (spec.kind == OptionKind::integer) {
      auto parsed = integer_value(spec, value, context);
      if (!parsed) {
        return std::move(parsed).error();
      }
      number = *parsed;
    } else if (spec.kind == OptionKind::word) {
      auto parsed = word_value(spec, value, context);
      if (!parsed) {
        return std::move(parsed).error();
      }
      word = std::move(parsed).value();
    } else if (is_path_option(spec) && value.is_string()) {
      if (auto path = check_path_text(value.get<std::string>(), name); !path) {
        return std::move(path).error();
      }
    }
    switch (spec.id) {
    case OptionId::round:
      request.round = static_cast<int>(number);
      break;
    case OptionId::out_dir:
      if (value.get<std::string>().empty()) {
        return make_error(ErrorCategory::usage,
                          fmt::format("{} may not be empty: give the output directory (by "
                                      "default {})",
                                      name, spec.default_text));
      }
      options.out_dir = value.get<std::string>();
      break;
    case OptionId::metrics: {
      auto set = resolve_metric_set(value.get<std::string>());
      if (!set) {
        return std::move(set).error();
      }
      options.metrics = std::move(set).value();
      break;
    }
    case OptionId::ncu:
      if (value.is_string()) {
        options.ncu = value.get<std::string>();
      }
      break;
    case OptionId::logs_dir:
      if (value.is_string()) {
        options.logs_dir = value.get<std::string>();
      }
      break;
    case OptionId::python:
      if (value.is_string()) {
        options.python = value.get<std::string>();
      }
      break;
    case OptionId::source:
      options.source = value.get<bool>();
      break;
    case OptionId::use_sudo:
      options.use_sudo = value.get<bool>();
      break;
    case OptionId::timeout:
      options.timeout = std::chrono::seconds(static_cast<std::int64_t>(number));
      break;
    case OptionId::retries:
      options.retries = static_cast<int>(number);
      break;
    case OptionId::attempts:
      if (values.contains("retries")) {
        return make_error(ErrorCategory::usage,
                          fmt::format("give {} or {}, not both (the attempts are the retries + 1)",
                                      context.name_of(*find_option_spec("retries")), name));
      }
      options.retries = static_cast<int>(number) - 1;
      break;
    case OptionId::warmup:
      options.warmup = static_cast<int>(number);
      break;
    case OptionId::check:
      options.check = value.get<bool>();
      break;
    case OptionId::timing:
      options.timing = value.get<bool>();
      break;
    case OptionId::timing_budget_ms:
      options.timing_budget_ms = static_cast<int>(number);
      break;
    case OptionId::timing_repetitions:
      options.timing_repetitions = static_cast<int>(number);
      break;
    case OptionId::tolerance: {
      auto parsed = parse_tolerance(value.get<std::string>(), name);
      if (!parsed) {
        return std::move(parsed).error();
      }
      std::tie(options.atol, options.rtol) = *parsed;
      break;
    }
    case OptionId::inputs:
      options.inputs = parse_inputs_on(word).value();
      break;
    case OptionId::cast:
      options.cast = parse_cast_dtype(word).value();
      break;
    case OptionId::seed:
      options.seed = number;
      break;
    case OptionId::clock_control:
      options.clock_control = parse_clock_control(word).value();
      break;
    case OptionId::launches:
      options.launches = parse_launch_tiers(word).value();
      break;
    case OptionId::max_replayed:
      options.max_replayed = static_cast<std::size_t>(number);
      break;
    case OptionId::select:
      options.select.select = parse_select(word).value();
      break;
    case OptionId::kernels:
      options.select.kernel_filters = names_value(value);
      break;
    case OptionId::gpu:
    case OptionId::gpus: {
      std::vector<int> gpus;
      if (spec.id == OptionId::gpu) {
        gpus = {static_cast<int>(number)};
      } else {
        auto parsed = gpu_indices(spec, value, context);
        if (!parsed) {
          return std::move(parsed).error();
        }
        gpus = std::move(parsed).value();
      }
      if (auto visible = check_visible_gpus(gpus, context.visible_gpus, name); !visible) {
        return std::move(visible).error();
      }
      options.gpus = std::move(gpus);
      break;
    }
    case OptionId::record_history:
      options.record_history = value.get<bool>();
      break;
    case OptionId::check_metrics:
      options.check_metrics = value.get<bool>();
      break;
    case OptionId::standby:
      options.standby = value.get<bool>();
      break;
    case OptionId::prestart:
      options.prestart = value.get<bool>();
      break;
    case OptionId::standby_idle_seconds:
      options.standby_idle_seconds = static_cast<int>(number);
      break;
    case OptionId::keep_ncu_report:
      options.keep_ncu_report = value.get<bool>();
      break;
    case OptionId::kernelagent_logs_only:
      options.kernelagent_logs_only = value.get<bool>();
      break;
    }
  }
  return request;
}

Json option_values(const ProfileOptions& options) {
  const auto path_or_null = [](const std::optional<fs::path>& path) {
    return path ? Json(path->string()) : Json(nullptr);
  };
  Json values = Json::object();
  for (const OptionSpec& spec : option_specs()) {
    Json value;
    switch (spec.id) {
    case OptionId::round:    // a request's
    case OptionId::gpu:      // gpus, one GPU
    case OptionId::attempts: // retries + 1
      continue;
    case OptionId::out_dir:
      value = options.out_dir.string();
      break;
    case OptionId::logs_dir:
      value = path_or_null(options.logs_dir);
      break;
    case OptionId::metrics:
      value = options.metrics.words;
      break;
    case OptionId::source:
      value = options.source;
      break;
    case OptionId::ncu:
      value = path_or_null(options.ncu);
      break;
    case OptionId::python:
      value = path_or_null(options.python);
      break;
    case OptionId::use_sudo:
      value = options.use_sudo;
      break;
    case OptionId::timeout:
      value = options.timeout.count();
      break;
    case OptionId::retries:
      value = options.retries;
      break;
    case OptionId::warmup:
      value = options.warmup;
      break;
    case OptionId::check:
      value = options.check;
      break;
    case OptionId::timing:
      value = options.timing;
      break;
    case OptionId::timing_budget_ms:
      value = options.timing_budget_ms;
      break;
    case OptionId::timing_repetitions:
      value = options.timing_repetitions;
      break;
    case OptionId::tolerance:
      value = tolerance_text(options.atol, options.rtol);
      break;
    case OptionId::inputs:
      value = std::string(to_string(options.inputs));
      break;
    case OptionId::cast:
      value = std::string(to_string(options.cast));
      break;
    case OptionId::seed:
      value = options.seed;
      break;
    case OptionId::clock_control:
      value = std::string(to_string(options.clock_control));
      break;
    case OptionId::launches:
      value = std::string(to_string(options.launches));
      break;
    case OptionId::max_replayed:
      value = options.max_replayed;
      break;
    case OptionId::select:
      value = std::string(to_string(options.select.select));
      break;
    case OptionId::kernels:
      value = options.select.kernel_filters;
      break;
    case OptionId::gpus:
      value = options.gpus;
      break;
    case OptionId::record_history:
      value = options.record_history;
      break;
    case OptionId::check_metrics:
      value = options.check_metrics;
      break;
    case OptionId::prestart:
      value = options.prestart;
      break;
    case OptionId::standby:
      value = options.standby;
      break;
    case OptionId::standby_idle_seconds:
      value = options.standby_idle_seconds;
      break;
    case OptionId::kernelagent_logs_only:
      value = options.kernelagent_logs_only;
      break;
    case OptionId::keep_ncu_report:
      value = options.keep_ncu_report;
      break;
    }
    values[std::string(spec.name)] = std::move(value);
  }
  return values;
}

Result<void> check_run_options(const ProfileOptions& options) {
  if (auto parsed = parse_run_options(option_values(options), OptionContext{}); !parsed) {
    return std::move(parsed).error();
  }
  return {};
}

Json kernelagent_option_defaults() {
  Json defaults = Json::object();
  defaults["select"] = "longest";
  defaults["cast"] = "auto";
  defaults["kernelagent_logs_only"] = true;
  defaults["attempts"] = 2; // KernelAgent's max_retries=2: two attempts
  return defaults;
}

Json with_kernelagent_defaults(Json values) {
  const Json defaults = kernelagent_option_defaults();
  for (const auto& [key, value] : defaults.items()) {
    const bool given = values.contains(key) && !values[key].is_null();
    // The attempts are the retries + 1: a caller's retries stand for both.
    if (!given && !(key == "attempts" && values.contains("retries"))) {
      values[key] = value;
    }
  }
  return values;
}

std::optional<int> count_visible_gpus(const std::optional<std::string>& cuda_visible_devices,
                                      const fs::path& driver_gpus_dir) {
  if (cuda_visible_devices) {
    // CUDA stops at the first invalid entry; count the entries up to there ("0,1" is 2, "" 0).
    int count = 0;
    std::string_view rest = *cuda_visible_devices;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view entry = rest.substr(0, comma);
      if (entry.empty() || entry == "-1") {
        break;
      }
      ++count;
      if (comma == std::string_view::npos) {
        break;
      }
      rest.remove_prefix(comma + 1);
    }
    return count;
  }
  std::error_code ec;
  fs::directory_iterator entries(driver_gpus_dir, ec);
  if (ec) {
    return std::nullopt;
  }
  int count = 0;
  for (const auto& entry : entries) {
    (void)entry;
    ++count;
  }
  return count;
}

std::optional<int> visible_gpu_count() {
  return count_visible_gpus(env_var("CUDA_VISIBLE_DEVICES"), "/proc/driver/nvidia/gpus");
}

Result<void> check_visible_gpus(const std::vector<int>& gpus, std::optional<int> visible,
                                std::string_view name) {
  if (!visible) {
    return {};
  }
  const int count = *visible;
  for (const int gpu : gpus) {
    if (gpu >= count) {
      return make_error(ErrorCategory::usage,
                        count == 0
                            ? fmt::format("{} {}: no GPU is visible (CUDA_VISIBLE_DEVICES, "
                                          "/proc/driver/nvidia/gpus)",
                                          name, gpu)
                            : fmt::format("{} {}: only {} GPU{} visible (valid: 0 to {})", name,
                                          gpu, count, count == 1 ? " is" : "s are", count - 1));
    }
  }
  return {};
}

} // namespace kprof

// kprof: the C++ half of the harness: its plan (what kprof asks for) and its status (what the
// Python script reports). The script itself is templates/harness.py and the package beside it,
// templates/kprof_harness/, embedded at build time.
//
// Everything that varies reaches the script as JSON data written by nlohmann-json, so quotes,
// newlines and non-ASCII in paths are escaped by the library and never become code. The status
// reader checks every field's type (a wrong type is malformed_input, naming the field) and
// ignores fields it does not know.
#include "kprof/harness.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kprof/files.hpp"

namespace kprof {

/// Defined by the file kprof_embed_files generates from templates/ (src/harness/CMakeLists.txt).
std::span<const std::pair<std::string_view, std::string_view>> harness_template_files();

namespace {

namespace fs = std::filesystem;
using OrderedJson = nlohmann::ordered_json;

constexpr int k_plan_version = 1;
constexpr int k_status_version = 1;

constexpr std::array<std::pair<InputsOn, std::string_view>, 2> k_inputs_words{{
    {InputsOn::gpu, "gpu"},
    {InputsOn::cpu, "cpu"},
}};

constexpr std::array<std::pair<CastDtype, std::string_view>, 5> k_cast_words{{
    {CastDtype::none, "none"},
    {CastDtype::auto_detect, "auto"},
    {CastDtype::bf16, "bf16"},
    {CastDtype::fp16, "fp16"},
    {CastDtype::fp32, "fp32"},
}};

constexpr std::array<std::pair<HarnessPhase, std::string_view>, 7> k_phase_words{{
    {HarnessPhase::not_started, "not_started"},
    {HarnessPhase::import_kernel, "import_kernel"},
    {HarnessPhase::warmup, "warmup"},
    {HarnessPhase::profiled_call, "profiled_call"},
    {HarnessPhase::check, "check"},
    {HarnessPhase::timing, "timing"},
    {HarnessPhase::done, "done"},
}};

constexpr std::array<std::pair<CheckVerdict, std::string_view>, 3> k_check_words{{
    {CheckVerdict::pass, "pass"},
    {CheckVerdict::fail, "fail"},
    {CheckVerdict::unchecked, "unchecked"},
}};

constexpr std::array<std::string_view, 8> k_status_phases{
    "start", "import_problem", "inputs", "primer", "standby", "idle", "candidates", "done"};

template <class Enum, std::size_t N>
std::string_view word_of(const std::array<std::pair<Enum, std::string_view>, N>& words,
                         Enum value) {
  for (const auto& [candidate, word] : words) {
    if (candidate == value) {
      return word;
    }
  }
  KPROF_ASSERT(false && "enum value without a word");
  return {};
}

template <class Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<Enum, std::string_view>, N>& words,
                             std::string_view word) {
  for (const auto& [value, candidate] : words) {
    if (candidate == word) {
      return value;
    }
  }
  return std::nullopt;
}

template <class Enum, std::size_t N>
std::string valid_words(const std::array<std::pair<Enum, std::string_view>, N>& words) {
  std::string list;
  for (const auto& [value, word] : words) {
    list += list.empty() ? "" : ", ";
    list += word;
  }
  return list;
}

/// The plan's "compile_ahead" object, in the plan and in a standby's message alike.
OrderedJson compile_ahead_json(const HarnessPlan& plan) {
  KPROF_ASSERT(plan.compile_ahead_dir.has_value());
  return {{"dir", plan.compile_ahead_dir->string()},
          {"max_wait_seconds", plan.compile_ahead_max_wait_seconds}};
}

/// The plan's "truth" (templates/kprof_harness/truth.py reads it).
OrderedJson truth_plan_json(const TruthPlan& truth) {
  OrderedJson tolerances = OrderedJson::object();
  if (truth.atol || truth.rtol) {
    OrderedJson all = OrderedJson::object();
    if (truth.atol) {
      all["atol"] = *truth.atol;
    }
    if (truth.rtol) {
      all["rtol"] = *truth.rtol;
    }
    tolerances["all"] = std::move(all);
  }
  return {{"check", truth.check},
          {"timing", truth.timing},
          {"reference", truth.reference},
          {"timing_settings",
           {{"budget_seconds", truth.budget_seconds}, {"max_repetitions", truth.max_repetitions}}},
          {"tolerances", std::move(tolerances)},
          {"flop_cache", truth.flop_cache.empty() ? OrderedJson(nullptr)
                                                  : OrderedJson(truth.flop_cache.string())}};
}

OrderedJson plan_json(const HarnessPlan& plan) {
  OrderedJson candidates = OrderedJson::array();
  for (const auto& candidate : plan.candidates) {
    candidates.push_back({{"kernel", candidate.kernel.string()}, {"range", candidate.range}});
  }
  OrderedJson json;
  json["version"] = k_plan_version;
  json["problem"] = plan.problem.string();
  json["candidates"] = std::move(candidates);
  json["status_file"] = plan.status_file.string();
  json["warmup"] = plan.warmup;
  json["inputs"] = to_string(plan.inputs);
  json["cast"] = to_string(plan.cast);
  json["seed"] = plan.seed;
  json["first_candidate"] = plan.first_candidate;
  json["early_primer"] = plan.early_primer;
  if (plan.standby_fifo) {
    json["standby"] = {{"fifo", plan.standby_fifo->string()},
                       {"idle_seconds", plan.standby_idle_seconds},
                       {"defer_inputs", plan.standby_defer_inputs},
                       {"primer", plan.standby_primer},
                       {"gpu_lock", plan.standby_gpu_lock ? Json(plan.standby_gpu_lock->string())
                                                          : Json(nullptr)}};
  }
  if (plan.profiled_call_lock) {
    json["profiled_call_lock"] = {{"path", plan.profiled_call_lock->string()},
                                  {"max_wait_seconds", plan.profiled_call_lock_max_wait_seconds}};
  }
  if (plan.compile_ahead_dir) {
    json["compile_ahead"] = compile_ahead_json(plan);
  }
  if (plan.timeline_gate) {
    json["timeline_gate"] = {{"path", plan.timeline_gate->string()},
                             {"max_wait_seconds", plan.timeline_gate_max_wait_seconds}};
  }
  if (plan.truth) {
    json["truth"] = truth_plan_json(*plan.truth);
  }
  return json;
}

/// A status member that must be an object or absent: the object, else null.
Json object_or_null(const Json& json, const char* key) {
  const auto found = json.find(key);
  return found != json.end() && found->is_object() ? *found : Json(nullptr);
}

/// Reads typed fields of one JSON object of the status. The first problem found is kept in
/// error() (naming the field); later reads then return defaults, so callers check once.
class StatusObject {
public:
  StatusObject(const Json& object, std::string where)
      : m_object(object), m_where(std::move(where)) {
    if (!m_object.is_object()) {
      fail("", "an object");
    }
  }

  [[nodiscard]] const std::optional<Error>& error() const { return m_error; }
  [[nodiscard]] const std::string& where() const { return m_where; }

  /// The member `key`, or nullptr when it is absent or null (an error if `required`).
  const Json* member(const char* key, bool required) {
    if (m_error) {
      return nullptr;
    }
    const auto found = m_object.find(key);
    if (found == m_object.end() || found->is_null()) {
      if (required) {
        fail(key, "present");
      }
      return nullptr;
    }
    return &*found;
  }

  std::string text(const char* key, bool required = false) {
    const Json* value = member(key, required);
    if (value == nullptr) {
      return {};
    }
    if (!value->is_string()) {
      fail(key, "a string");
      return {};
    }
    return value->get<std::string>();
  }

  bool flag(const char* key, bool required = true) {
    const Json* value = member(key, required);
    if (value == nullptr) {
      return false;
    }
    if (!value->is_boolean()) {
      fail(key, "true or false");
      return false;
    }
    return value->get<bool>();
  }

  int integer(const char* key) {
    const Json* value = member(key, true);
    if (value == nullptr) {
      return 0;
    }
    if (!value->is_number_integer() || *value < 0 || *value > std::numeric_limits<int>::max()) {
      fail(key, "a non-negative integer");
      return 0;
    }
    return value->get<int>();
  }

  /// A count that may be absent or null (nullopt), else a non-negative integer.
  std::optional<int> count(const char* key) {
    const Json* value = member(key, false);
    if (value == nullptr || value->is_null()) {
      return std::nullopt;
    }
    if (!value->is_number_integer() || *value < 0 || *value > std::numeric_limits<int>::max()) {
      fail(key, "a non-negative integer or null");
      return std::nullopt;
    }
    return value->get<int>();
  }

  double seconds(const char* key) {
    const Json* value = member(key, false);
    if (value == nullptr) {
      return 0;
    }
    if (!value->is_number() || value->get<double>() < 0) {
      fail(key, "a non-negative number");
      return 0;
    }
    return value->get<double>();
  }

  void fail(std::string_view key, std::string_view expected) {
    if (!m_error) {
      const std::string field = key.empty() ? m_where : fmt::format("{}.{}", m_where, key);
      m_error = make_error(ErrorCategory::malformed_input,
                           fmt::format("harness status: {} must be {}", field, expected));
    }
  }

private:
  const Json& m_object;
  std::string m_where;
  std::optional<Error> m_error;
};

/// Sets `into` from a Python error object {"type", "message", "traceback"}, as an Error of
/// `category`. Returns the malformed_input error when the object is not one.
std::optional<Error> read_python_error(const Json& json, ErrorCategory category, std::string where,
                                       std::optional<Error>& into) {
  StatusObject object(json, std::move(where));
  const std::string type = object.text("type", true);
  const std::string message = object.text("message");
  std::string traceback = object.text("traceback");
  if (object.error()) {
    return object.error();
  }
  into = make_error(category, message.empty() ? type : fmt::format("{}: {}", type, message),
                    std::move(traceback));
  return std::nullopt;
}

Result<HarnessCandidateStatus> candidate_status(const Json& json, std::string where) {
  StatusObject object(json, std::move(where));
  HarnessCandidateStatus status;
  status.index = object.integer("index");
  status.range = object.text("range", true);
  status.kernel = object.text("kernel");
  const std::string phase = object.text("phase", true);
  status.ok = object.flag("ok");
  status.cuda_context_poisoned = object.flag("cuda_context_poisoned");
  status.import_seconds = object.seconds("import_seconds");
  status.warmup_seconds = object.seconds("warmup_seconds");
  status.call_seconds = object.seconds("call_seconds");
  status.call_lock = object.text("call_lock");
  status.call_lock_wait_seconds = object.seconds("call_lock_wait_seconds");
  status.call_style = object.text("call_style");
  status.layer = object.text("layer");
  const std::string cast = object.text("cast");
  status.cast_reason = object.text("cast_reason");
  status.compiled_ahead = object.text("compiled_ahead");
  status.compile_wait_seconds = object.seconds("compile_wait_seconds");
  status.compile_seconds = object.seconds("compile_seconds");
  const Json* error = object.member("error", false);
  if (object.error()) {
    return *object.error();
  }
  status.check = object_or_null(json, "check");
  status.timing = object_or_null(json, "timing");
  status.reference = object_or_null(json, "reference");
  if (status.check.is_object()) {
    StatusObject check(status.check, object.where() + ".check");
    const std::string verdict = check.text("verdict", true);
    status.check_reason = check.text("reason");
    if (check.error()) {
      return *check.error();
    }
    status.check_verdict = value_of(k_check_words, verdict);
    if (!status.check_verdict) {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("harness status: {}.check.verdict is '{}' (expected {})",
                                    object.where(), verdict, valid_words(k_check_words)));
    }
  }
  if (!cast.empty()) {
    auto applied = parse_cast_dtype(cast);
    if (!applied || *applied == CastDtype::auto_detect) {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("harness status: {}.cast is '{}' (expected none, bf16, fp16 "
                                    "or fp32)",
                                    object.where(), cast));
    }
    status.cast_applied = *applied;
  }
  if (auto parsed = parse_harness_phase(phase)) {
    status.phase = *parsed;
  } else {
    return parsed.error().with_context(fmt::format("harness status: {}.phase", object.where()));
  }
  if (error != nullptr) {
    StatusObject error_object(*error, object.where() + ".error");
    const std::string category = error_object.text("category", true);
    if (error_object.error()) {
      return *error_object.error();
    }
    ErrorCategory mapped = ErrorCategory::kernel_raised;
    if (category == "kernel_import") {
      mapped = ErrorCategory::kernel_import;
    } else if (category != "kernel_raised") {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("harness status: {}.error.category is '{}' (expected "
                                    "kernel_import or kernel_raised)",
                                    object.where(), category));
    }
    if (auto bad = read_python_error(*error, mapped, error_object.where(), status.error)) {
      return *bad;
    }
  }
  return status;
}

} // namespace

std::string_view to_string(InputsOn where) {
  return word_of(k_inputs_words, where);
}

Result<InputsOn> parse_inputs_on(std::string_view word) {
  if (auto value = value_of(k_inputs_words, word)) {
    return *value;
  }
  return make_error(ErrorCategory::usage, fmt::format("unknown inputs placement '{}' (valid: {})",
                                                      word, valid_words(k_inputs_words)));
}

std::span<const std::string_view> harness_status_phases() {
  return k_status_phases;
}

std::string_view to_string(CastDtype dtype) {
  return word_of(k_cast_words, dtype);
}

Result<CastDtype> parse_cast_dtype(std::string_view word) {
  if (auto value = value_of(k_cast_words, word)) {
    return *value;
  }
  return make_error(ErrorCategory::usage, fmt::format("unknown cast dtype '{}' (valid: {})", word,
                                                      valid_words(k_cast_words)));
}

std::string_view to_string(HarnessPhase phase) {
  return word_of(k_phase_words, phase);
}

Result<HarnessPhase> parse_harness_phase(std::string_view word) {
  if (auto value = value_of(k_phase_words, word)) {
    return *value;
  }
  return make_error(
      ErrorCategory::malformed_input,
      fmt::format("unknown harness phase '{}' (valid: {})", word, valid_words(k_phase_words)));
}

double compile_ahead_max_wait_seconds(std::chrono::seconds timeout) {
  constexpr double k_most = 30;
  return std::min(k_most, std::chrono::duration<double>(timeout).count() / 4);
}

std::string candidate_range(int index) {
  return fmt::format("kprof:cand{}", index);
}

std::string nvtx_include_for_ranges() {
  return "regex:kprof:(cand[0-9]+|primer)/";
}

std::span<const HarnessFile> harness_files() {
  static const std::vector<HarnessFile> files = [] {
    std::vector<HarnessFile> all;
    for (const auto& [path, text] : harness_template_files()) {
      all.push_back({path, text});
    }
    return all;
  }();
  return files;
}

Result<void> write_harness_script(const std::filesystem::path& script_path) {
  const std::string prefix = fmt::format("{}/", k_harness_package);
  std::vector<std::pair<std::string_view, std::string_view>> package;
  std::string_view entry;
  for (const HarnessFile& file : harness_files()) {
    if (file.path.starts_with(prefix)) {
      package.emplace_back(file.path.substr(prefix.size()), file.text);
    } else {
      entry = file.text;
    }
  }
  KPROF_ASSERT(!entry.empty() && !package.empty());
  const fs::path package_dir = script_path.parent_path() / k_harness_package;
  if (auto written = write_directory_atomic(package_dir, package); !written) {
    return written.error().with_context("while writing the harness script");
  }
  if (auto written = write_file_atomic(script_path, entry); !written) {
    return written.error().with_context("while writing the harness script");
  }
  return {};
}

std::string_view to_string(CheckVerdict verdict) {
  return word_of(k_check_words, verdict);
}

std::string plan_to_json(const HarnessPlan& plan) {
  return plan_json(plan).dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

Result<void> write_harness(const std::filesystem::path& script_path,
                           const std::filesystem::path& plan_path, const HarnessPlan& plan) {
  std::string plan_text;
  try {
    plan_text = plan_json(plan).dump(2) + "\n";
  } catch (const OrderedJson::type_error& e) {
    return make_error(ErrorCategory::usage,
                      fmt::format("a path in the harness plan is not valid UTF-8 ({})", e.what()));
  }
  if (auto written = write_harness_script(script_path); !written) {
    return written;
  }
  if (auto written = write_file_atomic(plan_path, plan_text); !written) {
    return written.error().with_context("while writing the harness plan");
  }
  return {};
}

Result<HarnessStatus> parse_harness_status(std::string_view json_text) {
  Json json;
  try {
    json = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("harness status is not JSON: {}", e.what()));
  }
  StatusObject object(json, "status");
  const Json* version = object.member("version", true);
  if (version != nullptr && *version != k_status_version) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("harness status has version {} (this kprof reads version {})",
                                  version->dump(), k_status_version));
  }
  HarnessStatus status;
  status.phase = object.text("phase", true);
  status.problem_ok = object.flag("problem_ok");
  status.inputs_on = object.text("inputs_on");
  status.inputs_fallback = object.text("inputs_fallback");
  status.setup_seconds = object.seconds("setup_seconds");
  status.inputs_seconds = object.seconds("inputs_seconds");
  status.primer = object.text("primer");
  status.primer_seconds = object.seconds("primer_seconds");
  status.triton_primer = object.text("triton_primer");
  status.triton_primer_seconds = object.seconds("triton_primer_seconds");
  status.compile_target_seconds = object.seconds("compile_target_seconds");
  status.triton_key_seconds = object.seconds("triton_key_seconds");
  status.python_version = object.text("python_version");
  status.torch_version = object.text("torch_version");
  status.triton_version = object.text("triton_version");
  status.gpu_name = object.text("gpu_name");
  status.cuda_devices = object.count("cuda_devices");
  status.machine_gpus = object.count("machine_gpus");
  status.sequence = object.count("sequence");
  status.rounds_served = object.count("rounds_served");
  status.serving = object.flag("serving", false);
  status.measure_seconds = object.seconds("measure_seconds");
  const Json* problem_error = object.member("problem_error", false);
  const Json* candidates = object.member("candidates", true);
  if (candidates != nullptr && !candidates->is_array()) {
    object.fail("candidates", "a list");
  }
  if (object.error()) {
    return *object.error();
  }
  if (std::find(k_status_phases.begin(), k_status_phases.end(), status.phase) ==
      k_status_phases.end()) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("harness status: unknown phase '{}'", status.phase));
  }
  if (problem_error != nullptr) {
    if (auto bad = read_python_error(*problem_error, ErrorCategory::problem_invalid,
                                     "status.problem_error", status.problem_error)) {
      return *bad;
    }
  }
  for (std::size_t i = 0; i < candidates->size(); ++i) {
    auto candidate = candidate_status((*candidates)[i], fmt::format("status.candidates[{}]", i));
    if (!candidate) {
      return candidate.error();
    }
    status.candidates.push_back(std::move(candidate).value());
  }
  return status;
}

Result<HarnessStatus> read_harness_status(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) {
    return text.error().with_context("while reading the harness status");
  }
  auto status = parse_harness_status(*text);
  if (!status) {
    return status.error().with_context(fmt::format("while reading {}", path.string()));
  }
  return status;
}

std::string standby_message(const HarnessPlan& plan) {
  OrderedJson candidates = OrderedJson::array();
  for (const auto& candidate : plan.candidates) {
    candidates.push_back({{"kernel", candidate.kernel.string()}, {"range", candidate.range}});
  }
  OrderedJson message;
  message["candidates"] = std::move(candidates);
  message["first_candidate"] = plan.first_candidate;
  if (plan.compile_ahead_dir) {
    message["compile_ahead"] = compile_ahead_json(plan);
  }
  return message.dump(-1, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

std::optional<fs::path> kprof_triton_cache_dir(bool create) {
  fs::path dir;
  if (auto xdg = env_var("XDG_CACHE_HOME")) {
    dir = fs::path(*xdg) / "kprof" / "triton";
  } else if (auto home = env_var("HOME")) {
    dir = fs::path(*home) / ".cache" / "kprof" / "triton";
  } else {
    std::error_code ec;
    dir = fs::temp_directory_path(ec) / fmt::format("kprof-triton-{}", ::geteuid());
  }
  if (!private_directory(dir, create)) {
    return std::nullopt;
  }
  return dir;
}

fs::path triton_cache_dir() {
  if (auto own = env_var("TRITON_CACHE_DIR")) {
    return fs::path(*own);
  }
  if (auto kprofs = kprof_triton_cache_dir(false)) {
    return *kprofs;
  }
  auto home = env_var("TRITON_HOME");
  if (!home) {
    home = env_var("HOME");
  }
  return fs::path(home.value_or("")) / ".triton" / "cache";
}

} // namespace kprof

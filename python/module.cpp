// _kprof: the pybind11 layer under the Python package `kprof` (python/kprof/__init__.py).
//
// Design notes.
// - Thin on purpose: each binding forwards to libkprof in a line or two. Options arrive as one
//   mapping, made JSON here (json_of) and parsed by the library's option table
//   (kprof/options.hpp), exactly as the CLI's words are: the per-call round_num and max_retries
//   too. KernelAgent's names live in the Python layer.
// - Documents cross the boundary as JSON text (json.loads / json.dumps on the Python side):
//   exact for every value nlohmann can hold. Options do not, because JSON text cannot hold what
//   the option table must refuse by name: NaN, infinities, ints beyond 64 bits.
// - Integers that are not options (render's round_digits, a diff's top_metrics, a convergence
//   window) arrive as Python ints and are converted by native_int, which refuses one that the
//   C++ type cannot hold under the parameter's name; the library checks the rest.
// - Expected failures (Result errors) become a C++ `Failure`, and one exception translator turns
//   it into the kprof.KprofError subclass of its category (kprof/_errors.py). Nothing else here
//   knows the Python exception classes.
// - The GIL is released while ncu runs, so Python threads can profile on several GPUs at once.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kprof/analysis.hpp"
#include "kprof/error.hpp"
#include "kprof/files.hpp"
#include "kprof/harness.hpp"
#include "kprof/history.hpp"
#include "kprof/json_file.hpp"
#include "kprof/kernelagent.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/model.hpp"
#include "kprof/ncu.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/options.hpp"
#include "kprof/process.hpp"
#include "kprof/profiler.hpp"
#include "kprof/report.hpp"
#include "kprof/report_file.hpp"
#include "kprof/report_view.hpp"
#include "kprof/run.hpp"
#include "kprof/slurm.hpp"
#include "kprof/version.hpp"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace kprof::python {

namespace {

/// An expected failure on its way to Python; see the translator in PYBIND11_MODULE.
class Failure : public std::exception {
public:
  explicit Failure(Error error) : m_error(std::move(error)) {}
  [[nodiscard]] const char* what() const noexcept override { return m_error.message.c_str(); }
  [[nodiscard]] const Error& error() const { return m_error; }

private:
  Error m_error;
};

template <class T>
T unwrap(Result<T> result) {
  if (!result.ok()) {
    throw Failure(std::move(result).error());
  }
  return std::move(result).value();
}

void unwrap(Result<void> result) {
  if (!result.ok()) {
    throw Failure(std::move(result).error());
  }
}

Json parse_json(const std::string& text, std::string_view what) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& error) {
    throw Failure(make_error(ErrorCategory::malformed_input,
                             fmt::format("{} is not valid JSON: {}", what, error.what())));
  }
}

/// A report document given by Python, validated like a report read from disk.
Json parse_report(const std::string& text) {
  Json doc = parse_json(text, "the report");
  unwrap(validate_report(doc));
  return doc;
}

/// A Python value as JSON for the option table: None, bool, int, float, str (the OS's bytes, as
/// os.fsencode makes them: a path that is not UTF-8 crosses unchanged), bytes, list, tuple and
/// dict. An int beyond 64 bits becomes a big_whole_number() and NaN and infinities stay numbers,
/// so that the table refuses them by the option's range. Anything else is a TypeError naming
/// `what` (the caller's keyword, "gpu[1]" for an element).
Json json_of(const py::handle& value, const std::string& what) {
  if (value.is_none()) {
    return nullptr;
  }
  if (PyBool_Check(value.ptr())) {
    return value.ptr() == Py_True;
  }
  if (PyLong_Check(value.ptr())) {
    int overflow = 0;
    const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow == 0) {
      return static_cast<std::int64_t>(number);
    }
    if (overflow > 0) {
      const unsigned long long unsigned_number = PyLong_AsUnsignedLongLong(value.ptr());
      if (PyErr_Occurred() == nullptr) {
        return static_cast<std::uint64_t>(unsigned_number);
      }
      PyErr_Clear();
    }
    return big_whole_number(py::str(value).cast<std::string>());
  }
  if (PyFloat_Check(value.ptr())) {
    return PyFloat_AS_DOUBLE(value.ptr());
  }
  if (PyUnicode_Check(value.ptr())) {
    PyObject* bytes = PyUnicode_EncodeFSDefault(value.ptr());
    if (bytes == nullptr) {
      throw py::error_already_set(); // a surrogate that names no byte: UnicodeEncodeError
    }
    return py::reinterpret_steal<py::bytes>(bytes).cast<std::string>();
  }
  if (PyBytes_Check(value.ptr())) {
    return value.cast<std::string>();
  }
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    Json items = Json::array();
    std::size_t index = 0;
    for (const py::handle item : value) {
      items.push_back(json_of(item, fmt::format("{}[{}]", what, index++)));
    }
    return items;
  }
  if (PyDict_Check(value.ptr())) {
    Json object = Json::object();
    for (const auto& [key, item] : value.cast<py::dict>()) {
      if (!PyUnicode_Check(key.ptr())) {
        throw py::type_error(
            fmt::format("the keys of {} must be str, not {}", what, Py_TYPE(key.ptr())->tp_name));
      }
      const auto name = key.cast<std::string>();
      object[name] = json_of(item, fmt::format("{}['{}']", what, name));
    }
    return object;
  }
  throw py::type_error(fmt::format("{} cannot be {}", what, Py_TYPE(value.ptr())->tp_name));
}

/// Options given by keyword (the option table's keys; `spelled`: the caller's keyword of each)
/// as the JSON object the table parses, with the context that names them as the caller did.
/// A value of the wrong type is a TypeError naming the keyword.
std::pair<Json, OptionContext> option_json(const py::dict& values,
                                           const std::map<std::string, std::string>& spelled) {
  OptionContext context;
  context.spelled.insert(spelled.begin(), spelled.end());
  Json parsed = Json::object();
  for (const auto& [key, value] : values) {
    const auto name = key.cast<std::string>();
    const auto found = spelled.find(name);
    parsed[name] = json_of(value, found != spelled.end() ? found->second : name);
  }
  if (auto typed = check_option_types(parsed, context); !typed) {
    throw py::type_error(typed.error().message);
  }
  return {std::move(parsed), std::move(context)};
}

/// The round and the retries of one profiling call: {"round": round_num, "attempts":
/// max_retries} through the option table, so both are checked and named as the options are.
RunRequest call_options(const py::dict& values, const std::map<std::string, std::string>& spelled) {
  const auto [parsed, context] = option_json(values, spelled);
  return unwrap(parse_run_options(parsed, context));
}

/// A Python int as the native parameter type T: usage error naming `name` and the range when T
/// cannot hold it (pybind11's own conversion would answer with its signatures instead). The range
/// is T's, from `least` (the library's smallest accepted value, when it has one) on; a value T
/// holds is left to the library's own check.
template <class T>
T native_int(const py::int_& value, std::string_view name,
             T least = std::numeric_limits<T>::min()) {
  int overflow = 0;
  const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow == 0 && std::in_range<T>(number)) {
    return static_cast<T>(number);
  }
  if (overflow > 0) {
    const unsigned long long unsigned_number = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred() == nullptr && std::in_range<T>(unsigned_number)) {
      return static_cast<T>(unsigned_number);
    }
    PyErr_Clear();
  }
  throw Failure(
      make_error(ErrorCategory::usage,
                 fmt::format("{} must be a whole number from {} to {}, got '{}'", name, least,
                             std::numeric_limits<T>::max(), py::repr(value).cast<std::string>())));
}

/// A Python number as a double; an int too large for one is an infinity, which the library
/// refuses by its range.
double native_number(const py::object& value) {
  const double number = PyFloat_AsDouble(value.ptr());
  if (PyErr_Occurred() != nullptr) { // OverflowError: an int beyond a double's range
    PyErr_Clear();
    return value > py::int_(0) ? std::numeric_limits<double>::infinity()
                               : -std::numeric_limits<double>::infinity();
  }
  return number;
}

/// Reads ncu output: a CSV directly (keeping the columns `options` accepts), or an .ncu-rep
/// through `ncu --import` with the ncu that locate_ncu finds.
Capture read_capture(const fs::path& path, const ReadOptions& options) {
  if (looks_like_ncu_report(path)) {
    NcuInstall ncu = unwrap(locate_ncu(std::nullopt));
    return unwrap(load_capture(path, &ncu, options));
  }
  return unwrap(load_capture(path, nullptr, options));
}

/// KernelAgent's load_ncu_metrics: one row per kept launch, {"Kernel Name": name, metric: value}
/// with the metrics in the requested order. `columns` is a set name or comma-separated list.
std::string load_metrics(const std::string& path, const std::string& columns,
                         const std::vector<std::string>& name_list, const std::string& select) {
  const MetricSet set = unwrap(resolve_metric_set(columns, MetricSetUse::read));
  SelectOptions options;
  options.select = unwrap(parse_select(select));
  options.kernel_filters = name_list;
  const Capture capture = read_capture(path, read_options_for(set));
  return json_text(kernelagent_capture_rows(capture, set, options), -1);
}

/// `kprof report FILE --select S --metrics M [--kernel K]...` as a document (read_report_file,
/// report_file_document): a capture, or a report.json analysed again (`select` and `metrics`
/// None: its own).
std::string build_report_from_file(const std::string& path,
                                   const std::optional<std::string>& select,
                                   const std::optional<std::string>& metrics,
                                   const std::vector<std::string>& kernels) {
  ReportFileRequest request;
  request.file = path;
  request.select = select;
  request.kernels = kernels;
  request.metrics = metrics;
  const ReportFileParts parts = unwrap(read_report_file(request));
  return json_text(unwrap(report_file_document(parts)), -1);
}

std::string render_report(const std::string& doc, const std::string& format,
                          const py::int_& round_digits, bool compact, const py::int_& max_rules) {
  RenderOptions options;
  options.round_digits = native_int<int>(round_digits, "round_digits");
  options.compact = compact;
  options.max_rules = native_int<std::size_t>(max_rules, "max_rules");
  return render(unwrap(parse_format(format)), parse_report(doc), options);
}

/// A round as Python reads it (python/kprof/__init__.py, _candidate_outcome): its one JSON shape
/// (kprof/round.hpp), reports included.
std::string round_json(const RoundResult& round) {
  return json_text(round_document(round, ReportDetail::full), -1);
}

/// A Python KernelProfiler: its rounds go through the library's one entry (run_round), which
/// asks a matching `kprof serve` first and otherwise runs them on the profiler this object keeps
/// (a ProfilerCache: one copy per call, so Python threads profile on several GPUs at once, all
/// sharing its standbys). ncu and python are located at the first call.
class Profiler {
public:
  /// `options` come from the option table's parser (make_profile_options), which checked them;
  /// locating ncu and python waits for the first call.
  explicit Profiler(ProfileOptions options) : m_options(std::move(options)) {}

  /// `call` holds the round and the attempts (call_options).
  std::string profile(const std::string& kernel, const std::string& problem, const py::dict& call,
                      const std::map<std::string, std::string>& spelled) {
    return run(problem, {kernel}, false, call, spelled);
  }

  /// profile() of a model's candidate (profile_model), followed, when `extract_dir` is given, by
  /// `kprof model --extract` (RoundRequest::extract): the round's `extracted` or `extract_error`.
  std::string profile_model(const std::string& kernel, const std::string& problem,
                            const py::dict& call, const std::map<std::string, std::string>& spelled,
                            const std::optional<std::string>& extract_dir, std::size_t extract_top,
                            bool compile) {
    std::optional<ExtractRequest> extract;
    if (extract_dir) {
      extract = ExtractRequest{*extract_dir, extract_top, compile};
    }
    return run(problem, {kernel}, false, call, spelled, std::move(extract));
  }

  std::string profile_batch(const std::string& problem, const std::vector<std::string>& kernels,
                            const py::dict& call,
                            const std::map<std::string, std::string>& spelled) {
    return run(problem, std::vector<fs::path>(kernels.begin(), kernels.end()), true, call, spelled);
  }

  /// [executable, version] of the ncu this profiler uses.
  std::pair<std::string, std::string> ncu(int retries) {
    Result<KernelProfiler> profiler = [&] {
      const py::gil_scoped_release release;
      ProfileOptions options = m_options;
      options.retries = retries;
      return m_cache.get(options);
    }();
    const KernelProfiler found = unwrap(std::move(profiler));
    return {found.ncu().executable.string(), found.ncu().version};
  }

  /// Stops the standbys (standby=True): their harness processes exit and their directories go.
  void close() {
    const py::gil_scoped_release release;
    m_cache.clear();
  }

  /// Every option's value as this profiler runs with it (option_values), as JSON text.
  [[nodiscard]] std::string option_values() const {
    return json_text(kprof::option_values(m_options), -1);
  }

private:
  std::string run(const std::string& problem, std::vector<fs::path> kernels, bool batch,
                  const py::dict& call, const std::map<std::string, std::string>& spelled,
                  std::optional<ExtractRequest> extract = std::nullopt) {
    // The call gives the round and, when it names them, the attempts; all else is this
    // profiler's.
    const RunRequest per_call = call_options(call, spelled);
    RoundRequest request{RunRequest{m_options, per_call.round},
                         problem,
                         std::move(kernels),
                         batch,
                         "python",
                         std::move(extract)};
    if (call.contains("attempts")) {
      request.run.options.retries = per_call.options.retries;
    }
    Result<RoundResult> result = [&] {
      const py::gil_scoped_release release;
      std::vector<std::string> notes;
      auto round = run_round(request, &m_cache, notes);
      for (const std::string& note : notes) {
        if (m_options.on_progress) {
          m_options.on_progress(note);
        }
      }
      return round;
    }();
    return round_json(unwrap(std::move(result)));
  }

  ProfileOptions m_options;
  ProfilerCache m_cache;
};

/// A progress callback for the library that calls `on_progress` (None: none) with the GIL.
std::function<void(const std::string&)> progress_callback(const py::object& on_progress) {
  if (on_progress.is_none()) {
    return {};
  }
  // Copies of the options happen without the GIL: share the callable through a pointer whose
  // deleter takes the GIL, and take it again for each call.
  std::shared_ptr<py::object> callback(new py::object(on_progress), [](py::object* object) {
    const py::gil_scoped_acquire hold;
    delete object;
  });
  return [callback](const std::string& line) {
    const py::gil_scoped_acquire hold;
    try {
      (*callback)(line);
    } catch (py::error_already_set& error) {
      error.discard_as_unraisable("kprof progress callback");
    }
  };
}

/// ProfileOptions from Python's keyword arguments: `values` is keyed by option names
/// (kprof/options.hpp), `spelled` the keyword each option had in the caller's words, so
/// messages name what the caller wrote. A value of the wrong type is a TypeError.
ProfileOptions make_profile_options(const py::dict& values,
                                    const std::map<std::string, std::string>& spelled,
                                    const py::object& on_progress) {
  auto [given, context] = option_json(values, spelled);
  const Json parsed = with_kernelagent_defaults(std::move(given));
  context.visible_gpus = visible_gpu_count();
  ProfileOptions options = unwrap(parse_run_options(parsed, context)).options;
  options.on_progress = progress_callback(on_progress);
  return options;
}

/// `kprof batch --slurm` for profile_batch(slurm=...): the round (round_json), or with dry_run
/// the plan document with its script_text. `values` and `spelled` as for make_profile_options;
/// `slurm` the settings mapping (parse_slurm_settings); the tasks run the kprof on PATH when the
/// settings name none. GPU indices are not checked against this machine: the tasks
/// run elsewhere.
std::string slurm_batch(const py::dict& values, const std::map<std::string, std::string>& spelled,
                        const std::string& problem, const std::vector<std::string>& kernels,
                        const py::dict& slurm, const py::object& on_progress) {
  auto [given, context] = option_json(values, spelled);
  const Json parsed = with_kernelagent_defaults(std::move(given));
  SlurmBatchRequest request;
  request.run = unwrap(parse_run_options(parsed, context));
  request.option_values = parsed;
  request.problem = problem;
  request.kernels.assign(kernels.begin(), kernels.end());
  request.slurm = unwrap(parse_slurm_settings(json_of(slurm, "slurm")));
  if (request.slurm.kprof.empty()) {
    // Without a path the library runs its own executable, which here is Python: the tasks run
    // the kprof on PATH.
    auto on_path = find_executable("kprof");
    if (!on_path) {
      throw Failure(make_error(ErrorCategory::usage,
                               "slurm needs the kprof executable for its tasks: pass "
                               "slurm={'kprof': PATH} or put kprof on PATH"));
    }
    request.slurm.kprof = *on_path;
  }
  request.on_progress = progress_callback(on_progress);
  request.cli_names = false;
  if (request.slurm.dry_run) {
    const SlurmPlan plan = unwrap(plan_slurm_batch(request));
    Json document = plan.to_json();
    document["script_text"] = plan.script_text;
    return json_text(document, -1);
  }
  Result<RoundResult> result = [&] {
    const py::gil_scoped_release release;
    return run_slurm_batch(request);
  }();
  return round_json(unwrap(std::move(result)));
}

/// KernelAgent's metrics text of `rows` (a JSON list of row objects) or of a report document.
std::string metrics_text(const std::string& rows_or_report, bool is_report,
                         const std::optional<py::int_>& round_digits, bool compact,
                         std::optional<std::vector<std::string>> keep_columns,
                         const std::string& key_by) {
  KernelAgentTextOptions options{
      round_digits ? std::optional(native_int<int>(*round_digits, "round_digits")) : std::nullopt,
      compact, std::move(keep_columns), key_by};
  const Json parsed = parse_json(rows_or_report, is_report ? "the report" : "the rows");
  return unwrap(
      kernelagent_metrics_text(is_report ? unwrap(kernelagent_rows(parsed)) : parsed, options));
}

/// One open history database (HistoryStore is move-only; pybind11 holds it by value here).
class History {
public:
  /// The history of a run directory (or a kprof.db named directly), read only: reading never
  /// creates, migrates or writes it (HistoryStore::database_of, open_read_only).
  explicit History(const std::string& dir_or_file)
      : m_store(
            unwrap(HistoryStore::open_read_only(unwrap(HistoryStore::database_of(dir_or_file))))) {}

  [[nodiscard]] std::string rows(const std::string& format) const {
    return render_history(unwrap(m_store.rows()), unwrap(parse_format(format)));
  }

  [[nodiscard]] std::string document(const std::string& ref) const {
    const RoundRef parsed = unwrap(parse_round_ref(ref));
    return json_text(unwrap(m_store.document(parsed)), -1);
  }

  [[nodiscard]] std::string diff(const std::string& a, const std::string& b,
                                 const py::int_& top_metrics) const {
    DiffOptions options;
    options.top_metrics = native_int<std::size_t>(top_metrics, "top_metrics");
    const Json left = unwrap(m_store.document(unwrap(parse_round_ref(a))));
    const Json right = unwrap(m_store.document(unwrap(parse_round_ref(b))));
    return json_text(unwrap(diff_reports(left, right, options)), -1);
  }

  [[nodiscard]] std::string converged(const py::object& sol_threshold, const py::int_& window,
                                      const py::object& min_improvement) const {
    ConvergenceOptions options;
    options.sol_threshold_pct = native_number(sol_threshold);
    options.window = native_int<int>(window, "window", k_min_convergence_window);
    options.min_improvement = native_number(min_improvement);
    return json_text(to_json(unwrap(kprof::converged(unwrap(m_store.rows()), options))), -1);
  }

  [[nodiscard]] std::string path() const { return m_store.path().string(); }

private:
  HistoryStore m_store;
};

std::string diff_documents(const std::string& a, const std::string& b,
                           const py::int_& top_metrics) {
  DiffOptions options;
  options.top_metrics = native_int<std::size_t>(top_metrics, "top_metrics");
  return json_text(
      unwrap(diff_reports(parse_json(a, "report a"), parse_json(b, "report b"), options)), -1);
}

std::string render_diff_text(const std::string& diff, const std::string& format) {
  return render_diff(parse_json(diff, "the diff"), unwrap(parse_format(format)));
}

/// `text` as a Python str; bytes that are not UTF-8 (a path, ncu's output) become U+FFFD.
py::str text_of(const std::string& text) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
}

/// The KernelAgent plugin's native calls (python/kprof/kernelagent.py): each forwards to
/// kprof/kernelagent.hpp or the option table, JSON as text.
void define_kernelagent(py::module_& m) {
  m.def("kernelagent_kernel_metrics", [](const std::string& metrics) {
    return json_text(kernelagent_kernel_metrics(parse_json(metrics, "the metrics")), -1);
  });
  m.def("kernelagent_roofline_defaults",
        [] { return json_text(to_json(KernelAgentRooflineConfig{}), -1); });
  m.def("kernelagent_roofline", [](const std::string& metrics, const std::string& config) {
    return json_text(
        kernelagent_roofline(parse_json(metrics, "the metrics"),
                             kernelagent_roofline_config(parse_json(config, "the config"))),
        -1);
  });
  m.def("kernelagent_should_stop", [](const std::vector<double>& efficiencies, bool at_roofline,
                                      const std::string& config) {
    const StopDecision decision = kernelagent_should_stop(
        efficiencies, at_roofline, kernelagent_roofline_config(parse_json(config, "the config")));
    return std::make_pair(decision.stop, decision.reason);
  });
  m.def("kernelagent_gpu_specs", [](const std::string& name) -> std::optional<std::string> {
    if (const std::optional<Json> specs = kernelagent_gpu_specs(name)) {
      return json_text(*specs, -1);
    }
    return std::nullopt;
  });
  m.def("known_gpus", [] {
    std::vector<std::string> names;
    for (const GpuSpec& spec : known_gpus()) {
      names.push_back(spec.name);
    }
    return names;
  });
  m.def("kernelagent_hot_lines", [](const std::string& doc) {
    return json_text(kernelagent_hot_lines(parse_json(doc, "the report")), -1);
  });
  m.def("kernelagent_truth",
        [](const std::string& doc) { return kernelagent_truth(parse_json(doc, "the report")); });
}

/// Sets the Python error for `failure`: the kprof.KprofError subclass of its category.
void raise_failure(const Failure& failure) {
  const Error& error = failure.error();
  try {
    const py::object exception =
        py::module_::import("kprof._errors")
            .attr("error_from_native")(std::string(to_string(error.category)),
                                       text_of(error.message), text_of(error.detail));
    PyErr_SetObject(py::type::handle_of(exception).ptr(), exception.ptr());
  } catch (const py::error_already_set&) {
    // kprof._errors is missing (the extension imported on its own): keep the message.
    PyErr_SetString(PyExc_RuntimeError, error.message.c_str());
  }
}

} // namespace

} // namespace kprof::python

PYBIND11_MODULE(_kprof, m) {
  using namespace kprof;
  using namespace kprof::python;
  m.doc() = "kprof's native layer; use the `kprof` package instead.";

  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) {
        std::rethrow_exception(pointer);
      }
    } catch (const py::error_already_set&) {
      throw; // a Python exception: pybind11 restores it
    } catch (const py::builtin_exception&) {
      throw; // py::type_error and friends: pybind11 raises them as they are
    } catch (const Failure& failure) {
      raise_failure(failure);
    } catch (const std::exception& error) {
      // Anything else is a KprofError too (OutOfMemory for std::bad_alloc, else InternalError:
      // a bug), never a bare RuntimeError that callers catching KprofError would miss.
      raise_failure(Failure(error_from_exception(error)));
    }
  });

  m.def(
      "write_model_candidate",
      [](const std::string& problem, const std::string& out_dir, bool compile) {
        return unwrap(write_model_candidate(problem, std::filesystem::absolute(out_dir), compile))
            .string();
      },
      py::arg("problem"), py::arg("out_dir"), py::arg("compile"));
  m.def("model_option_defaults", [] { return json_text(model_option_defaults(), -1); });
  m.def("version", [] { return std::string(k_version); });
  m.def("exit_code", [](const std::string& name) {
    for (const ExitCodeRow& row : exit_code_table()) {
      if (row.name == name) {
        return row.code;
      }
    }
    return exit_code(ErrorCategory::internal);
  });
  m.def("load_metrics", &load_metrics, py::arg("path"), py::arg("columns"), py::arg("name_list"),
        py::arg("select"));
  m.def("build_report", &build_report_from_file, py::arg("path"), py::arg("select"),
        py::arg("metrics"), py::arg("kernels"));
  m.def("render", &render_report, py::arg("doc"), py::arg("format"),
        py::arg("round_digits") = py::int_(3), py::arg("compact") = false,
        py::arg("max_rules") = py::int_(5));
  m.def("kernelagent_json", [](const std::string& doc) {
    return json_text(kernelagent_round_json(parse_json(doc, "the report")), 2);
  });
  m.def("hot_lines", [](const std::string& doc) {
    // {kernel name: hot_lines} of each name's longest launch, as kprof mcp picks them.
    const Json report = parse_json(doc, "the report");
    Json picked = Json::object();
    for (const auto& [name, kernel] : kernels_with(report, "hot_lines")) {
      picked[name] = (*kernel)["hot_lines"];
    }
    return json_text(picked, -1);
  });
  m.def("load_report",
        [](const std::string& path) { return json_text(unwrap(load_report(path)), -1); });
  m.def("diff_reports", &diff_documents, py::arg("a"), py::arg("b"),
        py::arg("top_metrics") = py::int_(8));
  m.def(
      "check_path",
      [](const std::string& path, const std::string& name) { unwrap(check_path_text(path, name)); },
      py::arg("path"), py::arg("name"));
  m.def("render_diff", &render_diff_text, py::arg("diff"), py::arg("format"));
  py::class_<ProfileOptions>(m, "ProfileOptions");
  m.def("profile_options", &make_profile_options, py::arg("values"), py::arg("spelled"),
        py::arg("on_progress"));
  m.def("slurm_batch", &slurm_batch, py::arg("values"), py::arg("spelled"), py::arg("problem"),
        py::arg("kernels"), py::arg("slurm"), py::arg("on_progress"));
  m.def("metrics_text", &metrics_text, py::arg("rows_or_report"), py::arg("is_report"),
        py::arg("round_digits"), py::arg("compact"), py::arg("keep_columns"), py::arg("key_by"));
  m.def("kernelagent_rows", [](const std::string& doc) {
    return json_text(unwrap(kernelagent_rows(parse_json(doc, "the report"))), -1);
  });
  py::class_<Profiler>(m, "Profiler")
      .def(py::init<ProfileOptions>())
      .def("profile", &Profiler::profile)
      .def("profile_batch", &Profiler::profile_batch)
      .def("ncu", &Profiler::ncu)
      .def("option_values", &Profiler::option_values)
      .def("profile_model", &Profiler::profile_model, py::arg("kernel"), py::arg("problem"),
           py::arg("call"), py::arg("spelled"), py::arg("extract_dir"), py::arg("extract_top"),
           py::arg("compile"))
      .def("close", &Profiler::close);

  define_kernelagent(m);

  py::class_<History>(m, "History")
      .def(py::init<const std::string&>(), py::arg("dir_or_file"))
      .def("rows", &History::rows, py::arg("format") = "json")
      .def("document", &History::document)
      .def("diff", &History::diff, py::arg("a"), py::arg("b"), py::arg("top_metrics") = py::int_(8))
      .def("converged", &History::converged)
      .def_property_readonly("path", &History::path);
}

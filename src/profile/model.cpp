// The candidate of `kprof model` (kprof/model.hpp).
#include "kprof/model.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/gpu_lock.hpp"
#include "kprof/harness.hpp"
#include "kprof/json_file.hpp"
#include "kprof/process.hpp"
#include "kprof/round_layout.hpp"
#include "profile/round_writer.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

/// A Python string literal of `text`: JSON's escapes are Python's.
std::string python_literal(const std::string& text) {
  return json_text(Json(text), -1);
}

/// `problem` as the candidate names it: absolute, and canonical where it exists, so that the
/// text written for `kprof model x.py` and the text is_model_reference_candidate expects for
/// the round's problem (however it was spelled) are the same.
std::string problem_literal(const fs::path& problem) {
  std::error_code ec;
  fs::path named = fs::weakly_canonical(fs::absolute(problem, ec), ec);
  if (ec) {
    named = fs::absolute(problem, ec);
  }
  return python_literal(named.string());
}

/// The longest candidate text is_model_reference_candidate reads.
constexpr std::size_t k_model_candidate_max_bytes = std::size_t{64} * 1024;

} // namespace

const Json& model_option_defaults() {
  static const Json defaults = {{"launches", "many"}, {"check", false}};
  return defaults;
}

Json with_model_defaults(Json values) {
  for (const auto& [name, value] : model_option_defaults().items()) {
    if (!values.contains(name)) {
      values[name] = value;
    }
  }
  return values;
}

std::string model_candidate_text(const fs::path& problem, bool compile) {
  return fmt::format(
      R"py("""kprof model's candidate, written by kprof (docs/harness.md, "A model"): kernel_function
calls the problem's Model as KernelBench's evaluation does, Model(*get_init_inputs()) on the GPU
in eval mode without gradients{0}, built at its first call (a warm-up) and kept."""
import importlib.util

import torch

PROBLEM = {1}
_spec = importlib.util.spec_from_file_location("_kprof_model_problem", PROBLEM)
_problem = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_problem)
_init = list(_problem.get_init_inputs()) if hasattr(_problem, "get_init_inputs") else []
_model = None


def kernel_function(*args):
    """The Model on the problem's inputs (kprof passes them, then the init inputs)."""
    global _model
    if _model is None:
        _model = _problem.Model(*_init).cuda().eval(){2}
    inputs = args[: len(args) - len(_init)] if _init else args
    with torch.no_grad():
        return _model(*inputs)
)py",
      compile ? ", through torch.compile" : "", problem_literal(problem),
      compile ? "\n        _model = torch.compile(_model)" : "");
}

bool is_model_reference_candidate(const fs::path& kernel, const fs::path& problem) {
  const std::optional<std::string> text = read_own_file(kernel, k_model_candidate_max_bytes);
  return text && *text == model_candidate_text(problem, false);
}

Result<fs::path> write_model_candidate(const fs::path& problem, const fs::path& out_dir,
                                       bool compile) {
  std::error_code ec;
  if (!fs::is_regular_file(problem, ec)) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("problem file {} not found", problem.string()));
  }
  if (auto prepared = prepare_run_directory(out_dir); !prepared) {
    return prepared.error();
  }
  const fs::path dir = out_dir / k_model_dir;
  if (auto created = kprof::create_directories(dir); !created) {
    return created.error();
  }
  const fs::path kernel = dir / "kernel.py";
  if (auto written = write_file_atomic(kernel, model_candidate_text(problem, compile)); !written) {
    return written.error();
  }
  return kernel;
}

Json costliest_kernels(const Json& report, std::size_t top) {
  struct Cost {
    double total_us = 0;
    double share = 0;
    std::size_t launches = 0;
    std::set<std::string> ops;
    std::size_t first = 0; // first seen: ties keep the report's order
  };
  std::map<std::string, Cost> by_name;
  auto add = [&](const std::string& name, double total_us, double share, std::size_t launches,
                 const Json* ops) {
    auto [at, fresh] = by_name.try_emplace(name);
    if (fresh) {
      at->second.first = by_name.size();
    }
    at->second.total_us += total_us;
    at->second.share += share;
    at->second.launches += launches;
    if (ops != nullptr && ops->is_array()) {
      for (const Json& op : *ops) {
        if (op.is_string()) {
          at->second.ops.insert(op.get<std::string>());
        }
      }
    }
  };
  const Json* workload = report.contains("workload") ? &report["workload"] : nullptr;
  if (workload != nullptr && workload->is_object() && workload->contains("kernels")) {
    for (const Json& shape : (*workload)["kernels"]) {
      add(shape.value("function", shape.value("name", std::string())), shape.value("total_us", 0.0),
          shape.value("share", 0.0), shape.value("launches", std::size_t{0}),
          shape.contains("ops") ? &shape["ops"] : nullptr);
    }
  } else if (report.contains("summary") && report["summary"].contains("kernels")) {
    for (const Json& kernel : report["summary"]["kernels"]) {
      add(kernel.value("name", std::string()), kernel.value("duration_ns", 0.0) / 1000.0,
          kernel.value("share", 0.0), kernel.value("launches", std::size_t{0}), nullptr);
    }
  }
  std::vector<std::pair<std::string, Cost>> ranked(by_name.begin(), by_name.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second.total_us != b.second.total_us ? a.second.total_us > b.second.total_us
                                                  : a.second.first < b.second.first;
  });
  Json kernels = Json::array();
  for (std::size_t i = 0; i < ranked.size() && i < top; ++i) {
    const auto& [name, cost] = ranked[i];
    if (name.empty()) {
      continue;
    }
    kernels.push_back({{"name", name},
                       {"share", cost.share},
                       {"launches", cost.launches},
                       {"total_us", cost.total_us},
                       {"ops", Json(std::vector<std::string>(cost.ops.begin(), cost.ops.end()))}});
  }
  return kernels;
}

Result<Json> extract_model_kernels(const ExtractRequest& request, const RoundResult& round,
                                   const fs::path& problem, const ProfileOptions& options,
                                   const fs::path& python) {
  const Json* report =
      round.candidates.empty() ? nullptr : round.candidates.front().report_document();
  if (report == nullptr) {
    return make_error(ErrorCategory::usage,
                      "--extract needs the model's report, and the round has none");
  }
  const fs::path out_dir = fs::absolute(request.out_dir);
  if (auto created = kprof::create_directories(out_dir); !created) {
    return created.error();
  }
  if (auto safe = safe_directory_chain(out_dir); !safe) {
    return safe.error().with_context("--extract's directory");
  }
  const Json spec = {{"out_dir", out_dir.string()},
                     {"model", fs::absolute(problem).string()},
                     {"compile", request.compile},
                     {"top", request.top},
                     {"kernels", costliest_kernels(*report, k_extract_looked_at)}};
  const fs::path spec_path = round.dir / RoundLayout::k_extract_spec;
  if (auto written = write_json_atomic(spec_path, spec); !written) {
    return written.error();
  }
  const fs::path document = out_dir / "extracted.json";
  std::error_code ignored;
  fs::remove(document, ignored);

  const int gpu = options.gpus.empty() ? 0 : options.gpus.front();
  auto lock = GpuLock::acquire(options.lock_dir.empty() ? GpuLock::default_dir() : options.lock_dir,
                               gpu, options.lock_wait);
  if (!lock) {
    return lock.error();
  }
  ProcessSpec spec_process;
  spec_process.argv = {python.string(), (round.dir / RoundLayout::k_harness_script).string(),
                       (round.dir / RoundLayout::k_plan).string(), "--extract", spec_path.string()};
  spec_process.cwd = round.dir;
  spec_process.timeout = options.timeout;
  spec_process.max_captured_bytes = 64U << 10U;
  spec_process.env_set = {{"PYTHONUNBUFFERED", "1"}, {"PYTHONDONTWRITEBYTECODE", "1"}};
  if (!env_var("TRITON_CACHE_DIR")) {
    if (auto cache = kprof_triton_cache_dir(true)) { // the round's compiles, found again
      spec_process.env_set.emplace_back("TRITON_CACHE_DIR", cache->string());
    }
  }
  if (!options.gpus.empty()) {
    spec_process.env_set.emplace_back("CUDA_VISIBLE_DEVICES", visible_device(gpu));
  }
  auto ran = run_process(spec_process);
  if (!ran) {
    return ran.error();
  }
  auto text = read_file(document);
  if (!text) {
    const ErrorCategory category =
        ran->timed_out ? ErrorCategory::timeout : ErrorCategory::program_crashed;
    return make_error(category,
                      fmt::format("the extraction ended ({}) without writing {}", ran->describe(),
                                  document.string()),
                      ran->err);
  }
  Json extracted = Json::parse(*text, nullptr, false);
  if (extracted.is_discarded() || !extracted.is_object()) {
    return make_error(ErrorCategory::internal,
                      fmt::format("{} is not the extraction's document", document.string()));
  }
  if (extracted.contains("error")) {
    return make_error(ErrorCategory::kernel_raised,
                      fmt::format("the model could not be called to extract its kernels: {}",
                                  extracted["error"].get<std::string>()),
                      ran->err);
  }
  return extracted;
}

std::vector<std::string> extraction_lines(const Json& extracted) {
  std::vector<std::string> lines;
  for (const Json& kernel : extracted.value("kernels", Json::array())) {
    const std::string name = kernel.value("name", std::string());
    const double share = kernel.value("share", 0.0) * 100.0;
    if (kernel.value("extracted", false)) {
      const fs::path dir = kernel.value("directory", std::string());
      lines.push_back(fmt::format("extracted {} ({:.0f}% of the call's kernel time): kprof "
                                  "profile {} {}",
                                  name, share, (dir / "kernel.py").string(),
                                  (dir / "problem.py").string()));
    } else {
      lines.push_back(fmt::format("not extracted: {} ({:.0f}%): {}", name, share,
                                  kernel.value("why", std::string())));
    }
  }
  if (lines.empty()) {
    lines.emplace_back("--extract: the round named no kernel to extract");
  }
  return lines;
}

} // namespace kprof

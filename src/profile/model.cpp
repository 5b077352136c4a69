// The candidate of `kprof model` (kprof/model.hpp).
#include "kprof/model.hpp"

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/json_file.hpp"
#include "profile/round_writer.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

/// A Python string literal of `text`: JSON's escapes are Python's.
std::string python_literal(const std::string& text) {
  return json_text(Json(text), -1);
}

} // namespace

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
      compile ? ", through torch.compile" : "", python_literal(fs::absolute(problem).string()),
      compile ? "\n        _model = torch.compile(_model)" : "");
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

} // namespace kprof

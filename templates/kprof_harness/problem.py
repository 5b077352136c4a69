"""problem.py and what is built from it: torch imported, the module loaded by path, its inputs
kept per cast word and its Model built lazily (Problem). A compile worker's problem lives on the
meta device (compile_worker.MetaProblem)."""

import copy
import os

from .gpus import count_gpus
from .inputs import prepare_input
from .modules import add_import_dir, load_module
from .plan import CAST_DTYPES
from .report import describe_exception
from .torch_import import import_torch


class ProblemError(Exception):
    """problem.py failed; carries the status entry describing why."""

    def __init__(self, error):
        super().__init__(error["message"])
        self.error = error


class Problem:
    """problem.py and what was built from it: inputs, init_inputs and (lazily) the Model.

    Inputs and Models are kept per cast word. With an explicit cast the inputs are cast once, as
    they are made, and that is the only word ever asked for. With cast "auto" they are kept as
    the problem made them ("none"), and each dtype a candidate asks for is derived from those
    once and shared by the later candidates that ask for it.
    """

    def __init__(self, torch, module, plan):
        self.torch = torch
        self.module = module
        self.plan = plan
        self.init_inputs = []
        # The cast word the inputs are made with: the asked one, or "none" under "auto".
        self.made_with = "none" if plan["cast"] == "auto" else plan["cast"]
        self._inputs = {}
        self._models = {}
        self.truth = None  # truth.Truth when the plan asks for the truth (session.run sets it)

    def dtype(self, cast):
        return None if cast == "none" else getattr(self.torch, CAST_DTYPES[cast])

    def set_inputs(self, inputs):
        """The inputs as the problem returned them: moved to the GPU, cast as made_with says."""
        dtype = self.dtype(self.made_with)
        self._inputs = {self.made_with: [self.prepare(value, dtype) for value in inputs]}

    def inputs(self, cast):
        """The inputs with floating-point tensors in the dtype of `cast` (derived once)."""
        if cast not in self._inputs:
            dtype = self.dtype(cast)
            self._inputs[cast] = [self.prepare(value, dtype) for value in self._inputs[self.made_with]]
        return self._inputs[cast]

    def prepare(self, value, dtype):
        """One input on the GPU, cast when asked (prepare_input)."""
        return prepare_input(self.torch, value, dtype)

    def new_model(self, model_class):
        """Model(*init_inputs) on the GPU."""
        return model_class(*self.init_inputs).cuda()

    def model(self, cast):
        """Model(*init_inputs) on the GPU, cast like the inputs of `cast`, or None without a Model
        class. Built once (per dtype under "auto": a copy of the uncast one, so every dtype has
        the same weights); a failure is a problem error."""
        if cast in self._models:
            return self._models[cast]
        model_class = getattr(self.module, "Model", None)
        model = None
        if model_class is not None:
            try:
                if cast == self.made_with:
                    model = self.new_model(model_class)
                    if self.dtype(cast) is not None:
                        model = model.to(self.dtype(cast))
                else:
                    model = copy.deepcopy(self.model(self.made_with)).to(self.dtype(cast))
            except ProblemError:
                raise
            except Exception as exc:
                raise ProblemError(describe_exception(exc))
        self._models[cast] = model
        return model


def load_problem(plan, status, problem_class=Problem, needs_gpu=True):
    """torch and problem.py, imported; NoGpu first when CUDA shows no GPU and one is needed (a
    compile worker needs none: it runs with CUDA_VISIBLE_DEVICES empty)."""
    torch = import_torch(status)
    if needs_gpu:
        count_gpus(torch, status)
    path = plan["problem"]
    add_import_dir(os.path.dirname(os.path.abspath(path)))
    module = load_module("_kprof_problem", path)
    if not callable(getattr(module, "get_inputs", None)):
        raise AttributeError("problem.py defines no get_inputs()")
    return problem_class(torch, module, plan)

"""Where the truth's process spends its time, step by step, in a fresh process on a GPU machine
(docs/device-runs/2026-12-06-truth.md): `python3 bench/device/truth_cost.py [--no-prewarm]` from the
repository root. With --no-prewarm FlopCounterMode's first use falls in speed_of_light.measure
(the first of the two runs recorded there); without it, it is paid on two CPU tensors first."""
import sys, time
T0 = time.time()
PREWARM = "--no-prewarm" not in sys.argv
def lap(what, t):
    print("%-28s %.3f s" % (what, time.time() - t), flush=True)
t = time.time(); import torch; lap("import torch", t)
if PREWARM:
    t = time.time(); torch.cuda.init(); lap("torch.cuda.init", t)
    t = time.time()
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False):
        (torch.ones(4, 4) @ torch.ones(4, 4)).softmax(-1).sum()
    lap("FlopCounterMode CPU prewarm", t)
sys.path.insert(0, "templates")
from kprof_harness import timing, speed_of_light
sys.path.insert(0, "examples/softmax")
import importlib.util
spec = importlib.util.spec_from_file_location("p", "examples/softmax/problem.py"); p = importlib.util.module_from_spec(spec); spec.loader.exec_module(p)
spec = importlib.util.spec_from_file_location("k", "examples/softmax/kernel.py"); k = importlib.util.module_from_spec(spec); spec.loader.exec_module(k)
t = time.time(); inputs = [x.cuda() if hasattr(x, "cuda") else x for x in p.get_inputs()]; torch.cuda.synchronize(); lap("inputs (context incl.)", t)
model = p.Model(*p.get_init_inputs()).cuda()
t = time.time(); out = model(*inputs); torch.cuda.synchronize(); lap("reference first call", t)
t = time.time(); r = k.kernel_function(*inputs); torch.cuda.synchronize(); lap("candidate first call", t)
t = time.time(); from torch.utils.flop_counter import FlopCounterMode; lap("import flop_counter", t)
call = lambda: model(*inputs)
t = time.time(); sol = speed_of_light.measure(torch, call, inputs, out, model); lap("speed_of_light.measure", t)
s = timing.settings_of({})
t = time.time(); nv = timing.gpu_state(); lap("gpu_state (NVML)", t)
t = time.time(); a = timing.time_call(torch, call, s); lap("time_call reference", t); print(a.get("count"), a.get("mode"))
t = time.time(); b = timing.time_call(torch, lambda: k.kernel_function(*inputs), s); lap("time_call candidate", t); print(b.get("count"), b.get("mode"))
t = time.time(); c = timing.timed_with_state(torch, lambda: k.kernel_function(*inputs), s); lap("timed_with_state cand", t)
lap("total", T0)

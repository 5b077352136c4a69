# Held-out defect: tail effect. A block of 1024 threads per option, two blocks an SM (22 registers,
# no spills): 280 blocks for the 264 slots of 132 SMs, so the last 16 run alone in a second wave as
# long as the first while 116 SMs idle. The fix is the grid (split the work over exactly one wave),
# no device line.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(params, nodes=1 << 19, rate=0.03):  # nodes, rate: get_init_inputs(), after the inputs
    return planted_cuda.module().option_blocks(params, nodes, rate)

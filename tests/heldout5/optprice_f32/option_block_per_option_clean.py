# Clean twin of option_block_per_option.py: exactly one wave of two blocks an SM, the (option, node)
# pairs split evenly over them; each block adds its part of the two or three options it covers with
# one atomic each (prices zeroed by a memset, no kernel).
# CUDA C++ built with load_inline and -lineinfo: tests/heldout5/cuda/heldout5.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(params, nodes=1 << 19, rate=0.03):  # nodes, rate: get_init_inputs(), after the inputs
    return planted_cuda.module().option_slices(params, nodes, rate)

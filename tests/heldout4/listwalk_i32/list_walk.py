# Held-out defect: memory latency. A thread per walk follows 256 links of a list scattered over
# 64 MiB (more than L2 holds): each node's load gives the next node's address, so every hop waits a
# full DRAM latency, with few other loads in flight. No clean twin: the answer takes that chain of
# loads.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout4/cuda/heldout4.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(nodes, heads, hops=256):  # hops: get_init_inputs()[0], passed after the inputs
    return planted_cuda.module().list_walk(nodes, heads, hops)

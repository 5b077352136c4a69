# Clean twin of kepler_lane_converge.py: the loop's test is the warp's (__any_sync): the warp
# makes the same iterations, with every lane active in each.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(mean_anomaly, eccentricity):
    return planted_cuda.module().kepler_warp_converge(mean_anomaly, eccentricity)

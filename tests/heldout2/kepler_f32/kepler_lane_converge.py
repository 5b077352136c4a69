# Held-out defect: warp divergence. A thread per orbit iterates until its own orbit converges:
# from a few iterations (e near 0) to over a hundred (e near 0.9), so a warp runs as long as its
# slowest lane with its converged lanes idle.
# CUDA C++ built with load_inline and -lineinfo: tests/heldout2/cuda/heldout2.cu.
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
import planted_cuda  # noqa: E402


def kernel_function(mean_anomaly, eccentricity):
    return planted_cuda.module().kepler_lane_converge(mean_anomaly, eccentricity)

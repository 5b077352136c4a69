"""A candidate whose kernel_function raises after the warm-up: kprof reports kernel_raised."""
import torch


def kernel_function(x):
    raise ValueError("planted failure: this candidate computes nothing")

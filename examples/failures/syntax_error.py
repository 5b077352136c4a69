"""A candidate that does not import: kprof reports kernel_import with the Python error."""
import torch

def kernel_function(x)
    return x

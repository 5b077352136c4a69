"""A candidate that never returns: kprof kills the process group at --timeout."""
import time


def kernel_function(x):
    while True:
        time.sleep(1)

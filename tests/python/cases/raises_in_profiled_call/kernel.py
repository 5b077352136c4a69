import triton

CALLS = [0]


@triton.jit
def flaky_kernel(x_ptr):
    pass


def kernel_function(x, y):
    CALLS[0] += 1
    if CALLS[0] == 4:
        raise ValueError("the fourth call fails")
    flaky_kernel[(1,)](x)
    return x

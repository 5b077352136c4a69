def kernel_fn(x, y):
    return x

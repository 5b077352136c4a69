def kernel_function(x):
    return None

def kernel_function(x, y:
    return x

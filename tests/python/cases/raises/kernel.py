def kernel_function(x, y):
    raise ValueError("the kernel rejects these inputs")

def kernel_function(x, y):
    raise RuntimeError("CUDA error: an illegal memory access was encountered")

"""A candidate that launches no GPU kernel (it returns a cached result): kprof reports no_kernels."""
_cache = {}


def kernel_function(x):
    key = (x.data_ptr(), tuple(x.shape))
    if key not in _cache:
        _cache[key] = x * 2
    return _cache[key]

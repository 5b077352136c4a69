import torch


def kernel_function(x, labels, count):
    torch._fake_log("dtypes %s %s %r" % (x.dtype.name, labels.dtype.name, count))
    return x

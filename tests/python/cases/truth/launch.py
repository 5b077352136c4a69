"""A (fake) Triton kernel each candidate launches, so that the stand-in ncu has rows for its
range; the candidates' outputs are made with torch.tensor, whose values the fake torch keeps."""
import triton


@triton.jit
def touch_kernel(x_ptr):
    pass


def touch(x):
    touch_kernel[(1,)](x)

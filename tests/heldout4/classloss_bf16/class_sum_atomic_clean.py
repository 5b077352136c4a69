# Clean twin of class_sum_atomic.py: 4 programs per SM in a grid-stride loop, each summing its
# losses per class in registers ([512, 16] one-hot tiles) and adding its 10 sums with 10 atomics at
# the end.
import torch
import triton
import triton.language as tl


@triton.jit
def class_sum_onehot_kernel(loss_ptr, label_ptr, sums_ptr, n, step, CLASSES, BLOCK: tl.constexpr,
                            CP: tl.constexpr):
    cls = tl.arange(0, CP)
    acc = tl.zeros([BLOCK, CP], dtype=tl.float32)
    for start in range(tl.program_id(0) * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        ok = offs < n
        x = tl.load(loss_ptr + offs, mask=ok, other=0.0).to(tl.float32)
        c = tl.load(label_ptr + offs, mask=ok, other=0).to(tl.int32)
        acc += tl.where(c[:, None] == cls[None, :], x[:, None], 0.0)
    tl.atomic_add(sums_ptr + cls, tl.sum(acc, axis=0), mask=cls < CLASSES)


def kernel_function(loss, labels, classes=10):  # classes: get_init_inputs()[0], after the inputs
    n = loss.numel()
    assert classes <= 16
    sums = torch.zeros(classes, device=loss.device, dtype=torch.float32)
    programs = torch.cuda.get_device_properties(loss.device).multi_processor_count * 4
    class_sum_onehot_kernel[(programs,)](loss, labels, sums, n, programs * 512, classes, BLOCK=512, CP=16,
                                         num_warps=8)
    return sums

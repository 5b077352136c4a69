"""The CUDA C++ kernels of the second held-out suite as one torch extension.

The file name is the one bench/device/steps/record-planted.sh builds ahead of profiling
($PLANTED_SUITE/cuda/planted_cuda.py); the kernel files import it the way tests/planted's do.
`module()` builds tests/heldout2/cuda/heldout2.cu with torch.utils.cpp_extension.load_inline and
`extra_cuda_cflags=["-lineinfo"]` (once per machine: torch caches the build under
$TORCH_EXTENSIONS_DIR, keyed by the name, the sources and the flags) and returns it. The CUDA
source goes in behind a `#line 1 "<absolute path of heldout2.cu>"` directive, so the line info
(and ncu's source page) names heldout2.cu and its own line numbers instead of the copy load_inline
writes into its build directory.

Run as a script to build it ahead of profiling: `python3 tests/heldout2/cuda/planted_cuda.py`.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "planted", "cuda"))
import inline_build  # noqa: E402  (tests/planted/cuda/inline_build.py)

SOURCE = os.path.join(HERE, "heldout2.cu")
NAME = "kprof_heldout2_cuda"

# The torch side: tensors in, the launchers of heldout2.cu called on torch's current stream. Each
# public function is one line that names its launcher (tests/python/test_heldout_suite.py reads
# them).
CPP_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

void launch_kepler_lane_converge(const float*, const float*, float*, int, cudaStream_t);
void launch_kepler_warp_converge(const float*, const float*, float*, int, cudaStream_t);
void launch_rownorm_staged_narrow(const float*, float*, int, int, cudaStream_t);
void launch_rownorm_staged_wide(const float*, float*, int, int, cudaStream_t);
void launch_center_serial_sum(const void*, void*, int, int, cudaStream_t);
void launch_center_shuffle_sum(const void*, void*, int, int, cudaStream_t);
void launch_row_scan_unpadded(const float*, float*, int, cudaStream_t);
void launch_row_scan_padded(const float*, float*, int, cudaStream_t);
void launch_cdist_l1_tile16(const float*, const float*, float*, int, int, int, cudaStream_t);
void launch_cdist_l1_reg8x8(const float*, const float*, float*, int, int, int, cudaStream_t);
void launch_tiny_rmsnorm_bf16(const void*, const void*, void*, int, int, cudaStream_t);
void launch_gelu_tanh_bf16x8(const void*, void*, int, cudaStream_t);

namespace {
cudaStream_t stream() { return at::cuda::getCurrentCUDAStream(); }
void check(const torch::Tensor& t, torch::ScalarType type) {
  TORCH_CHECK(t.is_cuda() && t.is_contiguous() && t.scalar_type() == type,
              "expected a contiguous CUDA tensor of ", type);
}
int narrow(int64_t v) {
  TORCH_CHECK(v >= 0 && v <= 2147483647LL, "a size of 2^31 or more");
  return static_cast<int>(v);
}
torch::Tensor kepler(const torch::Tensor& m, const torch::Tensor& e,
                     void (*launch)(const float*, const float*, float*, int, cudaStream_t)) {
  check(m, torch::kFloat);
  check(e, torch::kFloat);
  TORCH_CHECK(m.numel() == e.numel(), "one eccentricity per mean anomaly");
  auto out = torch::empty_like(m);
  launch(m.data_ptr<float>(), e.data_ptr<float>(), out.data_ptr<float>(), narrow(m.numel()),
         stream());
  return out;
}
torch::Tensor rownorm(const torch::Tensor& x,
                      void (*launch)(const float*, float*, int, int, cudaStream_t)) {
  check(x, torch::kFloat);
  TORCH_CHECK(x.dim() == 2 && x.size(1) * 4 <= 200 * 1024, "rows of at most 200 KiB");
  auto y = torch::empty_like(x);
  launch(x.data_ptr<float>(), y.data_ptr<float>(), narrow(x.size(0)), narrow(x.size(1)), stream());
  return y;
}
torch::Tensor center(const torch::Tensor& x,
                     void (*launch)(const void*, void*, int, int, cudaStream_t)) {
  check(x, torch::kHalf);
  TORCH_CHECK(x.dim() == 2, "expected a matrix");
  auto y = torch::empty_like(x);
  launch(x.data_ptr(), y.data_ptr(), narrow(x.size(0)), narrow(x.size(1)), stream());
  return y;
}
torch::Tensor row_scan(const torch::Tensor& x,
                       void (*launch)(const float*, float*, int, cudaStream_t)) {
  check(x, torch::kFloat);
  TORCH_CHECK(x.dim() == 2 && x.size(1) == 32 && x.size(0) % 32 == 0,
              "expected rows of 32, a multiple of 32 of them");
  auto y = torch::empty_like(x);
  launch(x.data_ptr<float>(), y.data_ptr<float>(), narrow(x.size(0)), stream());
  return y;
}
torch::Tensor cdist(const torch::Tensor& a, const torch::Tensor& b,
                    void (*launch)(const float*, const float*, float*, int, int, int,
                                   cudaStream_t)) {
  check(a, torch::kFloat);
  check(b, torch::kFloat);
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(1), "expected (n, k), (m, k)");
  TORCH_CHECK(a.size(0) % 128 == 0 && b.size(0) % 128 == 0 && a.size(1) % 16 == 0,
              "n, m multiples of 128 and k of 16");
  auto d = torch::empty({a.size(0), b.size(0)}, a.options());
  launch(a.data_ptr<float>(), b.data_ptr<float>(), d.data_ptr<float>(), narrow(a.size(0)),
         narrow(b.size(0)), narrow(a.size(1)), stream());
  return d;
}
torch::Tensor rmsnorm(const torch::Tensor& x, const torch::Tensor& w,
                      void (*launch)(const void*, const void*, void*, int, int, cudaStream_t)) {
  check(x, torch::kBFloat16);
  check(w, torch::kBFloat16);
  TORCH_CHECK(x.dim() == 2 && w.dim() == 1 && w.size(0) == x.size(1), "expected (rows, n), (n)");
  auto y = torch::empty_like(x);
  launch(x.data_ptr(), w.data_ptr(), y.data_ptr(), narrow(x.size(0)), narrow(x.size(1)), stream());
  return y;
}
torch::Tensor gelu(const torch::Tensor& x, void (*launch)(const void*, void*, int, cudaStream_t)) {
  check(x, torch::kBFloat16);
  TORCH_CHECK(x.numel() % 8 == 0, "a multiple of 8 values (16-byte vectors)");
  auto y = torch::empty_like(x);
  launch(x.data_ptr(), y.data_ptr(), narrow(x.numel()), stream());
  return y;
}
} // namespace

torch::Tensor kepler_lane_converge(torch::Tensor m, torch::Tensor e) { return kepler(m, e, launch_kepler_lane_converge); }
torch::Tensor kepler_warp_converge(torch::Tensor m, torch::Tensor e) { return kepler(m, e, launch_kepler_warp_converge); }
torch::Tensor rownorm_staged_narrow(torch::Tensor x) { return rownorm(x, launch_rownorm_staged_narrow); }
torch::Tensor rownorm_staged_wide(torch::Tensor x) { return rownorm(x, launch_rownorm_staged_wide); }
torch::Tensor center_serial_sum(torch::Tensor x) { return center(x, launch_center_serial_sum); }
torch::Tensor center_shuffle_sum(torch::Tensor x) { return center(x, launch_center_shuffle_sum); }
torch::Tensor row_scan_unpadded(torch::Tensor x) { return row_scan(x, launch_row_scan_unpadded); }
torch::Tensor row_scan_padded(torch::Tensor x) { return row_scan(x, launch_row_scan_padded); }
torch::Tensor cdist_l1_tile16(torch::Tensor a, torch::Tensor b) { return cdist(a, b, launch_cdist_l1_tile16); }
torch::Tensor cdist_l1_reg8x8(torch::Tensor a, torch::Tensor b) { return cdist(a, b, launch_cdist_l1_reg8x8); }
torch::Tensor tiny_rmsnorm_bf16(torch::Tensor x, torch::Tensor w) { return rmsnorm(x, w, launch_tiny_rmsnorm_bf16); }
torch::Tensor gelu_tanh_bf16x8(torch::Tensor x) { return gelu(x, launch_gelu_tanh_bf16x8); }
"""

FUNCTIONS = [
    "kepler_lane_converge", "kepler_warp_converge", "rownorm_staged_narrow", "rownorm_staged_wide",
    "center_serial_sum", "center_shuffle_sum", "row_scan_unpadded", "row_scan_padded",
    "cdist_l1_tile16", "cdist_l1_reg8x8", "tiny_rmsnorm_bf16", "gelu_tanh_bf16x8",
]

# The built extension (built on the first call of the machine, loaded after that).
module = inline_build.cached_loader(NAME, SOURCE, CPP_SOURCE, FUNCTIONS)

if __name__ == "__main__":
    inline_build.build_ahead(NAME, FUNCTIONS, module)

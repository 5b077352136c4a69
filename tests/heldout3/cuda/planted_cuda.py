"""The CUDA C++ kernels of the third held-out suite as one torch extension.

The file name is the one bench/device/steps/record-planted.sh builds ahead of profiling
($PLANTED_SUITE/cuda/planted_cuda.py); the kernel files import it the way tests/planted's do.
`module()` builds tests/heldout3/cuda/heldout3.cu with torch.utils.cpp_extension.load_inline and
`extra_cuda_cflags=["-lineinfo"]` (once per machine: torch caches the build under
$TORCH_EXTENSIONS_DIR, keyed by the name, the sources and the flags) and returns it. The CUDA
source goes in behind a `#line 1 "<absolute path of heldout3.cu>"` directive, so the line info
(and ncu's source page) names heldout3.cu and its own line numbers instead of the copy load_inline
writes into its build directory.

Run as a script to build it ahead of profiling: `python3 tests/heldout3/cuda/planted_cuda.py`.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "planted", "cuda"))
import inline_build  # noqa: E402  (tests/planted/cuda/inline_build.py)

SOURCE = os.path.join(HERE, "heldout3.cu")
NAME = "kprof_heldout3_cuda"

# The torch side: tensors in, the launchers of heldout3.cu called on torch's current stream. Each
# public function is one line that names its launcher (tests/python/test_heldout_suite.py reads
# them).
CPP_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

void launch_spring_chunks_tail(const float*, const float*, const float*, float*, int, int, float, cudaStream_t);
void launch_spring_chunks_wave(const float*, const float*, const float*, float*, int, int, float, cudaStream_t);
void launch_voxel_count_global(const float*, int*, int, cudaStream_t);
void launch_voxel_count_shared(const float*, int*, int, cudaStream_t);
void launch_linear_relu_fma(const void*, const void*, const void*, void*, int, int, int, cudaStream_t);
void launch_linear_relu_wmma(const void*, const void*, const void*, void*, int, int, int, cudaStream_t);
void launch_fourier_interleaved(const float*, const float*, float*, int, cudaStream_t);
void launch_fourier_halves(const float*, const float*, float*, int, cudaStream_t);
void launch_dct8_lane_block(const float*, float*, int, int, cudaStream_t);
void launch_dct8_padded(const float*, float*, int, int, cudaStream_t);
void launch_codebook_narrow(const void*, const float*, float*, int, int, cudaStream_t);
void launch_codebook_wide(const void*, const float*, float*, int, int, cudaStream_t);

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
torch::Tensor spring(const torch::Tensor& x, const torch::Tensor& v, const torch::Tensor& k,
                     int64_t steps, double dt,
                     void (*launch)(const float*, const float*, const float*, float*, int, int, float,
                                    cudaStream_t)) {
  check(x, torch::kFloat);
  check(v, torch::kFloat);
  check(k, torch::kFloat);
  TORCH_CHECK(x.numel() == v.numel() && x.numel() == k.numel(), "one velocity and stiffness per spring");
  auto out = torch::empty_like(x);
  launch(x.data_ptr<float>(), v.data_ptr<float>(), k.data_ptr<float>(), out.data_ptr<float>(),
         narrow(x.numel()), narrow(steps), static_cast<float>(dt), stream());
  return out;
}
torch::Tensor voxel(const torch::Tensor& pts, void (*launch)(const float*, int*, int, cudaStream_t)) {
  check(pts, torch::kFloat);
  TORCH_CHECK(pts.dim() == 2 && pts.size(0) == 3, "expected the coordinates as a 3 x n matrix");
  TORCH_CHECK(pts.size(1) <= 2147483647LL / 3, "3 n must fit an int");
  auto counts = torch::empty({512}, pts.options().dtype(torch::kInt));  // zeroed by the launcher
  launch(pts.data_ptr<float>(), counts.data_ptr<int>(), narrow(pts.size(1)), stream());
  return counts.view({8, 8, 8});
}
torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                     void (*launch)(const void*, const void*, const void*, void*, int, int, int,
                                    cudaStream_t)) {
  check(x, torch::kHalf);
  check(w, torch::kHalf);
  check(b, torch::kHalf);
  TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && b.dim() == 1 && x.size(1) == w.size(1) &&
                  b.size(0) == w.size(0), "expected (m, k), (n, k), (n)");
  TORCH_CHECK(x.size(0) % 128 == 0 && w.size(0) % 128 == 0 && x.size(1) % 32 == 0,
              "m, n multiples of 128 and k of 32");
  auto y = torch::empty({x.size(0), w.size(0)}, x.options());
  launch(x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), narrow(x.size(0)), narrow(w.size(0)),
         narrow(x.size(1)), stream());
  return y;
}
torch::Tensor fourier(const torch::Tensor& a, const torch::Tensor& b,
                      void (*launch)(const float*, const float*, float*, int, cudaStream_t)) {
  check(a, torch::kFloat);
  check(b, torch::kFloat);
  TORCH_CHECK(a.dim() == 1 && a.numel() == b.numel() && a.numel() % 32 == 0 && a.numel() < (1LL << 30),
              "two vectors of one length, a multiple of 32");
  auto out = torch::empty({2, a.numel()}, a.options());
  launch(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), narrow(a.numel()), stream());
  return out;
}
torch::Tensor dct8(const torch::Tensor& img, void (*launch)(const float*, float*, int, int, cudaStream_t)) {
  check(img, torch::kFloat);
  TORCH_CHECK(img.dim() == 2 && img.size(0) % 8 == 0 && img.size(1) % 256 == 0 &&
                  (img.size(0) / 8) * (img.size(1) / 256) % 4 == 0,
              "height a multiple of 8, width of 256, and a multiple of 4 strips of 8 x 256");
  auto out = torch::empty_like(img);
  launch(img.data_ptr<float>(), out.data_ptr<float>(), narrow(img.size(0)), narrow(img.size(1)), stream());
  return out;
}
torch::Tensor codebook(const torch::Tensor& codes, const torch::Tensor& book,
                       void (*launch)(const void*, const float*, float*, int, int, cudaStream_t)) {
  check(codes, torch::kShort);
  check(book, torch::kFloat);
  TORCH_CHECK(codes.numel() % 8 == 0, "a multiple of 8 codes (16-byte vectors)");
  TORCH_CHECK(book.dim() == 1 && book.numel() > 0 && book.numel() * 4 <= 227 * 1024,
              "a codebook of at most 227 KiB");
  auto out = torch::empty(codes.sizes(), book.options());
  launch(codes.data_ptr(), book.data_ptr<float>(), out.data_ptr<float>(), narrow(codes.numel()),
         narrow(book.numel()), stream());
  return out;
}
} // namespace

torch::Tensor spring_chunks_tail(torch::Tensor x, torch::Tensor v, torch::Tensor k, int64_t steps, double dt) { return spring(x, v, k, steps, dt, launch_spring_chunks_tail); }
torch::Tensor spring_chunks_wave(torch::Tensor x, torch::Tensor v, torch::Tensor k, int64_t steps, double dt) { return spring(x, v, k, steps, dt, launch_spring_chunks_wave); }
torch::Tensor voxel_count_global(torch::Tensor pts) { return voxel(pts, launch_voxel_count_global); }
torch::Tensor voxel_count_shared(torch::Tensor pts) { return voxel(pts, launch_voxel_count_shared); }
torch::Tensor linear_relu_fma(torch::Tensor x, torch::Tensor w, torch::Tensor b) { return linear(x, w, b, launch_linear_relu_fma); }
torch::Tensor linear_relu_wmma(torch::Tensor x, torch::Tensor w, torch::Tensor b) { return linear(x, w, b, launch_linear_relu_wmma); }
torch::Tensor fourier_interleaved(torch::Tensor a, torch::Tensor b) { return fourier(a, b, launch_fourier_interleaved); }
torch::Tensor fourier_halves(torch::Tensor a, torch::Tensor b) { return fourier(a, b, launch_fourier_halves); }
torch::Tensor dct8_lane_block(torch::Tensor img) { return dct8(img, launch_dct8_lane_block); }
torch::Tensor dct8_padded(torch::Tensor img) { return dct8(img, launch_dct8_padded); }
torch::Tensor codebook_narrow(torch::Tensor codes, torch::Tensor book) { return codebook(codes, book, launch_codebook_narrow); }
torch::Tensor codebook_wide(torch::Tensor codes, torch::Tensor book) { return codebook(codes, book, launch_codebook_wide); }
"""

FUNCTIONS = [
    "spring_chunks_tail", "spring_chunks_wave", "voxel_count_global", "voxel_count_shared",
    "linear_relu_fma", "linear_relu_wmma", "fourier_interleaved", "fourier_halves",
    "dct8_lane_block", "dct8_padded", "codebook_narrow", "codebook_wide",
]

# The built extension (built on the first call of the machine, loaded after that).
module = inline_build.cached_loader(NAME, SOURCE, CPP_SOURCE, FUNCTIONS)

if __name__ == "__main__":
    inline_build.build_ahead(NAME, FUNCTIONS, module)

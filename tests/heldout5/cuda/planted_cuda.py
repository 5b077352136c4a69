"""The CUDA C++ kernels of the fifth held-out suite as one torch extension.

The file name is the one bench/device/steps/record-planted.sh builds ahead of profiling
($PLANTED_SUITE/cuda/planted_cuda.py); the kernel files import it the way tests/planted's do.
`module()` builds tests/heldout5/cuda/heldout5.cu with torch.utils.cpp_extension.load_inline and
`extra_cuda_cflags=["-lineinfo"]` (once per machine: torch caches the build under
$TORCH_EXTENSIONS_DIR, keyed by the name, the sources and the flags) and returns it. The CUDA
source goes in behind a `#line 1 "<absolute path of heldout5.cu>"` directive, so the line info
(and ncu's source page) names heldout5.cu and its own line numbers instead of the copy load_inline
writes into its build directory.

Run as a script to build it ahead of profiling: `python3 tests/heldout5/cuda/planted_cuda.py`.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "planted", "cuda"))
import inline_build  # noqa: E402  (tests/planted/cuda/inline_build.py)

SOURCE = os.path.join(HERE, "heldout5.cu")
NAME = "kprof_heldout5_cuda"

# The torch side: tensors in, the launchers of heldout5.cu called on torch's current stream. Each
# public function is one line that names its launcher (tests/python/test_heldout_suite.py reads
# them).
CPP_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <cstdint>

void launch_amax_thread_atomic(const void*, float*, int, cudaStream_t);
void launch_amax_block_atomic(const void*, float*, int, cudaStream_t);
void launch_bitrev_rows_direct(const float*, float*, int, cudaStream_t);
void launch_bitrev_rows_skewed(const float*, float*, int, cudaStream_t);
void launch_prefix_hillis_steele(const float*, float*, int, cudaStream_t);
void launch_prefix_warp_scan(const float*, float*, int, cudaStream_t);
void launch_frame_prep_bilinear(const unsigned char*, float*, int, int, int, int, cudaStream_t);
void launch_spmv_warp_rows(const int*, const int*, const float*, const float*, float*, int, int, cudaStream_t);
void launch_spmv_nnz_chunks(const int*, const int*, const float*, const float*, float*, int, int, cudaStream_t);
void launch_transpose_f64_wide_tiles(const double*, double*, int, int, cudaStream_t);
void launch_transpose_f64_small_tiles(const double*, double*, int, int, cudaStream_t);
void launch_kmeans_register_centroids(const float*, const float*, int*, int, cudaStream_t);
void launch_kmeans_constant_centroids(const float*, const float*, int*, int, cudaStream_t);
void launch_mlp_shuffle_lanes(const float*, const float*, const float*, float*, int, cudaStream_t);
void launch_mlp_thread_vectors(const float*, const float*, const float*, float*, int, cudaStream_t);
void launch_option_block_per_option(const float*, float*, int, int, float, cudaStream_t);
void launch_option_even_slices(const float*, float*, int, int, float, cudaStream_t);
void launch_halfmm_hfma2(const void*, const void*, void*, int, int, int, cudaStream_t);
void launch_halfmm_wmma(const void*, const void*, void*, int, int, int, cudaStream_t);
void launch_imgstats_block_per_image(const void*, float*, int, int64_t, cudaStream_t);
void launch_imgstats_split(const void*, float*, int, int64_t, cudaStream_t);
void launch_piecewise_mixed(const float*, const float*, float*, int, cudaStream_t);
void launch_piecewise_grouped(const float*, const float*, float*, int, cudaStream_t);

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
torch::Tensor amax(const torch::Tensor& x, void (*launch)(const void*, float*, int, cudaStream_t)) {
  check(x, torch::kBFloat16);
  TORCH_CHECK(x.numel() % 8 == 0, "a multiple of 8 values (16-byte vectors)");
  auto out = torch::empty({}, x.options().dtype(torch::kFloat));  // zeroed by the launcher
  launch(x.data_ptr(), out.data_ptr<float>(), narrow(x.numel()), stream());
  return out;
}
torch::Tensor bitrev(const torch::Tensor& x, void (*launch)(const float*, float*, int, cudaStream_t)) {
  check(x, torch::kFloat);
  TORCH_CHECK(x.dim() == 2 && x.size(1) == 4096, "expected rows of 4096");
  auto y = torch::empty_like(x);
  launch(x.data_ptr<float>(), y.data_ptr<float>(), narrow(x.size(0)), stream());
  return y;
}
torch::Tensor prefix(const torch::Tensor& x, void (*launch)(const float*, float*, int, cudaStream_t)) {
  check(x, torch::kFloat);
  TORCH_CHECK(x.dim() == 2 && x.size(1) == 1024, "expected rows of 1024");
  auto y = torch::empty_like(x);
  launch(x.data_ptr<float>(), y.data_ptr<float>(), narrow(x.size(0)), stream());
  return y;
}
torch::Tensor frame(const torch::Tensor& img, int64_t size,
                    void (*launch)(const unsigned char*, float*, int, int, int, int, cudaStream_t)) {
  check(img, torch::kByte);
  TORCH_CHECK(img.dim() == 3 && img.size(2) == 3, "expected an h x w x 3 frame");
  auto out = torch::empty({3, size, size}, img.options().dtype(torch::kFloat));
  launch(img.data_ptr<uint8_t>(), out.data_ptr<float>(), narrow(img.size(0)), narrow(img.size(1)), narrow(size),
         narrow(size), stream());
  return out;
}
torch::Tensor spmv(const torch::Tensor& row_ptr, const torch::Tensor& cols, const torch::Tensor& vals,
                   const torch::Tensor& x,
                   void (*launch)(const int*, const int*, const float*, const float*, float*, int, int, cudaStream_t)) {
  check(row_ptr, torch::kInt);
  check(cols, torch::kInt);
  check(vals, torch::kFloat);
  check(x, torch::kFloat);
  TORCH_CHECK(row_ptr.dim() == 1 && row_ptr.numel() >= 2 && cols.numel() == vals.numel(),
              "expected CSR offsets of rows + 1 and a column per value");
  auto y = torch::empty({row_ptr.numel() - 1}, vals.options());  // written or zeroed by the launcher
  launch(row_ptr.data_ptr<int>(), cols.data_ptr<int>(), vals.data_ptr<float>(), x.data_ptr<float>(),
         y.data_ptr<float>(), narrow(row_ptr.numel() - 1), narrow(vals.numel()), stream());
  return y;
}
torch::Tensor transpose(const torch::Tensor& x, void (*launch)(const double*, double*, int, int, cudaStream_t)) {
  check(x, torch::kDouble);
  TORCH_CHECK(x.dim() == 3 && x.size(1) == x.size(2) && x.size(1) % 128 == 0 && x.size(0) <= 65535,
              "expected a batch of square matrices, a multiple of 128 on a side");
  auto y = torch::empty_like(x);
  launch(x.data_ptr<double>(), y.data_ptr<double>(), narrow(x.size(0)), narrow(x.size(1)), stream());
  return y;
}
torch::Tensor kmeans(const torch::Tensor& points, const torch::Tensor& centroids,
                     void (*launch)(const float*, const float*, int*, int, cudaStream_t)) {
  check(points, torch::kFloat);
  check(centroids, torch::kFloat);
  TORCH_CHECK(points.dim() == 2 && points.size(1) == 4 && centroids.dim() == 2 && centroids.size(0) == 32 &&
                  centroids.size(1) == 4, "expected points of 4 and 32 centroids of 4");
  auto labels = torch::empty({points.size(0)}, points.options().dtype(torch::kInt));
  launch(points.data_ptr<float>(), centroids.data_ptr<float>(), labels.data_ptr<int>(), narrow(points.size(0)),
         stream());
  return labels;
}
torch::Tensor mlp(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                  void (*launch)(const float*, const float*, const float*, float*, int, cudaStream_t)) {
  check(x, torch::kFloat);
  check(w, torch::kFloat);
  check(b, torch::kFloat);
  TORCH_CHECK(x.dim() == 2 && x.size(1) == 32 && x.size(0) % 32 == 0, "expected vectors of 32, a multiple of 32");
  TORCH_CHECK(w.numel() == 2 * 32 * 32 && b.numel() == 2 * 32, "expected 2 layers of 32 x 32 and biases of 32");
  auto y = torch::empty_like(x);
  launch(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), narrow(x.size(0)),
         stream());
  return y;
}
torch::Tensor calls(const torch::Tensor& params, int64_t nodes, double rate,
                      void (*launch)(const float*, float*, int, int, float, cudaStream_t)) {
  check(params, torch::kFloat);
  TORCH_CHECK(params.dim() == 2 && params.size(1) == 4 && params.size(0) <= 2147483647LL / nodes,
              "expected options as rows of (spot, strike, maturity, volatility)");
  auto price = torch::empty({params.size(0)}, params.options());  // written or zeroed by the launcher
  launch(params.data_ptr<float>(), price.data_ptr<float>(), narrow(params.size(0)), narrow(nodes),
         static_cast<float>(rate), stream());
  return price;
}
torch::Tensor halfmm(const torch::Tensor& a, const torch::Tensor& b,
                     void (*launch)(const void*, const void*, void*, int, int, int, cudaStream_t)) {
  check(a, torch::kHalf);
  check(b, torch::kHalf);
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0) && a.size(0) % 128 == 0 &&
                  b.size(1) % 128 == 0 && a.size(1) % 32 == 0 && a.size(0) / 128 <= 65535,
              "expected a of m x k and b of k x n, m and n multiples of 128, k of 32");
  auto c = torch::empty({a.size(0), b.size(1)}, a.options());
  launch(a.data_ptr(), b.data_ptr(), c.data_ptr(), narrow(a.size(0)), narrow(b.size(1)), narrow(a.size(1)),
         stream());
  return c;
}
torch::Tensor imgstats(const torch::Tensor& x, void (*launch)(const void*, float*, int, int64_t, cudaStream_t)) {
  check(x, torch::kHalf);
  TORCH_CHECK(x.dim() == 3 && x.size(0) <= 65535, "expected a batch of images");
  const int64_t per_image = x.size(1) * x.size(2);
  TORCH_CHECK(per_image % (8 * 128) == 0, "an image a multiple of 1024 values (128 parts of 16-byte vectors)");
  auto out = torch::empty({x.size(0), 2}, x.options().dtype(torch::kFloat));  // written or zeroed by the launcher
  launch(x.data_ptr(), out.data_ptr<float>(), narrow(x.size(0)), per_image, stream());
  return out;
}
torch::Tensor piecewise(const torch::Tensor& x, const torch::Tensor& coef,
                        void (*launch)(const float*, const float*, float*, int, cudaStream_t)) {
  check(x, torch::kFloat);
  check(coef, torch::kFloat);
  TORCH_CHECK(x.numel() % 1024 == 0, "a multiple of 1024 values");
  TORCH_CHECK(coef.dim() == 2 && coef.size(0) == 4 && coef.size(1) == 96, "expected 4 x 96 coefficients");
  auto y = torch::empty_like(x);
  launch(x.data_ptr<float>(), coef.data_ptr<float>(), y.data_ptr<float>(), narrow(x.numel()), stream());
  return y;
}
} // namespace

torch::Tensor amax_thread(torch::Tensor x) { return amax(x, launch_amax_thread_atomic); }
torch::Tensor amax_block(torch::Tensor x) { return amax(x, launch_amax_block_atomic); }
torch::Tensor bitrev_direct(torch::Tensor x) { return bitrev(x, launch_bitrev_rows_direct); }
torch::Tensor bitrev_skewed(torch::Tensor x) { return bitrev(x, launch_bitrev_rows_skewed); }
torch::Tensor prefix_hillis(torch::Tensor x) { return prefix(x, launch_prefix_hillis_steele); }
torch::Tensor prefix_warp(torch::Tensor x) { return prefix(x, launch_prefix_warp_scan); }
torch::Tensor frame_prep(torch::Tensor img, int64_t size) { return frame(img, size, launch_frame_prep_bilinear); }
torch::Tensor spmv_rows(torch::Tensor row_ptr, torch::Tensor cols, torch::Tensor vals, torch::Tensor x) { return spmv(row_ptr, cols, vals, x, launch_spmv_warp_rows); }
torch::Tensor spmv_chunks(torch::Tensor row_ptr, torch::Tensor cols, torch::Tensor vals, torch::Tensor x) { return spmv(row_ptr, cols, vals, x, launch_spmv_nnz_chunks); }
torch::Tensor transpose_wide(torch::Tensor x) { return transpose(x, launch_transpose_f64_wide_tiles); }
torch::Tensor transpose_small(torch::Tensor x) { return transpose(x, launch_transpose_f64_small_tiles); }
torch::Tensor kmeans_registers(torch::Tensor points, torch::Tensor centroids) { return kmeans(points, centroids, launch_kmeans_register_centroids); }
torch::Tensor kmeans_constants(torch::Tensor points, torch::Tensor centroids) { return kmeans(points, centroids, launch_kmeans_constant_centroids); }
torch::Tensor mlp_lanes(torch::Tensor x, torch::Tensor w, torch::Tensor b) { return mlp(x, w, b, launch_mlp_shuffle_lanes); }
torch::Tensor mlp_threads(torch::Tensor x, torch::Tensor w, torch::Tensor b) { return mlp(x, w, b, launch_mlp_thread_vectors); }
torch::Tensor option_blocks(torch::Tensor params, int64_t nodes, double rate) { return calls(params, nodes, rate, launch_option_block_per_option); }
torch::Tensor option_slices(torch::Tensor params, int64_t nodes, double rate) { return calls(params, nodes, rate, launch_option_even_slices); }
torch::Tensor halfmm_hfma2(torch::Tensor a, torch::Tensor b) { return halfmm(a, b, launch_halfmm_hfma2); }
torch::Tensor halfmm_wmma(torch::Tensor a, torch::Tensor b) { return halfmm(a, b, launch_halfmm_wmma); }
torch::Tensor imgstats_per_image(torch::Tensor x) { return imgstats(x, launch_imgstats_block_per_image); }
torch::Tensor imgstats_split(torch::Tensor x) { return imgstats(x, launch_imgstats_split); }
torch::Tensor piecewise_mixed(torch::Tensor x, torch::Tensor coef) { return piecewise(x, coef, launch_piecewise_mixed); }
torch::Tensor piecewise_grouped(torch::Tensor x, torch::Tensor coef) { return piecewise(x, coef, launch_piecewise_grouped); }
"""

FUNCTIONS = [
    "amax_thread", "amax_block", "bitrev_direct", "bitrev_skewed", "prefix_hillis", "prefix_warp", "frame_prep",
    "spmv_rows", "spmv_chunks", "transpose_wide", "transpose_small", "kmeans_registers", "kmeans_constants",
    "mlp_lanes", "mlp_threads", "option_blocks", "option_slices", "halfmm_hfma2", "halfmm_wmma",
    "imgstats_per_image", "imgstats_split", "piecewise_mixed", "piecewise_grouped",
]

# The built extension (built on the first call of the machine, loaded after that).
module = inline_build.cached_loader(NAME, SOURCE, CPP_SOURCE, FUNCTIONS)

if __name__ == "__main__":
    inline_build.build_ahead(NAME, FUNCTIONS, module)

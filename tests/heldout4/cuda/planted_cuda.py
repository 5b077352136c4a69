"""The CUDA C++ kernels of the fourth held-out suite as one torch extension.

The file name is the one bench/device/steps/record-planted.sh builds ahead of profiling
($PLANTED_SUITE/cuda/planted_cuda.py); the kernel files import it the way tests/planted's do.
`module()` builds tests/heldout4/cuda/heldout4.cu with torch.utils.cpp_extension.load_inline and
`extra_cuda_cflags=["-lineinfo"]` (once per machine: torch caches the build under
$TORCH_EXTENSIONS_DIR, keyed by the name, the sources and the flags) and returns it. The CUDA
source goes in behind a `#line 1 "<absolute path of heldout4.cu>"` directive, so the line info
(and ncu's source page) names heldout4.cu and its own line numbers instead of the copy load_inline
writes into its build directory.

Run as a script to build it ahead of profiling: `python3 tests/heldout4/cuda/planted_cuda.py`.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "planted", "cuda"))
import inline_build  # noqa: E402  (tests/planted/cuda/inline_build.py)

SOURCE = os.path.join(HERE, "heldout4.cu")
NAME = "kprof_heldout4_cuda"

# The torch side: tensors in, the launchers of heldout4.cu called on torch's current stream. Each
# public function is one line that names its launcher (tests/python/test_heldout_suite.py reads
# them).
CPP_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>

void launch_list_walk_hops(const int*, const int*, int*, int, int, cudaStream_t);
void launch_scores_fma_tile(const void*, const void*, void*, int, int, float, cudaStream_t);
void launch_scores_wmma_tile(const void*, const void*, void*, int, int, float, cudaStream_t);
void launch_gemv_lane_per_row(const void*, const void*, float*, int, int, cudaStream_t);
void launch_gemv_warp_per_row(const void*, const void*, float*, int, int, cudaStream_t);
void launch_mixroot_branchy(const float*, const unsigned char*, float*, int, int, cudaStream_t);
void launch_mixroot_grouped(const float*, const unsigned char*, float*, int, int, cudaStream_t);
void launch_luma_bins_thread_major(const void*, int*, int, cudaStream_t);
void launch_luma_bins_bin_major(const void*, int*, int, cudaStream_t);
void launch_gauss_tiles_tail(const float*, float*, int, cudaStream_t);
void launch_gauss_persistent(const float*, float*, int, cudaStream_t);
void launch_ragged_segment_blocks(const float*, const int64_t*, float*, int, int64_t, cudaStream_t);
void launch_ragged_even_chunks(const float*, const int64_t*, float*, int, int64_t, cudaStream_t);
void launch_cosine_tree_barriers(const void*, const void*, float*, int, cudaStream_t);
void launch_cosine_warp_rows(const void*, const void*, float*, int, cudaStream_t);
void launch_conv_taps_shared(const float*, const float*, float*, int, int, cudaStream_t);
void launch_conv_taps_register(const float*, const float*, float*, int, int, cudaStream_t);
void launch_lut_narrow_blocks(const void*, const void*, void*, int, cudaStream_t);
void launch_lut_wide_blocks(const void*, const void*, void*, int, cudaStream_t);

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
torch::Tensor walk(const torch::Tensor& nodes, const torch::Tensor& heads, int64_t hops,
                   void (*launch)(const int*, const int*, int*, int, int, cudaStream_t)) {
  check(nodes, torch::kInt);
  check(heads, torch::kInt);
  TORCH_CHECK(nodes.dim() == 2 && nodes.size(1) == 2, "expected the nodes as an n x 2 matrix {next, weight}");
  auto sums = torch::empty_like(heads);
  launch(nodes.data_ptr<int>(), heads.data_ptr<int>(), sums.data_ptr<int>(), narrow(heads.numel()), narrow(hops),
         stream());
  return sums;
}
torch::Tensor scores(const torch::Tensor& q, const torch::Tensor& k,
                     void (*launch)(const void*, const void*, void*, int, int, float, cudaStream_t)) {
  check(q, torch::kBFloat16);
  check(k, torch::kBFloat16);
  TORCH_CHECK(q.dim() == 3 && q.sizes() == k.sizes() && q.size(2) == 64 && q.size(1) % 128 == 0 &&
                  q.size(0) <= 65535, "expected q and k of heads x len x 64, len a multiple of 128");
  auto s = torch::empty({q.size(0), q.size(1), q.size(1)}, q.options());
  launch(q.data_ptr(), k.data_ptr(), s.data_ptr(), narrow(q.size(0)), narrow(q.size(1)),
         static_cast<float>(1.0 / std::sqrt(static_cast<double>(q.size(2)))), stream());
  return s;
}
torch::Tensor gemv(const torch::Tensor& w, const torch::Tensor& x,
                   void (*launch)(const void*, const void*, float*, int, int, cudaStream_t)) {
  check(w, torch::kHalf);
  check(x, torch::kHalf);
  TORCH_CHECK(w.dim() == 2 && x.dim() == 1 && w.size(1) == x.size(0) && x.size(0) % 8 == 0 && x.size(0) <= 1024,
              "expected w of m x k and x of k, k a multiple of 8 and at most 1024");
  TORCH_CHECK(w.numel() < (1LL << 31), "w must have fewer than 2^31 values");
  auto y = torch::empty({w.size(0)}, w.options().dtype(torch::kFloat));
  launch(w.data_ptr(), x.data_ptr(), y.data_ptr<float>(), narrow(w.size(0)), narrow(w.size(1)), stream());
  return y;
}
torch::Tensor mixroot(const torch::Tensor& x, const torch::Tensor& kind, int64_t iters,
                      void (*launch)(const float*, const unsigned char*, float*, int, int, cudaStream_t)) {
  check(x, torch::kFloat);
  check(kind, torch::kByte);
  TORCH_CHECK(x.numel() == kind.numel(), "a kind per value");
  auto out = torch::empty_like(x);
  launch(x.data_ptr<float>(), kind.data_ptr<uint8_t>(), out.data_ptr<float>(), narrow(x.numel()), narrow(iters),
         stream());
  return out;
}
torch::Tensor luma(const torch::Tensor& px, void (*launch)(const void*, int*, int, cudaStream_t)) {
  check(px, torch::kByte);
  TORCH_CHECK(px.numel() % 16 == 0, "a multiple of 16 values (16-byte vectors)");
  auto counts = torch::empty({32}, px.options().dtype(torch::kInt));  // zeroed by the launcher
  launch(px.data_ptr(), counts.data_ptr<int>(), narrow(px.numel()), stream());
  return counts;
}
torch::Tensor gauss(const torch::Tensor& a, void (*launch)(const float*, float*, int, cudaStream_t)) {
  check(a, torch::kFloat);
  auto out = torch::empty_like(a);
  launch(a.data_ptr<float>(), out.data_ptr<float>(), narrow(a.numel()), stream());
  return out;
}
torch::Tensor ragged(const torch::Tensor& values, const torch::Tensor& offsets,
                     void (*launch)(const float*, const int64_t*, float*, int, int64_t, cudaStream_t)) {
  check(values, torch::kFloat);
  check(offsets, torch::kLong);
  TORCH_CHECK(offsets.dim() == 1 && offsets.numel() >= 2, "expected offsets of segments + 1");
  const int64_t segments = offsets.numel() - 1;
  TORCH_CHECK(segments <= 2147483647LL, "too many segments");
  auto out = torch::empty({segments}, values.options());  // written or zeroed by the launcher
  launch(values.data_ptr<float>(), offsets.data_ptr<int64_t>(), out.data_ptr<float>(), static_cast<int>(segments),
         values.numel(), stream());
  return out;
}
torch::Tensor cosine(const torch::Tensor& a, const torch::Tensor& b,
                     void (*launch)(const void*, const void*, float*, int, cudaStream_t)) {
  check(a, torch::kBFloat16);
  check(b, torch::kBFloat16);
  TORCH_CHECK(a.dim() == 2 && a.sizes() == b.sizes() && a.size(1) == 256, "expected two matrices of rows of 256");
  auto out = torch::empty({a.size(0)}, a.options().dtype(torch::kFloat));
  launch(a.data_ptr(), b.data_ptr(), out.data_ptr<float>(), narrow(a.size(0)), stream());
  return out;
}
torch::Tensor conv(const torch::Tensor& x, const torch::Tensor& w,
                   void (*launch)(const float*, const float*, float*, int, int, cudaStream_t)) {
  check(x, torch::kFloat);
  check(w, torch::kFloat);
  TORCH_CHECK(x.dim() == 2 && x.size(1) % 2048 == 0 && x.size(0) <= 65535 && w.numel() == 65,
              "expected signals of a multiple of 2048 samples and 65 taps");
  auto y = torch::empty_like(x);
  launch(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), narrow(x.size(0)), narrow(x.size(1)),
         stream());
  return y;
}
torch::Tensor lut(const torch::Tensor& x, const torch::Tensor& table,
                  void (*launch)(const void*, const void*, void*, int, cudaStream_t)) {
  check(x, torch::kHalf);
  check(table, torch::kHalf);
  TORCH_CHECK(x.numel() % 8 == 0, "a multiple of 8 values (16-byte vectors)");
  TORCH_CHECK(table.numel() == 65536, "a table entry for each of the 65536 halves");
  auto out = torch::empty_like(x);
  launch(x.data_ptr(), table.data_ptr(), out.data_ptr(), narrow(x.numel()), stream());
  return out;
}
} // namespace

torch::Tensor list_walk(torch::Tensor nodes, torch::Tensor heads, int64_t hops) { return walk(nodes, heads, hops, launch_list_walk_hops); }
torch::Tensor scores_fma(torch::Tensor q, torch::Tensor k) { return scores(q, k, launch_scores_fma_tile); }
torch::Tensor scores_wmma(torch::Tensor q, torch::Tensor k) { return scores(q, k, launch_scores_wmma_tile); }
torch::Tensor gemv_lane_rows(torch::Tensor w, torch::Tensor x) { return gemv(w, x, launch_gemv_lane_per_row); }
torch::Tensor gemv_warp_rows(torch::Tensor w, torch::Tensor x) { return gemv(w, x, launch_gemv_warp_per_row); }
torch::Tensor mixroot_branchy(torch::Tensor x, torch::Tensor kind, int64_t iters) { return mixroot(x, kind, iters, launch_mixroot_branchy); }
torch::Tensor mixroot_grouped(torch::Tensor x, torch::Tensor kind, int64_t iters) { return mixroot(x, kind, iters, launch_mixroot_grouped); }
torch::Tensor luma_thread_major(torch::Tensor px) { return luma(px, launch_luma_bins_thread_major); }
torch::Tensor luma_bin_major(torch::Tensor px) { return luma(px, launch_luma_bins_bin_major); }
torch::Tensor gauss_tiles(torch::Tensor a) { return gauss(a, launch_gauss_tiles_tail); }
torch::Tensor gauss_persistent(torch::Tensor a) { return gauss(a, launch_gauss_persistent); }
torch::Tensor ragged_blocks(torch::Tensor values, torch::Tensor offsets) { return ragged(values, offsets, launch_ragged_segment_blocks); }
torch::Tensor ragged_chunks(torch::Tensor values, torch::Tensor offsets) { return ragged(values, offsets, launch_ragged_even_chunks); }
torch::Tensor cosine_tree(torch::Tensor a, torch::Tensor b) { return cosine(a, b, launch_cosine_tree_barriers); }
torch::Tensor cosine_warp(torch::Tensor a, torch::Tensor b) { return cosine(a, b, launch_cosine_warp_rows); }
torch::Tensor conv_shared(torch::Tensor x, torch::Tensor w) { return conv(x, w, launch_conv_taps_shared); }
torch::Tensor conv_register(torch::Tensor x, torch::Tensor w) { return conv(x, w, launch_conv_taps_register); }
torch::Tensor lut_narrow(torch::Tensor x, torch::Tensor table) { return lut(x, table, launch_lut_narrow_blocks); }
torch::Tensor lut_wide(torch::Tensor x, torch::Tensor table) { return lut(x, table, launch_lut_wide_blocks); }
"""

FUNCTIONS = [
    "list_walk", "scores_fma", "scores_wmma", "gemv_lane_rows", "gemv_warp_rows", "mixroot_branchy",
    "mixroot_grouped", "luma_thread_major", "luma_bin_major", "gauss_tiles", "gauss_persistent",
    "ragged_blocks", "ragged_chunks", "cosine_tree", "cosine_warp", "conv_shared", "conv_register",
    "lut_narrow", "lut_wide",
]

# The built extension (built on the first call of the machine, loaded after that).
module = inline_build.cached_loader(NAME, SOURCE, CPP_SOURCE, FUNCTIONS)

if __name__ == "__main__":
    inline_build.build_ahead(NAME, FUNCTIONS, module)

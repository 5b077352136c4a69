"""The CUDA C++ kernels of the planted-defect suite as one torch extension.

`module()` builds tests/planted/cuda/planted.cu with torch.utils.cpp_extension.load_inline and
`extra_cuda_cflags=["-lineinfo"]` (once per machine: torch caches the build under
$TORCH_EXTENSIONS_DIR, keyed by the sources and flags) and returns it. The CUDA source goes in
behind a `#line 1 "<absolute path of planted.cu>"` directive, so the line info (and ncu's source
page) names planted.cu and its own line numbers instead of the copy load_inline writes into its
build directory.

Run as a script to build it ahead of profiling: `python3 tests/planted/cuda/planted_cuda.py`.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import inline_build  # noqa: E402  (tests/planted/cuda/inline_build.py)

SOURCE = os.path.join(HERE, "planted.cu")
NAME = "kprof_planted_cuda"

# The torch side: tensors in, the launchers of planted.cu called on torch's current stream.
CPP_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

void launch_strided_read(const float*, float*, int, cudaStream_t);
void launch_contiguous_read(const float*, float*, int, cudaStream_t);
void launch_few_blocks_scale(const float*, float*, int, cudaStream_t);
void launch_many_blocks_scale(const float*, float*, int, cudaStream_t);
void launch_smem_heavy_scale(const float*, float*, int, cudaStream_t);
void launch_smem_free_scale(const float*, float*, int, cudaStream_t);
void launch_lane_divergent(const float*, float*, int, int, cudaStream_t);
void launch_warp_uniform(const float*, float*, int, int, cudaStream_t);
void launch_lane_trip_count(const float*, float*, int, cudaStream_t);
void launch_warp_trip_count(const float*, float*, int, cudaStream_t);
void launch_smem_row_per_thread(const float*, float*, int, int, cudaStream_t);
void launch_smem_column_per_thread(const float*, float*, int, int, cudaStream_t);
void launch_transpose_smem(const float*, float*, int, int, cudaStream_t);
void launch_transpose_smem_padded(const float*, float*, int, int, cudaStream_t);
void launch_spilling_poly(const float*, float*, int, int, cudaStream_t);
void launch_register_poly(const float*, float*, int, int, cudaStream_t);
void launch_histogram_atomic(const int*, int*, int, cudaStream_t);
void launch_histogram_block(const int*, int*, int, cudaStream_t);
void launch_tiny_axpy(const float*, float*, int, cudaStream_t);
void launch_batched_axpy(const float*, float*, int, cudaStream_t);
void launch_pointer_chase(const int*, int*, int, int, cudaStream_t);
void launch_independent_loads(const int*, int*, int, int, cudaStream_t);
void launch_tail_wave(const float*, float*, int, int, cudaStream_t);
void launch_full_waves(const float*, float*, int, int, cudaStream_t);
void launch_skewed_work(const float*, float*, int, int, cudaStream_t);
void launch_even_work(const float*, float*, int, int, cudaStream_t);
void launch_single_producer(const float*, float*, int, int, cudaStream_t);
void launch_all_threads_produce(const float*, float*, int, int, cudaStream_t);
void launch_single_producer_wide(const float*, float*, int, int, cudaStream_t);
void launch_all_threads_produce_wide(const float*, float*, int, int, cudaStream_t);
void launch_shared_reread(const float*, float*, int, int, cudaStream_t);
void launch_register_reuse(const float*, float*, int, int, cudaStream_t);
void launch_shared_reread_wide(const float*, float*, int, int, cudaStream_t);
void launch_register_reuse_wide(const float*, float*, int, int, cudaStream_t);
void launch_vector_copy(const float*, float*, int, cudaStream_t);
void launch_fused_silu_axpb(const float*, float*, int, cudaStream_t);

namespace {
cudaStream_t stream() { return at::cuda::getCurrentCUDAStream(); }
void check(const torch::Tensor& t, torch::ScalarType type) {
  TORCH_CHECK(t.is_cuda() && t.is_contiguous() && t.scalar_type() == type,
              "expected a contiguous CUDA tensor of ", type);
}
torch::Tensor unary(const torch::Tensor& x, int64_t n,
                    void (*launch)(const float*, float*, int, cudaStream_t)) {
  check(x, torch::kFloat);
  TORCH_CHECK(n <= x.numel(), "n exceeds the input");
  auto y = torch::empty({n}, x.options());
  launch(x.data_ptr<float>(), y.data_ptr<float>(), static_cast<int>(n), stream());
  return y;
}
torch::Tensor unary_iters(const torch::Tensor& x, int64_t n, int64_t iters,
                          void (*launch)(const float*, float*, int, int, cudaStream_t)) {
  check(x, torch::kFloat);
  TORCH_CHECK(n <= x.numel(), "n exceeds the input");
  auto y = torch::empty({n}, x.options());
  launch(x.data_ptr<float>(), y.data_ptr<float>(), static_cast<int>(n),
         static_cast<int>(iters), stream());
  return y;
}
torch::Tensor smem_reads(const torch::Tensor& x, int64_t reps,
                         void (*launch)(const float*, float*, int, int, cudaStream_t)) {
  check(x, torch::kFloat);
  TORCH_CHECK(x.numel() % 1024 == 0, "the input must hold whole 32x32 tiles");
  auto y = torch::empty({x.numel() / 4}, x.options());
  launch(x.data_ptr<float>(), y.data_ptr<float>(), static_cast<int>(x.numel()),
         static_cast<int>(reps), stream());
  return y;
}
torch::Tensor transpose(const torch::Tensor& x,
                        void (*launch)(const float*, float*, int, int, cudaStream_t)) {
  check(x, torch::kFloat);
  TORCH_CHECK(x.dim() == 2 && x.size(0) % 32 == 0 && x.size(1) % 32 == 0,
              "expected a matrix of whole 32x32 tiles");
  auto out = torch::empty({x.size(1), x.size(0)}, x.options());
  launch(x.data_ptr<float>(), out.data_ptr<float>(), static_cast<int>(x.size(0)),
         static_cast<int>(x.size(1)), stream());
  return out;
}
torch::Tensor histogram(const torch::Tensor& x,
                        void (*launch)(const int*, int*, int, cudaStream_t)) {
  check(x, torch::kInt);
  auto bins = torch::zeros({4}, x.options());
  launch(x.data_ptr<int>(), bins.data_ptr<int>(), static_cast<int>(x.numel()), stream());
  return bins;
}
torch::Tensor chase(const torch::Tensor& next, int64_t n, int64_t steps,
                    void (*launch)(const int*, int*, int, int, cudaStream_t)) {
  check(next, torch::kInt);
  TORCH_CHECK(n * steps <= next.numel(), "n * steps exceeds the permutation");
  auto out = torch::empty({n}, next.options());
  launch(next.data_ptr<int>(), out.data_ptr<int>(), static_cast<int>(n), static_cast<int>(steps),
         stream());
  return out;
}
} // namespace

torch::Tensor strided_read(torch::Tensor x, int64_t n) { return unary(x, n, launch_strided_read); }
torch::Tensor contiguous_read(torch::Tensor x, int64_t n) { return unary(x, n, launch_contiguous_read); }
torch::Tensor few_blocks_scale(torch::Tensor x, int64_t n) { return unary(x, n, launch_few_blocks_scale); }
torch::Tensor many_blocks_scale(torch::Tensor x, int64_t n) { return unary(x, n, launch_many_blocks_scale); }
torch::Tensor smem_heavy_scale(torch::Tensor x, int64_t n) { return unary(x, n, launch_smem_heavy_scale); }
torch::Tensor smem_free_scale(torch::Tensor x, int64_t n) { return unary(x, n, launch_smem_free_scale); }
torch::Tensor lane_divergent(torch::Tensor x, int64_t n, int64_t iters) { return unary_iters(x, n, iters, launch_lane_divergent); }
torch::Tensor warp_uniform(torch::Tensor x, int64_t n, int64_t iters) { return unary_iters(x, n, iters, launch_warp_uniform); }
torch::Tensor lane_trip_count(torch::Tensor x, int64_t n) { return unary(x, n, launch_lane_trip_count); }
torch::Tensor warp_trip_count(torch::Tensor x, int64_t n) { return unary(x, n, launch_warp_trip_count); }
torch::Tensor smem_row_per_thread(torch::Tensor x, int64_t reps) { return smem_reads(x, reps, launch_smem_row_per_thread); }
torch::Tensor smem_column_per_thread(torch::Tensor x, int64_t reps) { return smem_reads(x, reps, launch_smem_column_per_thread); }
torch::Tensor transpose_smem(torch::Tensor x) { return transpose(x, launch_transpose_smem); }
torch::Tensor transpose_smem_padded(torch::Tensor x) { return transpose(x, launch_transpose_smem_padded); }
torch::Tensor spilling_poly(torch::Tensor x, int64_t n, int64_t rounds) { return unary_iters(x, n, rounds, launch_spilling_poly); }
torch::Tensor register_poly(torch::Tensor x, int64_t n, int64_t rounds) { return unary_iters(x, n, rounds, launch_register_poly); }
torch::Tensor histogram_atomic(torch::Tensor x) { return histogram(x, launch_histogram_atomic); }
torch::Tensor histogram_block(torch::Tensor x) { return histogram(x, launch_histogram_block); }
torch::Tensor tiny_axpy(torch::Tensor x, int64_t n) { return unary(x, n, launch_tiny_axpy); }
torch::Tensor batched_axpy(torch::Tensor x, int64_t n) { return unary(x, n, launch_batched_axpy); }
torch::Tensor pointer_chase(torch::Tensor next, int64_t n, int64_t steps) { return chase(next, n, steps, launch_pointer_chase); }
torch::Tensor independent_loads(torch::Tensor next, int64_t n, int64_t steps) { return chase(next, n, steps, launch_independent_loads); }
torch::Tensor tail_wave(torch::Tensor x, int64_t n, int64_t iters) { return unary_iters(x, n, iters, launch_tail_wave); }
torch::Tensor full_waves(torch::Tensor x, int64_t n, int64_t iters) { return unary_iters(x, n, iters, launch_full_waves); }
torch::Tensor skewed_work(torch::Tensor x, int64_t n, int64_t iters) { return unary_iters(x, n, iters, launch_skewed_work); }
torch::Tensor even_work(torch::Tensor x, int64_t n, int64_t iters) { return unary_iters(x, n, iters, launch_even_work); }
torch::Tensor single_producer(torch::Tensor x, int64_t n, int64_t rounds) { return unary_iters(x, n, rounds, launch_single_producer); }
torch::Tensor all_threads_produce(torch::Tensor x, int64_t n, int64_t rounds) { return unary_iters(x, n, rounds, launch_all_threads_produce); }
torch::Tensor single_producer_wide(torch::Tensor x, int64_t n, int64_t rounds) { return unary_iters(x, n, rounds, launch_single_producer_wide); }
torch::Tensor all_threads_produce_wide(torch::Tensor x, int64_t n, int64_t rounds) { return unary_iters(x, n, rounds, launch_all_threads_produce_wide); }
torch::Tensor shared_reread(torch::Tensor x, int64_t n, int64_t reps) { return unary_iters(x, n, reps, launch_shared_reread); }
torch::Tensor register_reuse(torch::Tensor x, int64_t n, int64_t reps) { return unary_iters(x, n, reps, launch_register_reuse); }
torch::Tensor shared_reread_wide(torch::Tensor x, int64_t n, int64_t reps) { return unary_iters(x, n, reps, launch_shared_reread_wide); }
torch::Tensor register_reuse_wide(torch::Tensor x, int64_t n, int64_t reps) { return unary_iters(x, n, reps, launch_register_reuse_wide); }
torch::Tensor vector_copy(torch::Tensor x, int64_t n) { return unary(x, n, launch_vector_copy); }
torch::Tensor fused_silu_axpb(torch::Tensor x, int64_t n) { return unary(x, n, launch_fused_silu_axpb); }
"""

FUNCTIONS = [
    "strided_read", "contiguous_read", "few_blocks_scale", "many_blocks_scale",
    "smem_heavy_scale", "smem_free_scale", "lane_divergent", "warp_uniform",
    "lane_trip_count", "warp_trip_count", "smem_row_per_thread", "smem_column_per_thread",
    "transpose_smem", "transpose_smem_padded", "spilling_poly", "register_poly",
    "histogram_atomic", "histogram_block",
    "tiny_axpy", "batched_axpy", "pointer_chase", "independent_loads", "tail_wave", "full_waves",
    "skewed_work", "even_work", "single_producer", "all_threads_produce", "single_producer_wide",
    "all_threads_produce_wide", "shared_reread", "register_reuse", "shared_reread_wide",
    "register_reuse_wide", "vector_copy", "fused_silu_axpb",
]

# The built extension (built on the first call of the machine, loaded after that).
module = inline_build.cached_loader(NAME, SOURCE, CPP_SOURCE, FUNCTIONS)

if __name__ == "__main__":
    inline_build.build_ahead(NAME, FUNCTIONS, module)

// The CUDA C++ kernels of the second held-out suite (tests/heldout2/README.md), built once into
// one extension by tests/heldout2/cuda/planted_cuda.py with torch's load_inline and -lineinfo.
// Written without reading the diagnosis rules. Each defect is followed by its clean twin; the
// expected category and line of every kernel are in tests/heldout2/manifest.json (this file's
// line numbers: keep them in step when editing).
//
// Only CUDA here (no torch headers), so that `nvcc -arch=sm_90 -c` checks it alone; the torch
// wrappers that call the launchers are in planted_cuda.py.
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// The sum of v over the block, returned to every thread (blockDim.x a multiple of 32, at most
// 1024; called once per block).
__device__ float block_sum(float v, float* partials) {
  for (int s = 16; s > 0; s >>= 1) {
    v += __shfl_xor_sync(0xffffffffu, v, s);
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    partials[warp] = v;
  }
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x >> 5) ? partials[lane] : 0.0f;
  for (int s = 16; s > 0; s >>= 1) {
    v += __shfl_xor_sync(0xffffffffu, v, s);
  }
  return v;
}

// --- kepler_f32: Kepler's equation E = M + e sin E by fixed-point iteration, an orbit a thread -

__global__ void kepler_lane_converge_kernel(const float* mean_anomaly, const float* eccentricity,
                                            float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  const float m = mean_anomaly[i];
  const float e = eccentricity[i];
  float E = m;
  float step = 1.0f;
  // Planted: each lane leaves the loop on its own test; eccentricities differ from lane to lane.
  for (int k = 0; k < 256 && fabsf(step) > 1e-6f * (1.0f + fabsf(E)); ++k) {
    const float next = m + e * sinf(E);
    step = next - E;
    E = next;
  }
  out[i] = E;
}

__global__ void kepler_warp_converge_kernel(const float* mean_anomaly, const float* eccentricity,
                                            float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = i < n;
  const float m = live ? mean_anomaly[i] : 0.0f;
  const float e = live ? eccentricity[i] : 0.0f;
  float E = m;
  bool busy = live;
  // The warp iterates until all of its lanes have converged; a converged lane stays at its
  // fixed point, so every lane runs every iteration of its warp.
  for (int k = 0; k < 256 && __any_sync(0xffffffffu, busy); ++k) {
    const float next = m + e * sinf(E);
    busy = fabsf(next - E) > 1e-6f * (1.0f + fabsf(next));
    E = next;
  }
  if (live) {
    out[i] = E;
  }
}

// --- l2norm_f32: rows of 24576 floats scaled to unit length, a block per row holding its row in
// 96 KiB of dynamic shared memory between the two passes ---------------------------------------

__device__ void rownorm_staged(const float* x, float* y, int cols) {
  extern __shared__ float row[];
  __shared__ float partials[32];
  const float* in = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float ss = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = in[c];
    row[c] = v;
    ss += v * v;
  }
  const float inv = 1.0f / fmaxf(sqrtf(block_sum(ss, partials)), 1e-12f);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    out[c] = row[c] * inv;
  }
}

// Planted (the launch): 128 threads per 96 KiB block, so an SM holds 2 blocks, 8 warps.
__global__ void __launch_bounds__(128) rownorm_staged_narrow_kernel(const float* x, float* y,
                                                                    int cols) {
  rownorm_staged(x, y, cols);
}

__global__ void __launch_bounds__(1024, 2) rownorm_staged_wide_kernel(const float* x, float* y,
                                                                      int cols) {
  rownorm_staged(x, y, cols);
}

// --- center_f16: each row of 4096 halves minus its mean, a 1024-thread block per row ----------

__global__ void __launch_bounds__(1024, 2) center_serial_sum_kernel(const __half* x, __half* y,
                                                                    int cols) {
  __shared__ float partial[1024];
  __shared__ float mean;
  const __half* in = x + static_cast<size_t>(blockIdx.x) * cols;
  __half* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    s += __half2float(in[c]);
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  // Planted: thread 0 adds up the 1024 partial sums alone while the block waits at the barrier.
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int k = 0; k < static_cast<int>(blockDim.x); ++k) {
      total += partial[k];
    }
    mean = total / static_cast<float>(cols);
  }
  __syncthreads();
  const float m = mean;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    out[c] = __float2half(__half2float(in[c]) - m);
  }
}

__global__ void __launch_bounds__(1024, 2) center_shuffle_sum_kernel(const __half* x, __half* y,
                                                                     int cols) {
  __shared__ float partials[32];
  const __half* in = x + static_cast<size_t>(blockIdx.x) * cols;
  __half* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    s += __half2float(in[c]);
  }
  const float m = block_sum(s, partials) / static_cast<float>(cols);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    out[c] = __float2half(__half2float(in[c]) - m);
  }
}

// --- cumsum_f32: running sums along rows of 32 floats. Each warp stages 32 rows in a shared tile
// (coalesced), each lane scans one row of it, and the warp writes the tile back (coalesced) ----

__global__ void row_scan_unpadded_kernel(const float* x, float* y, int rows) {
  __shared__ float tile[8][32][32];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row0 = (blockIdx.x * 8 + warp) * 32;
  if (row0 >= rows) {
    return;
  }
  float(*t)[32] = tile[warp];
  for (int r = 0; r < 32; ++r) {
    t[r][lane] = x[static_cast<size_t>(row0 + r) * 32 + lane];
  }
  __syncwarp();
  float s = 0.0f;
  // Planted: lane l walks row l of the tile, so the 32 lanes of a step hit one bank.
  for (int k = 0; k < 32; ++k) {
    s += t[lane][k];
    t[lane][k] = s;
  }
  __syncwarp();
  for (int r = 0; r < 32; ++r) {
    y[static_cast<size_t>(row0 + r) * 32 + lane] = t[r][lane];
  }
}

__global__ void row_scan_padded_kernel(const float* x, float* y, int rows) {
  __shared__ float tile[8][32][33];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row0 = (blockIdx.x * 8 + warp) * 32;
  if (row0 >= rows) {
    return;
  }
  float(*t)[33] = tile[warp];
  for (int r = 0; r < 32; ++r) {
    t[r][lane] = x[static_cast<size_t>(row0 + r) * 32 + lane];
  }
  __syncwarp();
  float s = 0.0f;
  // Rows of 33 floats: lane l's k-th value is in bank (l + k) % 32, one bank per lane.
  for (int k = 0; k < 32; ++k) {
    s += t[lane][k];
    t[lane][k] = s;
  }
  __syncwarp();
  for (int r = 0; r < 32; ++r) {
    y[static_cast<size_t>(row0 + r) * 32 + lane] = t[r][lane];
  }
}

// --- cdist_f32: L1 distances between the rows of a (n x k) and b (m x k), tiles of 16 over k ---

__global__ void cdist_l1_tile16_kernel(const float* a, const float* b, float* d, int m, int k) {
  __shared__ float as[16][17];
  __shared__ float bs[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * 16 + ty;
  const int j = blockIdx.x * 16 + tx;
  const float* arow = a + static_cast<size_t>(i) * k;
  const float* brow = b + static_cast<size_t>(blockIdx.x * 16 + ty) * k;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += 16) {
    as[ty][tx] = arow[k0 + tx];
    bs[ty][tx] = brow[k0 + tx];
    __syncthreads();
    // Planted: an output a thread, so each |a - b| reads both of its operands from shared memory.
    for (int kk = 0; kk < 16; ++kk) {
      acc += fabsf(as[ty][kk] - bs[tx][kk]);
    }
    __syncthreads();
  }
  d[static_cast<size_t>(i) * m + j] = acc;
}

// 128 x 128 outputs a block of 256 threads, 8 x 8 a thread (rows ty + 16 r, columns tx + 16 c):
// per step of k, 16 shared-memory loads feed 64 |a - b|. The tiles are stored k-major, rows of
// 130 floats, so that the transposing stores and the loads are free of bank conflicts.
__global__ void __launch_bounds__(256) cdist_l1_reg8x8_kernel(const float* a, const float* b,
                                                              float* d, int m, int k) {
  __shared__ float as[16][130];
  __shared__ float bs[16][130];
  const int tid = threadIdx.x;
  const int tx = tid & 15, ty = tid >> 4;
  const int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
  float acc[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r) {
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      acc[r][c] = 0.0f;
    }
  }
  for (int k0 = 0; k0 < k; k0 += 16) {
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const int f = s * 256 + tid;
      const int r = f >> 2, q = (f & 3) * 4;
      const float4 va =
          *reinterpret_cast<const float4*>(a + static_cast<size_t>(row0 + r) * k + k0 + q);
      const float4 vb =
          *reinterpret_cast<const float4*>(b + static_cast<size_t>(col0 + r) * k + k0 + q);
      as[q][r] = va.x;
      as[q + 1][r] = va.y;
      as[q + 2][r] = va.z;
      as[q + 3][r] = va.w;
      bs[q][r] = vb.x;
      bs[q + 1][r] = vb.y;
      bs[q + 2][r] = vb.z;
      bs[q + 3][r] = vb.w;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float av[8], bv[8];
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        av[t] = as[kk][ty + 16 * t];
        bv[t] = bs[kk][tx + 16 * t];
      }
#pragma unroll
      for (int r = 0; r < 8; ++r) {
#pragma unroll
        for (int c = 0; c < 8; ++c) {
          acc[r][c] += fabsf(av[r] - bv[c]);
        }
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 8; ++r) {
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      d[static_cast<size_t>(row0 + ty + 16 * r) * m + col0 + tx + 16 * c] = acc[r][c];
    }
  }
}

// --- tiny_bf16: RMS norm of 8 rows of 2048 bf16, a block of 256 threads per row ---------------

// Planted (the launch): the whole problem in one launch of 8 blocks, a few microseconds long.
__global__ void tiny_rmsnorm_bf16_kernel(const __nv_bfloat16* x, const __nv_bfloat16* w,
                                         __nv_bfloat16* y, int cols) {
  __shared__ float partials[32];
  const __nv_bfloat16* in = x + static_cast<size_t>(blockIdx.x) * cols;
  __nv_bfloat16* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float ss = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = __bfloat162float(in[c]);
    ss += v * v;
  }
  const float inv = rsqrtf(block_sum(ss, partials) / static_cast<float>(cols) + 1e-6f);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    out[c] = __float2bfloat16(__bfloat162float(in[c]) * inv * __bfloat162float(w[c]));
  }
}

// --- gelu_bf16: GELU (tanh form) over bf16, eight values (16 bytes) a thread and step ---------

__device__ __forceinline__ float gelu_tanh(float v) {
  // 0.5 v (1 + tanh(u)) = v * sigmoid(2 u)
  const float u = 0.7978845608f * (v + 0.044715f * v * v * v);
  return v / (1.0f + __expf(-2.0f * u));
}

__global__ void gelu_tanh_bf16x8_kernel(const uint4* x, uint4* y, int n8) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n8; i += gridDim.x * blockDim.x) {
    uint4 packed = x[i];
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&packed);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 f = __bfloat1622float2(h[j]);
      h[j] = __floats2bfloat162_rn(gelu_tanh(f.x), gelu_tanh(f.y));
    }
    y[i] = packed;
  }
}

// --- launchers (called by the torch wrappers in planted_cuda.py) ------------------------------

namespace {
int blocks_for(int64_t n, int threads) {
  return static_cast<int>((n + threads - 1) / threads);
}
int sm_count() {
  int device = 0, count = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
  return count;
}
} // namespace

void launch_kepler_lane_converge(const float* m, const float* e, float* out, int n,
                                 cudaStream_t s) {
  kepler_lane_converge_kernel<<<blocks_for(n, 256), 256, 0, s>>>(m, e, out, n);
}
void launch_kepler_warp_converge(const float* m, const float* e, float* out, int n,
                                 cudaStream_t s) {
  kepler_warp_converge_kernel<<<blocks_for(n, 256), 256, 0, s>>>(m, e, out, n);
}
// The row of `cols` floats is the block's dynamic shared memory (96 KiB for 24576).
void launch_rownorm_staged_narrow(const float* x, float* y, int rows, int cols, cudaStream_t s) {
  const int bytes = cols * static_cast<int>(sizeof(float));
  cudaFuncSetAttribute(rownorm_staged_narrow_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       bytes);
  rownorm_staged_narrow_kernel<<<rows, 128, bytes, s>>>(x, y, cols);
}
void launch_rownorm_staged_wide(const float* x, float* y, int rows, int cols, cudaStream_t s) {
  const int bytes = cols * static_cast<int>(sizeof(float));
  cudaFuncSetAttribute(rownorm_staged_wide_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       bytes);
  rownorm_staged_wide_kernel<<<rows, 1024, bytes, s>>>(x, y, cols);
}
void launch_center_serial_sum(const void* x, void* y, int rows, int cols, cudaStream_t s) {
  center_serial_sum_kernel<<<rows, 1024, 0, s>>>(static_cast<const __half*>(x),
                                                 static_cast<__half*>(y), cols);
}
void launch_center_shuffle_sum(const void* x, void* y, int rows, int cols, cudaStream_t s) {
  center_shuffle_sum_kernel<<<rows, 1024, 0, s>>>(static_cast<const __half*>(x),
                                                  static_cast<__half*>(y), cols);
}
// 8 warps a block, 32 rows a warp.
void launch_row_scan_unpadded(const float* x, float* y, int rows, cudaStream_t s) {
  row_scan_unpadded_kernel<<<blocks_for(rows, 256), 256, 0, s>>>(x, y, rows);
}
void launch_row_scan_padded(const float* x, float* y, int rows, cudaStream_t s) {
  row_scan_padded_kernel<<<blocks_for(rows, 256), 256, 0, s>>>(x, y, rows);
}
// n, m multiples of 128 and k of 16 (the wrapper checks).
void launch_cdist_l1_tile16(const float* a, const float* b, float* d, int n, int m, int k,
                            cudaStream_t s) {
  cdist_l1_tile16_kernel<<<dim3(m / 16, n / 16), dim3(16, 16), 0, s>>>(a, b, d, m, k);
}
void launch_cdist_l1_reg8x8(const float* a, const float* b, float* d, int n, int m, int k,
                            cudaStream_t s) {
  cdist_l1_reg8x8_kernel<<<dim3(m / 128, n / 128), 256, 0, s>>>(a, b, d, m, k);
}
void launch_tiny_rmsnorm_bf16(const void* x, const void* w, void* y, int rows, int cols,
                              cudaStream_t s) {
  tiny_rmsnorm_bf16_kernel<<<rows, 256, 0, s>>>(static_cast<const __nv_bfloat16*>(x),
                                                static_cast<const __nv_bfloat16*>(w),
                                                static_cast<__nv_bfloat16*>(y), cols);
}
// n a multiple of 8 (the wrapper checks).
void launch_gelu_tanh_bf16x8(const void* x, void* y, int n, cudaStream_t s) {
  gelu_tanh_bf16x8_kernel<<<sm_count() * 8, 256, 0, s>>>(static_cast<const uint4*>(x),
                                                         static_cast<uint4*>(y), n / 8);
}

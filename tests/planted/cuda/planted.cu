// The CUDA C++ kernels of the planted-defect suite (tests/planted/README.md), built once into
// one extension by tests/planted/cuda/planted_cuda.py with torch's load_inline and -lineinfo.
// Each defect has a clean twin right after it that differs only in the planted defect. The
// expected category and line of every kernel are in tests/planted/manifest.json (this file's
// line numbers: keep them in step when editing).
//
// Only CUDA here (no torch headers), so that `nvcc -arch=sm_90 -c` checks it alone; the torch
// wrappers that call the launchers are in planted_cuda.py.
#include <cstdint>
#include <cuda_runtime.h>

// --- uncoalesced access: every thread reads one float of each 32-byte sector -----------------

__global__ void strided_read_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i * 8];
    y[i] = 2.0f * v;
  }
}

__global__ void contiguous_read_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = 2.0f * v;
  }
}

// --- too few blocks: a grid-stride loop over 4 blocks, and over enough blocks -----------------

__global__ void few_blocks_scale_kernel(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = 3.0f * x[i] + 1.0f;
  }
}

__global__ void many_blocks_scale_kernel(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = 3.0f * x[i] + 1.0f;
  }
}

// --- low occupancy: 100 KiB of dynamic shared memory per 64-thread block (2 blocks per SM) ----

__global__ void smem_heavy_scale_kernel(const float* x, float* y, int n) {
  extern __shared__ float reserved[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 0.5f * x[i] - 1.0f;
  }
  if (n < 0) { // never: only keeps the shared array referenced
    reserved[threadIdx.x] = 0.0f;
  }
}

__global__ void smem_free_scale_kernel(const float* x, float* y, int n) {
  extern __shared__ float reserved[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 0.5f * x[i] - 1.0f;
  }
  if (n < 0) {
    reserved[threadIdx.x] = 0.0f;
  }
}

// --- warp divergence: odd and even lanes of every warp take different heavy branches ----------

__global__ void lane_divergent_kernel(const float* x, float* y, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  float v = x[i];
  if (threadIdx.x & 1) {
    for (int k = 0; k < iters; ++k) {
      v = __sinf(v) * 1.25f + 0.5f;
    }
  } else {
    for (int k = 0; k < iters; ++k) {
      v = __expf(-v * v) * 0.75f - 0.25f;
    }
  }
  y[i] = v;
}

__global__ void warp_uniform_kernel(const float* x, float* y, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  float v = x[i];
  if ((threadIdx.x >> 5) & 1) {
    for (int k = 0; k < iters; ++k) {
      v = __sinf(v) * 1.25f + 0.5f;
    }
  } else {
    for (int k = 0; k < iters; ++k) {
      v = __expf(-v * v) * 0.75f - 0.25f;
    }
  }
  y[i] = v;
}

// --- warp divergence: a trip count that differs from lane to lane -----------------------------

__global__ void lane_trip_count_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  float v = x[i];
  int trips = (i * 37) & 127;
  for (int k = 0; k < trips; ++k) {
    v = v * 0.999f + __sinf(v);
  }
  y[i] = v;
}

__global__ void warp_trip_count_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  float v = x[i];
  int trips = ((i >> 5) * 37) & 127;
  for (int k = 0; k < trips; ++k) {
    v = v * 0.999f + __sinf(v);
  }
  y[i] = v;
}

// --- shared-memory bank conflicts: reading a 32x32 tile by rows of a thread's own ------------

__global__ void smem_row_per_thread_kernel(const float* x, float* y, int reps) {
  __shared__ float tile[32][32];
  volatile float(*t)[32] = tile; // every read goes to shared memory
  const int tx = threadIdx.x, ty = threadIdx.y;
  const float* in = x + blockIdx.x * 1024;
  for (int r = ty; r < 32; r += 8) {
    tile[r][tx] = in[r * 32 + tx];
  }
  __syncthreads();
  float acc = 0.0f;
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 0; k < 32; ++k) {
      acc += t[tx][(k + rep) & 31];
    }
  }
  y[blockIdx.x * 256 + ty * 32 + tx] = acc;
}

__global__ void smem_column_per_thread_kernel(const float* x, float* y, int reps) {
  __shared__ float tile[32][32];
  volatile float(*t)[32] = tile;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const float* in = x + blockIdx.x * 1024;
  for (int r = ty; r < 32; r += 8) {
    tile[r][tx] = in[r * 32 + tx];
  }
  __syncthreads();
  float acc = 0.0f;
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 0; k < 32; ++k) {
      acc += t[(k + rep) & 31][tx];
    }
  }
  y[blockIdx.x * 256 + ty * 32 + tx] = acc;
}

// --- shared-memory bank conflicts: the classic tiled transpose without and with padding -------

__global__ void transpose_smem_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

__global__ void transpose_smem_padded_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

// --- register spills: 48 live values per thread under a 32-register budget --------------------

__device__ __forceinline__ void poly(const float* x, float* y, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  float v = x[i];
  float acc[48];
#pragma unroll
  for (int k = 0; k < 48; ++k) {
    acc[k] = v * (float)(k + 1) + (float)k;
  }
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 48; ++k) {
      acc[k] = acc[k] * acc[(k + 7) % 48] + 0.5f;
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 48; ++k) {
    s += acc[k];
  }
  y[i] = s;
}

__global__ void __launch_bounds__(256, 8)
    spilling_poly_kernel(const float* x, float* y, int n, int rounds) {
  poly(x, y, n, rounds);
}

__global__ void __launch_bounds__(256)
    register_poly_kernel(const float* x, float* y, int n, int rounds) {
  poly(x, y, n, rounds);
}

// --- atomic contention: a 4-bin histogram, one global atomic per element, and per block -------

__global__ void histogram_atomic_kernel(const int* x, int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&bins[x[i] & 3], 1);
  }
}

__global__ void histogram_block_kernel(const int* x, int* bins, int n) {
  __shared__ int block_bins[4];
  if (threadIdx.x < 4) {
    block_bins[threadIdx.x] = 0;
  }
  __syncthreads();
  int c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int b = x[i] & 3;
    c0 += b == 0;
    c1 += b == 1;
    c2 += b == 2;
    c3 += b == 3;
  }
  c0 = __reduce_add_sync(0xffffffffu, c0);
  c1 = __reduce_add_sync(0xffffffffu, c1);
  c2 = __reduce_add_sync(0xffffffffu, c2);
  c3 = __reduce_add_sync(0xffffffffu, c3);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&block_bins[0], c0);
    atomicAdd(&block_bins[1], c1);
    atomicAdd(&block_bins[2], c2);
    atomicAdd(&block_bins[3], c3);
  }
  __syncthreads();
  if (threadIdx.x < 4) {
    atomicAdd(&bins[threadIdx.x], block_bins[threadIdx.x]);
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

void launch_strided_read(const float* x, float* y, int n, cudaStream_t s) {
  strided_read_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, y, n);
}
void launch_contiguous_read(const float* x, float* y, int n, cudaStream_t s) {
  contiguous_read_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, y, n);
}
void launch_few_blocks_scale(const float* x, float* y, int n, cudaStream_t s) {
  few_blocks_scale_kernel<<<4, 256, 0, s>>>(x, y, n);
}
void launch_many_blocks_scale(const float* x, float* y, int n, cudaStream_t s) {
  many_blocks_scale_kernel<<<sm_count() * 16, 256, 0, s>>>(x, y, n);
}
void launch_smem_heavy_scale(const float* x, float* y, int n, cudaStream_t s) {
  const int smem = 100 * 1024;
  cudaFuncSetAttribute(smem_heavy_scale_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  smem_heavy_scale_kernel<<<blocks_for(n, 64), 64, smem, s>>>(x, y, n);
}
void launch_smem_free_scale(const float* x, float* y, int n, cudaStream_t s) {
  smem_free_scale_kernel<<<blocks_for(n, 64), 64, 0, s>>>(x, y, n);
}
void launch_lane_divergent(const float* x, float* y, int n, int iters, cudaStream_t s) {
  lane_divergent_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, y, n, iters);
}
void launch_warp_uniform(const float* x, float* y, int n, int iters, cudaStream_t s) {
  warp_uniform_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, y, n, iters);
}
void launch_lane_trip_count(const float* x, float* y, int n, cudaStream_t s) {
  lane_trip_count_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, y, n);
}
void launch_warp_trip_count(const float* x, float* y, int n, cudaStream_t s) {
  warp_trip_count_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, y, n);
}
void launch_smem_row_per_thread(const float* x, float* y, int n, int reps, cudaStream_t s) {
  smem_row_per_thread_kernel<<<n / 1024, dim3(32, 8), 0, s>>>(x, y, reps);
}
void launch_smem_column_per_thread(const float* x, float* y, int n, int reps, cudaStream_t s) {
  smem_column_per_thread_kernel<<<n / 1024, dim3(32, 8), 0, s>>>(x, y, reps);
}
void launch_transpose_smem(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  transpose_smem_kernel<<<dim3(cols / 32, rows / 32), dim3(32, 8), 0, s>>>(in, out, rows, cols);
}
void launch_transpose_smem_padded(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  transpose_smem_padded_kernel<<<dim3(cols / 32, rows / 32), dim3(32, 8), 0, s>>>(in, out, rows,
                                                                                  cols);
}
void launch_spilling_poly(const float* x, float* y, int n, int rounds, cudaStream_t s) {
  spilling_poly_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, y, n, rounds);
}
void launch_register_poly(const float* x, float* y, int n, int rounds, cudaStream_t s) {
  register_poly_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, y, n, rounds);
}
void launch_histogram_atomic(const int* x, int* bins, int n, cudaStream_t s) {
  histogram_atomic_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, bins, n);
}
void launch_histogram_block(const int* x, int* bins, int n, cudaStream_t s) {
  histogram_block_kernel<<<sm_count() * 4, 256, 0, s>>>(x, bins, n);
}

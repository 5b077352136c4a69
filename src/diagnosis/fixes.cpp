// The fix of each cause, in the kernel's language: what to change and where, phrased for an LLM
// (or an engineer) to act on: Triton's knobs (BLOCK sizes, num_warps, num_stages, masks,
// tl.dot's input_precision, tl.where) or CUDA C++'s (a padded shared tile, __launch_bounds__,
// coalesced indexing, vector loads, __ldg, warp-level reductions). A kernel of a library gets the
// library's fix (the call that launches it); a kernel whose language the capture does not show
// gets both phrasings rather than a guess.
#include "diagnosis/diagnoser.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "diagnosis/text.hpp"
#include "kprof/numbers.hpp"

namespace kprof::diagnosis {
namespace {

bool ends_with_any(std::string_view path, std::initializer_list<std::string_view> suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(),
                     [&](std::string_view suffix) { return path.ends_with(suffix); });
}

/// What a fix says of a cause's places: " at kernel.py:13", "at the launch (kernel.py:22)".
struct Places {
  std::string at;     ///< " at file:line" of the cause's line, or ""
  std::string launch; ///< "the launch (file:line)" or "the launch"
  std::string sms;    ///< " (132 SMs)", or "" when the capture does not say
};

struct FixText {
  std::string_view triton;
  std::string_view cuda;
};

std::string both(const std::string& triton, const std::string& cuda) {
  return "In Triton: " + triton + " In CUDA C++: " + cuda;
}

/// The fix of a category; `{at}`, `{launch}` and `{sms}` are the cause's places.
FixText fix_text(Category category) {
  switch (category) {
  case Category::uncoalesced_access:
    return {"Make neighbouring lanes touch neighbouring addresses{at}: build the offsets so that "
            "tl.arange runs along the contiguous (stride-1) dimension, and for a transpose or a "
            "column walk load a [BLOCK_M, BLOCK_N] tile with contiguous rows and use tl.trans on "
            "the tile instead of strided pointers; use every byte of each 32-byte sector loaded.",
            "Make consecutive threads (threadIdx.x) read consecutive addresses{at}: index "
            "x[base + threadIdx.x], not x[threadIdx.x * stride]; for a transpose, read rows "
            "coalesced into a __shared__ tile and write the columns from it; use float4 vector "
            "loads on 16-byte-aligned data."};
  case Category::bank_conflicts:
    return {"The shared-memory staging Triton generates{at} (a reduction across a tile, tl.trans, "
            "a layout conversion) serializes on banks: reduce along the tile's contiguous axis, "
            "keep tl.trans and layout conversions out of the inner loop, or change the BLOCK "
            "sizes and num_warps so that the layout changes.",
            "Pad the shared tile by one element per row (__shared__ float tile[32][32 + 1]) or "
            "swizzle its column index (col ^ row) so a warp's 32 accesses{at} fall in 32 "
            "different banks."};
  case Category::too_few_blocks:
    return {"Launch at least one program per SM{sms}, ideally several, at {launch}: give each "
            "program less work (a smaller BLOCK, grid = (triton.cdiv(n, BLOCK),)) instead of a "
            "long loop per program; split a long reduction over programs (split-K, or a "
            "two-stage reduction).",
            "Launch at least one block per SM{sms}, ideally several, at {launch}: grid = (n + "
            "threads - 1) / threads, or size a grid-stride loop's grid from "
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor times the SM count."};
  case Category::tail_effect:
    return {"Make the grid at {launch} fill whole waves: choose BLOCK so that the number of "
            "programs is a multiple of the SMs{sms} times the programs each SM holds, or make the "
            "kernel "
            "persistent (as many programs as the SMs hold, each looping over tiles with "
            "tl.range).",
            "Make the grid at {launch} fill whole waves: a block count that is a multiple of the "
            "SMs{sms} times the blocks each SM holds, or a persistent grid-stride loop with "
            "exactly that many blocks."};
  case Category::load_imbalance:
    return {"Give every program the same work: handle the tail with masks (mask=offs < n) rather "
            "than a per-program trip count, and launch more, shorter programs (a smaller BLOCK) "
            "at {launch} so that late ones overlap.",
            "Give every thread and block the same work: bound loops by warp-uniform counts, "
            "handle the tail with one bounds check, and launch more, smaller blocks at {launch}."};
  case Category::register_spills:
    return {"Lower the registers each thread holds: raise num_warps at {launch} (a row or tile is "
            "spread over more threads), shrink the BLOCK sizes or num_stages, and avoid keeping a "
            "long row per thread (a one-warp program over a long row keeps it all in registers).",
            "Stop the spills: relax __launch_bounds__'s minimum blocks per SM (it caps the "
            "registers), keep per-thread arrays small and indexed by compile-time constants "
            "(fully unrolled loops), or raise -maxrregcount."};
  case Category::tensor_cores_unused:
    return {"Run the product{at} on tensor cores: write it as tl.dot(a, b) over [BLOCK_M, BLOCK_K] "
            "x [BLOCK_K, BLOCK_N] tiles, not as broadcast products (a[:, None] * b[None, :]) "
            "accumulated or summed; tl.dot(a, b, input_precision=\"tf32\") (or "
            "\"tf32x3\" for near-fp32 accuracy) instead of \"ieee\" for fp32 operands; keep "
            "fp16/bf16 operands as they are instead of casting them to fp32 before tl.dot "
            "(accumulate in fp32 with out_dtype=tl.float32); BLOCK_M, BLOCK_N and BLOCK_K "
            "multiples of 16.",
            "Run the product{at} on tensor cores: replace the loops of FMAs over shared-memory "
            "tiles by nvcuda::wmma (load_matrix_sync, mma_sync) or mma.sync with fp16/bf16/tf32 "
            "operands and fp32 accumulators, or call cuBLAS (torch.matmul)."};
  case Category::atomic_contention:
    return {"Reduce inside the program before the atomic{at}: tl.sum (or tl.histogram for bins) "
            "over the block, then one tl.atomic_add per program and address instead of one per "
            "element.",
            "Aggregate before the atomic{at}: reduce within the warp (__reduce_add_sync or "
            "__shfl_down_sync) or in a per-block __shared__ copy, then one atomicAdd per block "
            "and address."};
  case Category::warp_divergence:
    return {"Keep the lanes of a program on one path{at}: compute both sides and select with "
            "tl.where, and turn data-dependent loop counts into a fixed loop with masks.",
            "Make the branch{at} uniform per warp: branch on warp-wide values (threadIdx.x / 32, "
            "blockIdx) instead of per-lane data, give the lanes equal trip counts, or sort the "
            "work so that a warp's lanes take the same path."};
  case Category::barrier_stalls:
    return {"Synchronize the block less{at}: Triton puts barriers around its shared-memory steps "
            "(reductions across warps, tl.trans, layout conversions); hoist them out of the inner "
            "loop, and use fewer num_warps for small rows so that a reduction stays in one warp.",
            "Call __syncthreads() less{at} and give the warps equal work between barriers: "
            "warp-level primitives (__shfl_sync, cooperative_groups reduce) for steps within a "
            "warp, double-buffered shared tiles for one barrier per iteration."};
  case Category::memory_latency:
    return {"Keep more loads in flight{at}: load a larger block per program (BLOCK) or several "
            "independent blocks before using them, pipeline loops with num_stages=3 or 4 at "
            "{launch} (tl.range), and for a chain of dependent loads (p = tl.load(next + p)) run "
            "more independent chains per program or load the next address one step ahead.",
            "Keep more loads in flight{at}: unroll (#pragma unroll 4) so each thread issues "
            "independent loads before using them, use float4 vector loads and __ldg (or const "
            "__restrict__) for read-only data, and break chains of dependent loads into "
            "independent ones."};
  case Category::mio_pressure:
    return {"Issue fewer shared-memory and special-function instructions{at}: keep tl.trans, "
            "layout conversions and cross-warp reductions out of the inner loop; compute "
            "exponentials as tl.math.exp2 of a pre-scaled input.",
            "Issue fewer shared-memory instructions per result{at}: wider shared loads (float4), "
            "register tiling so each thread reuses what it loaded, and fewer special functions "
            "(__expf, __fdividef)."};
  case Category::instruction_cache:
    return {"Generate less code: smaller tl.static_range unrolls and fewer constexpr "
            "specializations of the kernel.",
            "Generate less code: less #pragma unroll and fewer template instantiations in one "
            "kernel."};
  case Category::launch_bound:
    return {"Launch less often at {launch}: process every call's data in one launch (a leading "
            "grid dimension over the batch), fuse this kernel into its producer or consumer, or "
            "capture the sequence in a CUDA graph (torch.cuda.CUDAGraph, or "
            "torch.compile(mode=\"reduce-overhead\")).",
            "Launch less often at {launch}: one launch over every call's data, fused with the "
            "neighbouring kernels, or the sequence captured as a CUDA graph "
            "(cudaStreamBeginCapture, or torch.cuda.CUDAGraph)."};
  case Category::dram_bound:
    return {"Move fewer bytes: load and store a narrower dtype (bf16, fp16, fp8) where accuracy "
            "allows, fuse with the kernel that produces or consumes the data so that it crosses "
            "DRAM once, and read each input once (a larger BLOCK along the dimension that is read "
            "again).",
            "Move fewer bytes: __half, __nv_bfloat16 or fp8 storage where accuracy allows, fusion "
            "with the producer or consumer so that the data crosses DRAM once, and tiles reused "
            "from shared memory instead of read again."};
  case Category::cache_bound:
    return {"Reuse more per byte fetched from L2/L1: larger tiles held in registers, programs "
            "that share inputs scheduled together (a GROUP_M swizzle of tl.program_id), and no "
            "second load of the same addresses.",
            "Reuse more per byte fetched from L2/L1: register tiling, blocks that share inputs "
            "scheduled together, shared-memory tiles instead of repeated global loads."};
  case Category::compute_bound:
    return {"Execute fewer instructions per result: tl.dot on tensor cores (fp16, bf16 or "
            "input_precision=\"tf32\") for products, and index arithmetic hoisted out of the inner "
            "loop (pointers advanced, tl.multiple_of hints).",
            "Execute fewer instructions per result: tensor cores (wmma, mma.sync) for products, "
            "FMAs, index arithmetic hoisted out of the inner loop, fast intrinsics (__expf) where "
            "accuracy allows."};
  case Category::latency_bound:
    return {"Put more work in flight: more programs or a larger BLOCK at {launch}, and more "
            "independent loads per program (num_stages in loops).",
            "Put more work in flight: more blocks or threads at {launch}, and more independent "
            "loads per thread (unrolled loops)."};
  case Category::low_occupancy:
  case Category::other:
    break;
  }
  return {};
}

/// Low occupancy's fix depends on what limits it.
FixText occupancy_fix(std::string_view limiter) {
  if (limiter == "registers") {
    return {"Hold fewer registers per thread: raise num_warps at {launch} (the tile is spread "
            "over more threads) or lower the BLOCK sizes, and keep fewer values live across the "
            "loop.",
            "Cap the registers: __launch_bounds__(threads, min_blocks_per_sm) on the kernel (or "
            "-maxrregcount), and keep fewer values live (smaller per-thread arrays, less "
            "unrolling)."};
  }
  if (limiter == "shared memory") {
    return {"Use less shared memory per program: lower num_stages at {launch} (each stage holds "
            "a copy of the tiles) or BLOCK_K and BLOCK_N.",
            "Use less shared memory per block: a smaller tile or fewer buffered stages, and a "
            "smaller dynamic shared-memory size at {launch}."};
  }
  return {"Run more warps per SM: num_warps=4 or 8 at {launch}, or a larger BLOCK per program.",
          "Launch larger blocks at {launch}: at least 128 threads per block, so that the SM's "
          "block slots hold enough warps."};
}

std::string filled(std::string_view text, const Places& places) {
  return fmt::format(fmt::runtime(text), fmt::arg("at", places.at),
                     fmt::arg("launch", places.launch), fmt::arg("sms", places.sms));
}

} // namespace

KernelLanguage Diagnoser::language() const {
  if (is_library_kernel(m_launch.name)) {
    return KernelLanguage::library;
  }
  for (const UserLine& line : m_code.lines) {
    if (line.file.ends_with(".py")) {
      return KernelLanguage::triton;
    }
    if (ends_with_any(line.file, {".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp"})) {
      return KernelLanguage::cuda;
    }
  }
  const std::string name = kernel_identifier(m_launch.name);
  const KernelSource* source = m_input.kernel_source;
  if (source != nullptr && source->text) {
    if (source->text->find("def " + name + "(") != std::string::npos) {
      return KernelLanguage::triton;
    }
    if (source->text->find("__global__") != std::string::npos &&
        source->text->find(name) != std::string::npos) {
      return KernelLanguage::cuda;
    }
  }
  if (m_launch.name.find('(') != std::string::npos) {
    return KernelLanguage::cuda; // ncu names a C++ kernel with its parameter list
  }
  // Triton's kernels are named bare; so is a CUDA C++ kernel declared extern "C", which only a
  // source page or the kernel file would tell apart.
  return name.empty() ? KernelLanguage::unknown : KernelLanguage::triton;
}

void Diagnoser::write_fixes() {
  const KernelLanguage lang = language();
  for (Draft& draft : m_drafts) {
    DiagnosisCause& cause = draft.cause;
    if (lang == KernelLanguage::library) {
      cause.fix = "A library's kernel: change the call that launches it (its shapes, dtypes and "
                  "memory layout, contiguous inputs) or replace it with a kernel of your own "
                  "fused with its neighbours.";
      continue;
    }
    if (cause.category == Category::other) {
      continue; // ncu's own advice, written with the cause (add_other_rules)
    }
    Places places;
    if (cause.line) {
      places.at = fmt::format(" at {}:{}", basename_of(cause.line->file), cause.line->line);
    }
    places.launch = cause.launch ? fmt::format("the launch ({}:{})",
                                               basename_of(cause.launch->file), cause.launch->line)
                                 : std::string("the launch");
    if (m_facts.sm_count) {
      places.sms = fmt::format(" ({} SMs)", count(m_facts.sm_count->value));
    }
    FixText text = fix_text(cause.category);
    if (cause.category == Category::low_occupancy) {
      const std::vector<Limit> limits = occupancy_limits();
      text = occupancy_fix(limits.empty() ? std::string_view() : limits.front().resource);
    }
    switch (lang) {
    case KernelLanguage::triton:
      cause.fix = filled(text.triton, places);
      break;
    case KernelLanguage::cuda:
      cause.fix = filled(text.cuda, places);
      break;
    default:
      cause.fix = both(filled(text.triton, places), filled(text.cuda, places));
      break;
    }
  }
}

} // namespace kprof::diagnosis

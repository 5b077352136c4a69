// bench_read_csv [benchmark flags] [FILE]: Google Benchmark of read_ncu_csv_file on a large
// raw-page `--set full` CSV, (a) projected to the 29-metric list and (b) with every column.
// FILE (or $KPROF_BENCH_CSV) names an existing file, e.g. one from make_big_csv; without one, a
// file of $KPROF_BENCH_ROWS rows (default 2,000, ~32 MB) is generated in a temp directory.
#include <benchmark/benchmark.h>
#include <stdlib.h> // mkdtemp

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <unordered_set>

#include "big_csv.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/numbers.hpp"

namespace {

void read_file_benchmark(benchmark::State& state, const std::filesystem::path& path,
                         bool projected) {
  const auto& names = kprof::bench::projection_29();
  const std::unordered_set<std::string_view> wanted(names.begin(), names.end());
  kprof::ReadOptions options;
  if (projected) {
    options.keep_column = [&](std::string_view name) { return wanted.contains(name); };
  }
  std::size_t kernels = 0;
  std::size_t columns = 0;
  for (auto _ : state) {
    auto capture = kprof::read_ncu_csv_file(path, options);
    if (!capture.ok()) {
      state.SkipWithError(capture.error().message.c_str());
      return;
    }
    kernels = capture->kernels.size();
    columns = capture->columns.size();
    benchmark::DoNotOptimize(capture->kernels.data());
  }
  std::error_code ignored;
  const auto size = std::filesystem::file_size(path, ignored);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(size));
  state.counters["kernels"] = static_cast<double>(kernels);
  state.counters["columns"] = static_cast<double>(columns);
}

/// Removes the generated file and its directory at exit.
class GeneratedFile {
public:
  GeneratedFile() = default;
  GeneratedFile(const GeneratedFile&) = delete;
  GeneratedFile& operator=(const GeneratedFile&) = delete;
  GeneratedFile(GeneratedFile&&) = delete;
  GeneratedFile& operator=(GeneratedFile&&) = delete;
  ~GeneratedFile() {
    if (!m_dir.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(m_dir, ignored);
    }
  }
  bool create(std::size_t rows) {
    std::string pattern = (std::filesystem::temp_directory_path() / "kprof-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return false;
    }
    m_dir = pattern;
    m_path = m_dir / "big.csv";
    std::size_t bytes = 0;
    const std::string error =
        kprof::bench::write_big_csv(m_path, rows, kprof::bench::default_template(), bytes);
    if (!error.empty()) {
      std::fprintf(stderr, "bench_read_csv: %s\n", error.c_str());
      return false;
    }
    std::fprintf(stderr, "bench_read_csv: generated %zu rows, %zu bytes in %s\n", rows, bytes,
                 m_path.c_str());
    return true;
  }
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_dir;
  std::filesystem::path m_path;
};

} // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::filesystem::path path;
  if (argc > 1) {
    path = argv[1];
  } else if (const char* env = std::getenv("KPROF_BENCH_CSV"); env != nullptr && *env != '\0') {
    path = env;
  }
  GeneratedFile generated;
  if (path.empty()) {
    std::size_t rows = 2000;
    if (const char* env = std::getenv("KPROF_BENCH_ROWS"); env != nullptr) {
      const auto parsed = kprof::parse_int(env);
      if (!parsed || *parsed <= 0) {
        std::fprintf(stderr, "bench_read_csv: KPROF_BENCH_ROWS must be a positive integer\n");
        return 2;
      }
      rows = static_cast<std::size_t>(*parsed);
    }
    if (!generated.create(rows)) {
      return 1;
    }
    path = generated.path();
  }
  benchmark::RegisterBenchmark("read_ncu_csv_file/projected_29", [path](benchmark::State& state) {
    read_file_benchmark(state, path, true);
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("read_ncu_csv_file/all_columns", [path](benchmark::State& state) {
    read_file_benchmark(state, path, false);
  })->Unit(benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Reading ncu output from a file: streamed through NcuCsvStream in chunks, so memory is bounded
// by what ReadOptions keeps, not by the file size.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>

#include <fmt/format.h>

#include "csv/ncu_reader_internal.hpp"
#include "kprof/ncu_output.hpp"
#include "util/unique_fd.hpp"

namespace kprof {
namespace csv {

Result<Capture> read_ncu_csv_file_chunked(const std::filesystem::path& path,
                                          const ReadOptions& options, std::size_t chunk_size) {
  KPROF_ASSERT(chunk_size > 0);
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{}: cannot open: {}", path.string(), errno_text(errno)));
  }
  NcuCsvStream stream(options, path.string());
  std::string buffer(chunk_size, '\0');
  while (true) {
    const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("{}: cannot read: {}", path.string(), errno_text(errno)));
    }
    if (got == 0 || !stream.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)))) {
      break;
    }
  }
  return stream.finish();
}

} // namespace csv

Result<Capture> read_ncu_csv_file(const std::filesystem::path& path, const ReadOptions& options) {
  return csv::read_ncu_csv_file_chunked(path, options, csv::k_default_chunk_size);
}

bool looks_like_ncu_report(const std::filesystem::path& path) {
  if (path.extension() == ".ncu-rep") {
    return true;
  }
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return false;
  }
  std::array<char, 4096> head{};
  std::size_t have = 0;
  while (have < head.size()) {
    const ssize_t got = ::read(fd.get(), head.data() + have, head.size() - have);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;
    }
    have += static_cast<std::size_t>(got);
  }
  // Nsight Compute reports start with "NVR\0" (seen on reports written by ncu 2025.3.1); any
  // other binary file is malformed input, not a report that needs ncu.
  constexpr std::string_view k_report_magic{"NVR\0", 4};
  return have >= k_report_magic.size() &&
         std::string_view(head.data(), k_report_magic.size()) == k_report_magic;
}

} // namespace kprof

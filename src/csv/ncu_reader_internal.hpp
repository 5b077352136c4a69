// kprof (private to src/csv, its tests, fuzzer and benchmark): the reader as a stream that
// accepts input in pieces, and the reader with an explicit chunk size, so tests can prove that
// chunk boundaries change nothing.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "kprof/capture.hpp"
#include "kprof/error.hpp"
#include "kprof/ncu_output.hpp"
#include "util/unique_fd.hpp"

namespace kprof::csv {

/// How much read_ncu_csv_file() reads at a time.
inline constexpr std::size_t k_default_chunk_size = std::size_t{1} << 20;

/// ncu's output, fed in pieces of any size, read into a Capture (ncu_reader.cpp). The pieces
/// are not kept: memory holds only what ReadOptions keeps.
class NcuCsvStream {
public:
  /// `options` must outlive the stream; `source` names the input in messages.
  NcuCsvStream(const ReadOptions& options, std::string_view source);
  NcuCsvStream(const NcuCsvStream&) = delete;
  NcuCsvStream& operator=(const NcuCsvStream&) = delete;
  NcuCsvStream(NcuCsvStream&&) noexcept;
  NcuCsvStream& operator=(NcuCsvStream&&) noexcept;
  ~NcuCsvStream();

  /// The next piece. False when reading stopped (bad input or a page error): feed no more and
  /// call finish() for the error.
  bool feed(std::string_view chunk);

  /// Ends the input and returns the Capture, or the error as parse_ncu_csv describes.
  Result<Capture> finish();

private:
  class State;
  std::unique_ptr<State> m_state;
};

/// parse_ncu_csv(), but handing the text to the tokenizer `chunk_size` bytes at a time
/// (chunk_size 0 means all at once). The result must not depend on chunk_size.
Result<Capture> parse_ncu_csv_chunked(std::string_view text, const ReadOptions& options,
                                      std::string_view source, std::size_t chunk_size);

/// read_ncu_csv_file() with an explicit read size (at least 1 byte).
Result<Capture> read_ncu_csv_file_chunked(const std::filesystem::path& path,
                                          const ReadOptions& options, std::size_t chunk_size);

/// Opens `path` for reading when it is a regular file (symlinks followed), never blocking: a
/// FIFO, directory, device or socket is refused without being opened. input_not_found with a
/// message saying what the path is ("... is a FIFO, not a file", "... is a symlink loop").
Result<UniqueFd> open_regular_file(const std::filesystem::path& path);

/// Reads ncu output from an open descriptor (a file, a pipe, standard input) `chunk_size` bytes
/// at a time. Input that starts like an Nsight Compute report is refused (malformed_input).
Result<Capture> read_ncu_csv_fd(int fd, const ReadOptions& options, std::string_view source,
                                std::size_t chunk_size);

/// Empty when `a` and `b` hold the same data (NaN equals NaN, `source` is not compared);
/// otherwise a description of the first difference. For tests and the fuzzer.
std::string capture_difference(const Capture& a, const Capture& b);

} // namespace kprof::csv

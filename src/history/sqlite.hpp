// Small RAII wrappers over the sqlite3 C API, private to the history module.
//
// Every failing call becomes a kprof::Error of category database whose message carries SQLite's
// own text; busy() tells the retry loop whether trying again may help.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <sqlite3.h>

#include "kprof/error.hpp"

namespace kprof::history {

/// The database error for a failed call on `db` (SQLite's message and extended code name).
Error sqlite_error(sqlite3* db, int code, std::string_view what);

/// True for SQLITE_BUSY and SQLITE_LOCKED (any extended variant): another connection holds a lock.
bool is_busy(int code);

/// Runs one or more statements without results (sqlite3_exec). On failure the error carries
/// the primary result code in `*code` when `code` is given.
Result<void> exec(sqlite3* db, std::string_view sql, int* code = nullptr);

/// One prepared statement (RAII). Bind indices start at 1, column indices at 0.
class Statement {
public:
  static Result<Statement> prepare(sqlite3* db, std::string_view sql);

  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void bind(int index, std::int64_t value);
  void bind(int index, int value) { bind(index, static_cast<std::int64_t>(value)); }
  void bind(int index, double value);
  void bind(int index, std::string_view text);
  void bind_null(int index);
  void bind(int index, const std::optional<double>& value);
  void bind(int index, const std::optional<int>& value);
  /// Binds "" as NULL.
  void bind_text_or_null(int index, std::string_view text);
  /// bind_text_or_null() without SQLite's copy of `text` (a report document of tens of MB):
  /// `text` must stay as it is until the statement is reset or destroyed.
  void bind_borrowed_text_or_null(int index, std::string_view text);
  /// A BLOB of `bytes` zero bytes that SQLite does not hold in memory, to be written in pieces
  /// through a BlobWriter once the row is in. database error (SQLITE_TOOBIG) when `bytes` is
  /// more than the longest value SQLite stores (SQLITE_LIMIT_LENGTH).
  Result<void> bind_zeroblob(int index, std::uint64_t bytes);

  /// Steps once: true with a row, false when done. On failure the primary result code is
  /// stored in `*code` when given (so callers can retry on busy).
  Result<bool> step(int* code = nullptr);
  /// Steps to the end, for statements without rows.
  Result<void> run(int* code = nullptr);
  void reset();

  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t column_int64(int column) const;
  [[nodiscard]] int column_int(int column) const;
  [[nodiscard]] double column_double(int column) const;
  [[nodiscard]] std::string column_text(int column) const;
  [[nodiscard]] std::optional<double> column_optional_double(int column) const;
  [[nodiscard]] std::optional<int> column_optional_int(int column) const;

private:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : m_db(db), m_stmt(stmt) {}
  sqlite3* m_db = nullptr;
  sqlite3_stmt* m_stmt = nullptr;
};

/// A BLOB or text value of one row opened for reading in pieces (sqlite3_blob_open).
class BlobReader {
public:
  /// database error when the row or column is not there or the value is no BLOB or text.
  static Result<BlobReader> open(sqlite3* db, const char* table, const char* column,
                                 std::int64_t row);

  BlobReader(BlobReader&& other) noexcept;
  BlobReader& operator=(BlobReader&& other) noexcept;
  BlobReader(const BlobReader&) = delete;
  BlobReader& operator=(const BlobReader&) = delete;
  ~BlobReader();

  /// The value's length in bytes.
  [[nodiscard]] std::size_t size() const;
  /// Reads `bytes` bytes at `offset` into `buffer`; database error past the end or on failure.
  Result<void> read(char* buffer, std::size_t bytes, std::size_t offset) const;

private:
  BlobReader(sqlite3* db, sqlite3_blob* blob) : m_db(db), m_blob(blob) {}
  sqlite3* m_db = nullptr;
  sqlite3_blob* m_blob = nullptr;
};

/// A BLOB value of one row opened for writing in place (sqlite3_blob_open): its length is the
/// one it was inserted with (Statement::bind_zeroblob), and pieces are written at offsets, so a
/// value of hundreds of MB is stored without being held.
class BlobWriter {
public:
  /// database error when the row or column is not there or the value is no BLOB or text.
  static Result<BlobWriter> open(sqlite3* db, const char* table, const char* column,
                                 std::int64_t row);

  BlobWriter(BlobWriter&& other) noexcept;
  BlobWriter& operator=(BlobWriter&& other) noexcept;
  BlobWriter(const BlobWriter&) = delete;
  BlobWriter& operator=(const BlobWriter&) = delete;
  ~BlobWriter();

  /// Writes `bytes` at `offset`; database error past the value's end or when SQLite fails.
  Result<void> write(std::string_view bytes, std::uint64_t offset);

private:
  BlobWriter(sqlite3* db, sqlite3_blob* blob) : m_db(db), m_blob(blob) {}
  sqlite3* m_db = nullptr;
  sqlite3_blob* m_blob = nullptr;
};

} // namespace kprof::history

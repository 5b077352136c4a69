// Small RAII wrappers over the sqlite3 C API, private to the history module.
//
// Every failing call becomes a kprof::Error of category database whose message carries SQLite's
// own text; busy() tells the retry loop whether trying again may help.
#pragma once

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

} // namespace kprof::history

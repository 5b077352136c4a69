// The errors of exceptions that reach a top-level handler (the CLI's, a kprof mcp call's, the
// Python module's): one mapping, so an allocation failure is out_of_memory everywhere.
#include <new>
#include <stdexcept>

#include <gtest/gtest.h>

#include "kprof/error.hpp"

namespace kprof {
namespace {

TEST(ErrorFromException, CallsAFailedAllocationOutOfMemoryWithItsOwnExitCode) {
  const Error error = error_from_exception(std::bad_alloc());
  EXPECT_EQ(error.category, ErrorCategory::out_of_memory);
  EXPECT_EQ(exit_code(error.category), 19);
  EXPECT_EQ(to_string(error.category), "out_of_memory");
  EXPECT_EQ(error.message.rfind("out of memory: an allocation failed (std::bad_alloc)", 0), 0U)
      << error.message;
}

TEST(ExitCode, GivesAWrongOutputTheCodeAfterOutOfMemory) {
  // Issue 43's wrong_output came after out_of_memory took 19: each category keeps its own code.
  EXPECT_EQ(exit_code(ErrorCategory::wrong_output), 20);
  EXPECT_EQ(to_string(ErrorCategory::wrong_output), "wrong_output");
  EXPECT_EQ(exit_code(ErrorCategory::out_of_memory), 19);
}

TEST(ErrorFromException, CallsAnyOtherExceptionInternalWithItsMessage) {
  const Error error = error_from_exception(std::runtime_error("a bug"));
  EXPECT_EQ(error.category, ErrorCategory::internal);
  EXPECT_EQ(error.message, "a bug");
  EXPECT_EQ(exit_code(error.category), 70);
}

} // namespace
} // namespace kprof

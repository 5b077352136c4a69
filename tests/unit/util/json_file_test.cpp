// The one JSON shape of an Error (kprof/json_file.hpp): to_json and error_from_json.
#include <gtest/gtest.h>

#include "kprof/json_file.hpp"

namespace kprof {
namespace {

TEST(ErrorJson, WritesCategoryExitCodeMessageAndDetailInThatOrderAndReadsThemBack) {
  const Error error = make_error(ErrorCategory::ncu_failed, "ncu failed (exit code 1)", "log tail");
  const Json json = to_json(error);
  EXPECT_EQ(
      json_text(json, -1),
      "{\"category\":\"ncu_failed\",\"exit_code\":13,\"message\":\"ncu failed (exit code 1)\","
      "\"detail\":\"log tail\"}");
  const auto back = error_from_json(json);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->category, ErrorCategory::ncu_failed);
  EXPECT_EQ(back->message, error.message);
  EXPECT_EQ(back->detail, error.detail);
  EXPECT_TRUE(to_json(std::optional<Error>()).is_null());
  EXPECT_EQ(to_json(std::optional<Error>(error)), json);
}

TEST(ErrorJson, ReadsAnythingWithoutThrowingUnknownAsInternalWrongTypesAsEmpty) {
  EXPECT_FALSE(error_from_json(Json(nullptr)));
  EXPECT_FALSE(error_from_json(Json::array({1, 2})));
  EXPECT_FALSE(error_from_json(Json("ncu_failed")));
  const auto odd = error_from_json(
      Json{{"category", "no_such_category"}, {"message", 7}, {"detail", Json::array()}});
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->category, ErrorCategory::internal);
  EXPECT_EQ(odd->message, "");
  EXPECT_EQ(odd->detail, "");
  const auto bare = error_from_json(Json::object());
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->category, ErrorCategory::internal);
}

} // namespace
} // namespace kprof

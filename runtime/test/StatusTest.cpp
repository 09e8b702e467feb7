//===- StatusTest.cpp -----------------------------------------------------===//

#include "shardrt/Status.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

using namespace shardrt;

namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::Ok);
  EXPECT_EQ(s.toString(), "Ok");
}

TEST(StatusTest, ErrorsCarryCodeAndMessage) {
  struct {
    Status status;
    StatusCode code;
    const char *name;
  } cases[] = {
      {Status::invalidArgument("m"), StatusCode::InvalidArgument,
       "InvalidArgument"},
      {Status::outOfRange("m"), StatusCode::OutOfRange, "OutOfRange"},
      {Status::dataLoss("m"), StatusCode::DataLoss, "DataLoss"},
      {Status::failedPrecondition("m"), StatusCode::FailedPrecondition,
       "FailedPrecondition"},
      {Status::unavailable("m"), StatusCode::Unavailable, "Unavailable"},
      {Status::deadlineExceeded("m"), StatusCode::DeadlineExceeded,
       "DeadlineExceeded"},
      {Status::internal("m"), StatusCode::Internal, "Internal"},
      {Status::unimplemented("m"), StatusCode::Unimplemented, "Unimplemented"},
  };
  for (const auto &c : cases) {
    EXPECT_FALSE(c.status.ok());
    EXPECT_EQ(c.status.code(), c.code);
    EXPECT_EQ(c.status.message(), "m");
    EXPECT_EQ(c.status.toString(), std::string(c.name) + ": m");
    EXPECT_STREQ(statusCodeName(c.code), c.name);
  }
  EXPECT_STREQ(statusCodeName(static_cast<StatusCode>(99)), "Unknown");
}

TEST(StatusTest, Equality) {
  EXPECT_EQ(Status::internal("a"), Status::internal("a"));
  EXPECT_NE(Status::internal("a"), Status::internal("b"));
  EXPECT_NE(Status::internal("a"), Status::dataLoss("a"));
}

TEST(StatusOrTest, HoldsValue) {
  StatusOr<std::string> v = std::string("x");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(*v, "x");
  EXPECT_EQ(v->size(), 1u);
  std::string moved = std::move(v).value();
  EXPECT_EQ(moved, "x");
}

TEST(StatusOrTest, HoldsMoveOnlyValue) {
  StatusOr<std::unique_ptr<int>> v = std::make_unique<int>(7);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(**v, 7);
}

TEST(StatusOrTest, HoldsError) {
  StatusOr<int> v = Status::dataLoss("truncated");
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.status(), Status::dataLoss("truncated"));
  EXPECT_THROW(v.value(), std::logic_error);
}

TEST(StatusOrTest, OkStatusWithoutValueIsAnError) {
  StatusOr<int> v = Status();
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::Internal);
}

} // namespace

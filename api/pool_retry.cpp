// SPDX-License-Identifier: Apache-2.0
#include "api/pool_retry.h"

#include <mutex>

#include "vulkan/check.h"

namespace openvgf::api {

bool deviceLost(ErrorCode code, std::string_view message) {
  return code == ErrorCode::Runtime && message.find(vulkan::resultName(VK_ERROR_DEVICE_LOST)) != std::string_view::npos;
}

AfterFailure afterFailure(ErrorCode code, std::string_view message, std::size_t member, const std::vector<bool>& live) {
  if (!deviceLost(code, message)) return AfterFailure::Report;
  for (std::size_t m = 0; m < live.size(); ++m) {
    if (m != member && live[m]) return AfterFailure::RunElsewhere;
  }
  return AfterFailure::RetireReport;
}

namespace {
std::mutex hookMutex;
PoolRunHook hook;
}  // namespace

void setPoolRunHookForTesting(PoolRunHook newHook) {
  std::lock_guard lock(hookMutex);
  hook = std::move(newHook);
}

PoolRunHook poolRunHook() {
  std::lock_guard lock(hookMutex);
  return hook;
}

}  // namespace openvgf::api

// SPDX-License-Identifier: Apache-2.0
// What a DevicePool does when a run fails (docs/multi-device.md, "A lost device"): a run
// whose device was lost runs again on another live member of the pool and the lost member
// is retired; any other failure is the item's result. Pure decisions over plain data, tested
// without a GPU (tests/api/device_pool_test.cpp); device_pool.cpp applies them.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "openvgf/openvgf.hpp"

namespace openvgf::api {

/// Whether a failed run's error says its device is gone: a Runtime error carrying Vulkan's
/// VK_ERROR_DEVICE_LOST (as vulkan::vkError names it). A bad input never is.
bool deviceLost(ErrorCode code, std::string_view message);

enum class AfterFailure {
  Report,       ///< the error is the item's result; the member keeps taking items
  RunElsewhere, ///< retire the member; run the item again on another live member
  RetireReport, ///< retire the member; no other member is live, so the error is the item's result
};

/// The decision for an item whose run on pool member `member` failed with (code, message);
/// live[m]: member m still takes items (the failing member may already be retired: a lost
/// device fails every run it had in flight).
AfterFailure afterFailure(ErrorCode code, std::string_view message, std::size_t member, const std::vector<bool>& live);

/// Test-only fault injection: called on a member's thread before each run it submits (member,
/// item index); an Exception it throws is that run's failure. Empty = none. Not exported by
/// libopenvgf.so, so the openvgf command cannot reach it.
using PoolRunHook = std::function<void(std::size_t member, std::size_t item)>;
void setPoolRunHookForTesting(PoolRunHook hook);
PoolRunHook poolRunHook();

}  // namespace openvgf::api

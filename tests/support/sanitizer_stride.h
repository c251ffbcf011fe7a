// SPDX-License-Identifier: Apache-2.0
// How much of a long test loop the sanitizer trees run.
#pragma once

#include <cstddef>

namespace openvgf::testing {

/// Loops over many files or cases take every kSanitizerStride-th one in the ASan and TSan
/// trees. There each CLI process costs about 0.4 s of CPU before main() (the shadow memory)
/// and instrumented code runs several times slower, so the full sets would take most of CI's
/// 30 minutes. The Release run takes every item, and the fuzz targets feed the same readers
/// under ASan+UBSan.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr std::size_t kSanitizerStride = 4;
#else
inline constexpr std::size_t kSanitizerStride = 1;
#endif

}  // namespace openvgf::testing

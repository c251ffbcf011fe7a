// SPDX-License-Identifier: Apache-2.0
#include "common/error.h"

// Conv kernel tests: being written.
#include "shardrt/cpu/Kernels.h"
#include <gtest/gtest.h>

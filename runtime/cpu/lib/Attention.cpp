// Attention kernels: being written.
#include "shardrt/cpu/Kernels.h"

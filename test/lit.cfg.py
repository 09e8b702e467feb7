# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "shardc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.shardc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "acceptance"]
config.substitutions.append(("%shardc_src_root", config.shardc_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["shardc-opt", "shardc", "shard-run"], [config.shardc_tools_dir])

# nvcc compiles the CUDA target's generated kernels (no GPU needed).
import shutil
nvcc = shutil.which("nvcc") or (
    "/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))

# An MPI launcher, when shard-run is built with the MPI backend (Open MPI's
# flags: CI runs as root on fewer cores than some tests' ranks).
if config.shardrt_enable_mpi.upper() in ("ON", "1", "TRUE", "YES") and \
        config.mpiexec and os.path.exists(config.mpiexec):
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpiexec", config.mpiexec + " --allow-run-as-root --oversubscribe"))

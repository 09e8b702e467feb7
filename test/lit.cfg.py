# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "shardc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.shardc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "acceptance",
                   "Inputs"]
config.substitutions.append(("%shardc_src_root", config.shardc_src_root))

# Float32 .npy files without numpy: test scripts `import npy`, RUN lines
# call `%npy fill|values ...` (test/Inputs/npy.py).
import sys
_inputs = os.path.join(config.shardc_src_root, "test", "Inputs")
config.environment["PYTHONPATH"] = _inputs
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ in src
config.substitutions.append(
    ("%npy", '"%s" "%s"' % (sys.executable, os.path.join(_inputs, "npy.py"))))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["shardc-opt", "shardc", "shard-run", "shard-run-hostcuda",
     "shardrt-host-kernel-check"],
    [config.shardc_tools_dir])

# Generated CUDA kernels built for the host (runtime/engine/test/hostcuda).
config.substitutions.append(("%host_cxx", config.host_cxx))
config.substitutions.append(
    ("%hostcuda_include",
     os.path.join(config.shardc_src_root, "runtime/engine/test/hostcuda/include")))

# nvcc compiles the CUDA target's generated kernels (no GPU needed).
import shutil
nvcc = shutil.which("nvcc") or (
    "/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))

# A GPU this build can run on: shard-run --backend cuda must then run, and
# without one it must exit 3 (the skip code of the GPU ctests). The device
# nodes say whether the machine has one, without asking CUDA, whose answer
# is what the tests check.
# CUDA_VISIBLE_DEVICES set empty (or to -1) hides them.
import glob
_visible = os.environ.get("CUDA_VISIBLE_DEVICES")
if config.shardrt_enable_cuda.upper() in ("ON", "1", "TRUE", "YES", "Y") and \
        glob.glob("/dev/nvidia[0-9]*") and _visible not in ("", "-1"):
    config.available_features.add("gpu")

# Open MPI's launcher, when shard-run is built with the MPI backend. The
# tests use its flags (CI runs as root on fewer cores than some tests' ranks)
# and its OMPI_COMM_WORLD_RANK, so another MPI leaves them unsupported.
def _is_open_mpi(mpiexec):
    import subprocess
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return any(s in out.stdout + out.stderr for s in ("Open MPI", "OpenRTE"))

if config.shardrt_enable_mpi.upper() in ("ON", "1", "TRUE", "YES") and \
        config.mpiexec and os.path.exists(config.mpiexec) and \
        _is_open_mpi(config.mpiexec):
    config.available_features.add("open-mpi")
    # As the comm tests: containers often forbid the shared-memory transport's
    # cross-process copies.
    config.environment["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    config.substitutions.append(("%mpiexec", config.mpiexec_command))

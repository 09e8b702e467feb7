"""Float32 .npy files for lit tests, without numpy (not installed here).

Tests import it with PYTHONPATH=%shardc_src_root/test/Inputs.
"""
import ast
import struct


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def write(path, shape, values):
    """Writes `values` (row-major) as a little-endian float32 array."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (
        tuple(shape),)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def read(path):
    """(shape, values) of a float32 .npy file of version 1."""
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    n = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + n].decode())
    if header["descr"] != "<f4" or header["fortran_order"]:
        raise ValueError("%s: not a C-order float32 array" % path)
    shape = list(header["shape"])
    values = struct.unpack("<%df" % count(shape),
                           data[10 + n:10 + n + 4 * count(shape)])
    return shape, values


def strides(shape):
    s = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        s[d] = s[d + 1] * shape[d + 1]
    return s

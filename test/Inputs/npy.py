"""Float32 .npy files for lit tests, without numpy (not installed here).

Test scripts `import npy` (lit.cfg.py puts this folder on PYTHONPATH); RUN
lines call it as `%npy fill F SHAPE VALUE` (a float32 array of one value)
and `%npy values F` (prints the shape and the distinct values).
"""
import ast
import struct
import sys


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
    """(shape, values) of a float32 (or float16, or int64) .npy file of
    version 1."""
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    n = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + n].decode())
    code = {"<f4": "f", "<f2": "e", "<i8": "q"}.get(header["descr"])
    if code is None or header["fortran_order"]:
        raise ValueError("%s: not a C-order float32, float16 or int64 array" %
                         path)
    shape = list(header["shape"])
    size = struct.calcsize("<" + code) * count(shape)
    values = struct.unpack("<%d%s" % (count(shape), code),
                           data[10 + n:10 + n + size])
    return shape, values


def strides(shape):
    s = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        s[d] = s[d + 1] * shape[d + 1]
    return s


def main(argv):
    if len(argv) == 4 and argv[0] == "fill":
        shape = [int(d) for d in argv[2].split(",") if d]
        write(argv[1], shape, [float(argv[3])] * count(shape))
    elif len(argv) == 2 and argv[0] == "values":
        shape, values = read(argv[1])
        distinct = sorted(set(values))
        print("shape %s: %d values, all %s" % (
            tuple(shape), len(values),
            distinct[0] if len(distinct) == 1 else distinct))
    else:
        sys.exit("usage: npy.py fill F SHAPE VALUE | npy.py values F")


if __name__ == "__main__":
    main(sys.argv[1:])

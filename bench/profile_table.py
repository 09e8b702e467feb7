"""Reads the per-opcode table that `shard-run --profile` prints (one column
of ms per profiled rank, then %, GB/s and GFLOP/s), for the bench scripts.
test/tools/shard-run-profile.test keeps it in step with the format."""
import re

_NUMBER = re.compile(r"^[\d.]+$")


def _rate(cell):
    return None if cell == "-" else float(cell)


def parse(text):
    """({opcode: (steps, [ms per run, per rank], GB/s, GFLOP/s)}, [total ms
    per rank]) from shard-run's output; a rate printed as "-" is None."""
    table = text[text.index("profile:"):]
    lines = table.splitlines()
    ranks = lines[1].split().count("rank")  # "rank 0", "rank 1", ...
    rows, total = {}, None
    for line in lines[2:]:
        cells = line.split()
        if not cells:
            break  # the table ends at the blank line before the slowest steps
        if cells[0] == "total":
            total = [float(c) for c in cells[2:2 + ranks]]
            continue
        if len(cells) != ranks + 5 or not _NUMBER.match(cells[2]):
            raise ValueError("unexpected profile row: " + line)
        rows[cells[0]] = (int(cells[1]),
                          [float(c) for c in cells[2:2 + ranks]],
                          _rate(cells[-2]), _rate(cells[-1]))
    if total is None:
        raise ValueError("no total row in shard-run's profile:\n" + table)
    return rows, total

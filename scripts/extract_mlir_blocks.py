#!/usr/bin/env python3
"""Prints every ```mlir fenced block of a Markdown file, separated by
`// -----`, so lit can check that the documentation's examples parse and
verify (shardc-opt -split-input-file)."""
import sys


def blocks(text):
    inside, current = False, []
    for line in text.splitlines():
        stripped = line.strip()
        if not inside and stripped == "```mlir":
            inside, current = True, []
        elif inside and stripped == "```":
            inside = False
            yield "\n".join(current)
        elif inside:
            current.append(line)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        found = list(blocks(f.read()))
    if not found:
        sys.exit(f"no ```mlir blocks in {sys.argv[1]}")
    print("\n// -----\n".join(found))


if __name__ == "__main__":
    main()

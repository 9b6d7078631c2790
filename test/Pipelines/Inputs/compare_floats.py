"""Compares the numbers two mlir-runner printouts hold, within a tolerance.

usage: compare_floats.py A B atol rtol
Fails (exit 1) when the printouts differ in anything but the numbers, or a
number differs by more than atol + rtol * |a|; prints the largest error.
"""
import re
import sys

NUM = re.compile(r"-?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)")


def numbers(path):
    text = open(path).read()
    return NUM.sub("#", text), [float(x) for x in NUM.findall(text)]


a_shape, a = numbers(sys.argv[1])
b_shape, b = numbers(sys.argv[2])
atol, rtol = float(sys.argv[3]), float(sys.argv[4])
if a_shape != b_shape or len(a) != len(b) or not a:
    sys.exit("printouts differ in shape or hold no numbers")
worst = max(abs(x - y) - rtol * abs(x) for x, y in zip(a, b))
print(f"{len(a)} numbers, worst excess over rtol {worst:.3e} (atol {atol})")
sys.exit(0 if worst <= atol else 1)

#!/usr/bin/env python3
"""Oracle for tst_trace_model's StatsOracle test: the sample standard deviation (n - 1) of the vectors
x_i = base + (7919 i^2 + 104729 i) mod spread, i = 0 .. n-1, as the double nearest to its exact value
(exact rational variance, square root to 60 digits, nearest double chosen among the neighbours)."""
from decimal import Decimal, getcontext
from fractions import Fraction
import math

getcontext().prec = 60
CASES = [(2, 0, 3), (1000, 10**6, 100_000), (4097, 2**50, 2**40), (3, 5, 1), (100_000, 12_345, 7), (5, -(2**40), 1000)]
for n, base, spread in CASES:
    xs = [base + (7919 * i * i + 104729 * i) % spread for i in range(n)]
    s, ss = sum(xs), sum(x * x for x in xs)
    var = Fraction(n * ss - s * s, n * (n - 1))
    root = (Decimal(var.numerator) / Decimal(var.denominator)).sqrt()
    x = float(root)
    best = min((math.nextafter(x, 0), x, math.nextafter(x, math.inf)), key=lambda c: abs(Decimal(c) - root))
    mean = Fraction(s, n)
    print(f"    {{{n}, {base}, {spread}, {best!r}, {float(mean)!r}}},")

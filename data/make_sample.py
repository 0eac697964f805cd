#!/usr/bin/env python3
"""Writes sample_prices.txt: 365 daily closing prices of a made-up stock.

A random walk with small daily moves, in cents, printed with two decimals,
one per line. Deterministic (a fixed linear congruential generator, not
Python's `random`), so rerunning this script reproduces the committed file:

    python3 data/make_sample.py > data/sample_prices.txt
"""
import sys

DAYS = 365
START_CENTS = 10_000  # 100.00


def lcg(seed):
    """32-bit LCG (Numerical Recipes constants); yields floats in [0, 1)."""
    state = seed
    while True:
        state = (1664525 * state + 1013904223) % 2**32
        yield state / 2**32


def main():
    rnd = lcg(20240607)
    cents = START_CENTS
    lines = []
    for _ in range(DAYS):
        # A move of -2% .. +2.1%, rounded to the cent; never below 1.00.
        move = round(cents * (next(rnd) * 0.041 - 0.02))
        cents = max(100, cents + move)
        lines.append(f"{cents // 100}.{cents % 100:02d}")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

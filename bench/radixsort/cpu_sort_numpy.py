#!/usr/bin/env python3
"""numpy's sorts on the inputs bench_cpu_sort times, for the table beside it.

   python3 bench/radixsort/cpu_sort_numpy.py [--log2n 26,28] [--reps 5]

Cases: np.sort of random u32, f32 (uniform in +-1e6) and u64 keys; u32/u32
pairs as a stable argsort of the keys, then both arrays gathered (what numpy
offers for key/value pairs); np.argsort(kind='stable') alone. Each case copies
the input (not timed) and times one call; median and minimum of --reps runs,
and the median CPU time of the process (numpy's sorts run on one thread, so
on a shared machine it shows the share the run got).
numpy uses its own threads only where its build does (np.sort is one thread).
"""
import argparse
import time

import numpy as np


def bench(name, n, reps, make, run):
    src = make(n)
    times, cpu = [], []
    for _ in range(reps):
        work = [a.copy() for a in src]
        c0, t0 = time.process_time(), time.perf_counter()
        run(*work)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    times.sort()
    cpu.sort()
    mid = lambda v: v[len(v) // 2] if reps % 2 else 0.5 * (v[reps // 2 - 1] + v[reps // 2])
    med = mid(times)
    print(f"| numpy {name:<9} | 2^{n.bit_length() - 1:<2} | {med * 1e3:9.1f} | {times[0] * 1e3:9.1f} | "
          f"{n / med * 1e-6:8.1f} | {mid(cpu) * 1e3:9.1f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", default="26,28")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cases", default="u32,f32,u64,pairs,argsort")
    args = ap.parse_args()
    rng = np.random.default_rng(12345)
    print(f"numpy {np.__version__}; median and min of {args.reps} runs\n")
    print("| case            | n    | median ms |    min ms | Melem/s  |    CPU ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for e in (int(x) for x in args.log2n.split(",")):
        n = 1 << e
        u32 = lambda n: [rng.integers(0, 2**32, n, dtype=np.uint32)]
        cases = {
            "u32": (u32, lambda k: np.sort(k)),
            "f32": (lambda n: [((rng.random(n) * 2 - 1) * 1e6).astype(np.float32)], lambda k: np.sort(k)),
            "u64": (lambda n: [rng.integers(0, 2**64, n, dtype=np.uint64)], lambda k: np.sort(k)),
            "pairs": (lambda n: u32(n) + [np.arange(n, dtype=np.uint32)],
                      lambda k, v: (lambda i: (k[i], v[i]))(np.argsort(k, kind="stable"))),
            "argsort": (u32, lambda k: np.argsort(k, kind="stable")),
        }
        for name in args.cases.split(","):
            bench(name, n, args.reps, *cases[name])


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: Apache-2.0
"""Tables for tests/bench/start.sh and memory.sh (benchmark output,
not a test).

  stats.py start [--family=runc|runc13|crun] MODE TIMES [ARM=METHOD ...]
  stats.py memory [--family=runc|runc13|crun] MODE RECORDS [ARM=METHOD ...]

The family (default runc) names the arms, their labels and the ratios.
TIMES has lines "ARM ROUND WALL_US CPU_US".  Prints, per arm, the wall
time's median, p90 (nearest rank) and mean and the CPU time's median in
ms, then the family's ratios (runc: ours/noclone, ours/stock,
memfd/noclone, stock/noclone; crun: ours/stock, sealed/stock,
ours/sealed) as the ratio of the medians with a bootstrap 95% interval
(rounds resampled together, so that the pairing within a round is kept),
as the median of the per-round ratios, and as the ratio of the CPU
medians.

RECORDS (memory.sh) has lines "arm ARM SHMEM_BEFORE SHMEM_AFTER
DEV:INO SLAB_BEFORE SLAB_AFTER", "init ARM PSS RSS DEV:INO KIND EXE" (kB; KIND is memfd,
unlinked, binary, binary-via-overlay or file) and "deleted ARM SHMEM",
or for an arm that could not make a container at all (at a level above
0) "fails ARM ERROR...": its row then shows the error.
"""
import random
import statistics
import sys

FAMILIES = {
    "runc": {
        "arms": ["stock", "ours", "memfd", "noclone"],
        "labels": {
            "stock": "stock Debian runc 1.1.5",
            "ours": "ours (default build)",
            "memfd": "ours, forced memfd",
            "noclone": "ours, no clone (limit)",
        },
        "ratios": [("ours", "noclone"), ("ours", "stock"),
                   ("memfd", "noclone"), ("stock", "noclone")],
        # What each container's init is, for the memory table.
        "init": "runc init's",
    },
    "runc13": {
        "arms": ["stock", "ours", "noclone"],
        "labels": {
            "stock": "stock Debian sid runc 1.3.6",
            "ours": "ours 1.3.6 (1.3 series)",
            "noclone": "ours 1.3.6, no clone (limit)",
        },
        "ratios": [("ours", "stock"), ("ours", "noclone"),
                   ("stock", "noclone")],
        "init": "runc init's",
    },
    "crun": {
        "arms": ["stock", "sealed", "ours", "ours121"],
        "labels": {
            "stock": "stock Debian crun 1.8.1",
            "sealed": "crun-sealed (stock crun on the overlay)",
            "ours": "ours (rebuilt crun)",
            "ours121": "ours (rebuilt crun 1.21)",
        },
        "ratios": [("ours", "stock"), ("sealed", "stock"),
                   ("ours", "sealed"), ("ours121", "stock")],
        "init": "crun's container processes'",
    },
}
# Set by main() from --family.
FAMILY = "runc"
ARMS = []
LABELS = {}


def width():
    """The arm column: as wide as the longest label, at least 26."""
    return max([26] + [len(label) for label in LABELS.values()])


def p90(values):
    v = sorted(values)
    return v[max(0, -(-9 * len(v) // 10) - 1)]


def ratio_line(name, rounds, cpu, a, b, rng):
    common = sorted(set(rounds[a]) & set(rounds[b]))
    if not common:
        return f"  {name:<14} no common rounds"
    xa = [rounds[a][r] for r in common]
    xb = [rounds[b][r] for r in common]
    cpu_ratio = (statistics.median(cpu[a][r] for r in common) /
                 statistics.median(cpu[b][r] for r in common))
    point = statistics.median(xa) / statistics.median(xb)
    boots = []
    for _ in range(2000):
        idx = [rng.randrange(len(common)) for _ in common]
        boots.append(statistics.median([xa[i] for i in idx]) /
                     statistics.median([xb[i] for i in idx]))
    boots.sort()
    lo, hi = boots[int(0.025 * len(boots))], boots[int(0.975 * len(boots)) - 1]
    paired = statistics.median([x / y for x, y in zip(xa, xb)])
    return (f"  {name:<14} {point:6.3f}  [{lo:.3f}, {hi:.3f}]  "
            f"{paired:9.3f}  {cpu_ratio:9.3f}")


def start(mode, path, methods):
    rounds = {arm: {} for arm in ARMS}
    cpu = {arm: {} for arm in ARMS}
    with open(path) as f:
        for line in f:
            arm, rnd, us, cpu_us = line.split()
            rounds[arm][int(rnd)] = int(us) / 1000.0
            cpu[arm][int(rnd)] = int(cpu_us) / 1000.0
    n = min(len(r) for r in rounds.values())
    w = width()
    print(f"{mode}: {n} rounds, ms per `{FAMILY} run`")
    print(f"  {'arm':<{w}} {'method':<11} {'median':>8} {'p90':>8} "
          f"{'mean':>8} {'CPU med':>8}")
    for arm in ARMS:
        v = list(rounds[arm].values())
        if not v:
            print(f"  {LABELS[arm]:<{w}} {methods.get(arm, '-'):<11} no data")
            continue
        print(f"  {LABELS[arm]:<{w}} {methods.get(arm, '-'):<11} "
              f"{statistics.median(v):8.2f} {p90(v):8.2f} "
              f"{statistics.mean(v):8.2f} "
              f"{statistics.median(cpu[arm].values()):8.2f}")
    rng = random.Random(1)
    print(f"  {'ratio':<14} {'median':>6}  {'95% interval':<16}  "
          f"{'per-round':>9}  {'CPU ratio':>9}")
    pairs = [(f"{a}/{b}", a, b) for a, b in FAMILIES[FAMILY]["ratios"]]
    # EXTRA_RUNC's arms, after the family's own.
    for arm in ARMS[len(FAMILIES[FAMILY]["arms"]):]:
        pairs += [(f"{arm}/noclone", arm, "noclone"),
                  (f"{arm}/stock", arm, "stock")]
    for name, a, b in pairs:
        print(ratio_line(name, rounds, cpu, a, b, rng))


def memory(mode, path, methods):
    shm, deleted, inits = {}, {}, {arm: [] for arm in ARMS}
    fails = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "arm":
                # Cached (fields 7, 8) came later: 0 0 when absent.
                shm[w[1]] = (int(w[2]), int(w[3]), int(w[5]), int(w[6]),
                             int(w[7]) if len(w) > 8 else 0,
                             int(w[8]) if len(w) > 8 else 0)
            elif w[0] == "deleted":
                deleted[w[1]] = int(w[2])
            elif w[0] == "fails":
                fails[w[1]] = " ".join(w[2:]) or "(no message)"
            elif w[0] == "init":
                inits[w[1]].append((int(w[2]), int(w[3]), w[4], w[5], w[6]))
    print(f"{mode}: created containers, MB (10^6 bytes); Shmem, Slab and "
          "Cached (page cache) per container = (after - before) / N")
    w = width()
    print(f"  {'arm':<{w}} {'method':<11} {'N':>4} {'Shmem/ctr':>9} "
          f"{'Slab/ctr':>8} {'Cache/ctr':>9} "
          f"{'Pss med':>8} {'Pss mean':>8} {'Rss med':>8} {'copies':>6} "
          f"{'binary':>8} {'Shmem left':>10}")
    for arm in ARMS:
        v = inits[arm]
        if arm in fails:
            print(f"  {LABELS[arm]:<{w}} {'fails':<11} {fails[arm]}")
            continue
        if arm not in shm or not v:
            print(f"  {LABELS[arm]:<{w}} no data")
            continue
        n = len(v)
        before, after, slab_before, slab_after, c_before, c_after = shm[arm]
        pss = [x[0] for x in v]
        rss = [x[1] for x in v]
        copies = len({x[2] for x in v if x[3] in ("memfd", "unlinked")})
        same = sum(1 for x in v if x[3].startswith("binary"))
        left = deleted.get(arm, before) - before
        print(f"  {LABELS[arm]:<{w}} {methods.get(arm, '-'):<11} {n:>4} "
              f"{(after - before) / n * 1.024 / 1000:9.2f} "
              f"{(slab_after - slab_before) / n * 1.024 / 1000:8.3f} "
              f"{(c_after - c_before) / n * 1.024 / 1000:9.2f} "
              f"{statistics.median(pss) * 1.024 / 1000:8.2f} "
              f"{statistics.mean(pss) * 1.024 / 1000:8.2f} "
              f"{statistics.median(rss) * 1.024 / 1000:8.2f} "
              f"{copies:>6} {same:>8} {left * 1.024 / 1000:10.1f}")
    print(f"  {FAMILIES[FAMILY]['init']} /proc/PID/exe "
          "(kind, first link seen, count):")
    for arm in ARMS:
        if arm in fails:
            print(f"    {arm:<8} fails")
            continue
        kinds = {}
        for x in inits[arm]:
            k = kinds.setdefault(x[3], [x[4], 0])
            k[1] += 1
        print(f"    {arm:<8} " + "; ".join(
            f"{k} {e} x{c}" for k, (e, c) in sorted(kinds.items())))


def main(argv):
    global FAMILY
    args = argv[1:]
    if len(args) > 1 and args[1].startswith("--family="):
        FAMILY = args.pop(1)[len("--family="):]
    if len(args) < 3 or args[0] not in ("start", "memory") or \
            FAMILY not in FAMILIES:
        print(__doc__, file=sys.stderr)
        return 2
    ARMS[:] = FAMILIES[FAMILY]["arms"]
    LABELS.update(FAMILIES[FAMILY]["labels"])
    methods = dict(a.split("=", 1) for a in args[3:])
    for arm in methods:
        if arm not in ARMS:
            ARMS.append(arm)
            LABELS[arm] = f"{arm} (EXTRA_RUNC)"
    (start if args[0] == "start" else memory)(args[1], args[2], methods)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

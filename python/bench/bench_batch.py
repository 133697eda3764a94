# SPDX-License-Identifier: Apache-2.0
"""bench_batch.py: the package's batch calls' rate, packets per second of
one call over N packets (default 1,000,000) of 66 bytes (the default
configuration, a 38-byte payload), against the single calls' rate: per
second of wall time and per second of the process's CPU time.

    python3 python/bench/bench_batch.py [N]

Run it with the installed package (pip install ./python), or with
IBRESERVOIR_LIB naming a built libibreservoir.so and python/ on PYTHONPATH.
"""
import sys
import time

import ibreservoir as I


def rate(what, n, fn):
    """Runs fn once and prints its rate per second of wall time and per
    second of the process's CPU time (on a shared machine the wall rate
    follows the load, the CPU rate much less)."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    print(f"{what:<40} {n:>9} packets {dt:8.3f} s {n / dt / 1e6:8.2f} M packets/s"
          f" {n / dc / 1e6:8.2f} M packets/CPU-s")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    m = I.Library().model("")
    base = []
    for i in range(4096):  # distinct packets, repeated up to n
        p = m.packet(slid=1, dlid=2, dest_qp=i, psn=i, payload=bytes(38))
        m.send(p, 1)
        base.append(p)
    batch = I.Packets(base[i % len(base)] for i in range(n))
    cong = bytes(i & 1 for i in range(n))
    rate("stage_batch (congested flags)", n, lambda: m.stage_batch(batch, 7, 3, congested=cong))
    links = [(7, 3, 1), (7, 4, 1)]
    with m.decoder(1, links) as d:
        rate("add_packets (decoder)", n, lambda: d.add_packets(batch))
    m.stage_batch(I.Packets(base), 7, 3)  # the 4096 as the stage left them: their samples
    samples = (I.Sample * n)()
    one = [m.receive(p) for p in base]
    for i in range(n):
        samples[i] = one[i % len(one)]
    with m.decoder(1, links) as d:
        rate("add_samples (decoder)", n, lambda: d.add_samples(samples))
    k = min(n, 100_000)
    singles = [batch.packet(i) for i in range(k)]
    rate("stage, one call a packet", k, lambda: [m.stage(p, 7, 3) for p in singles])
    with m.decoder(1, links) as d:
        rate("add_packet, one call a packet", k, lambda: [d.add_packet(p) for p in singles])


if __name__ == "__main__":
    main()

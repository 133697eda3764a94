# SPDX-License-Identifier: Apache-2.0
"""example.py: the C library from Python (the ibreservoir package of
python/, ctypes, standard library only), as a cocotb-style testbench would
use it: the same run as stage.c.

    go build -buildmode=c-shared -o out/lib/libibreservoir.so ./capi
    python3 capi/example/example.py out/lib/libibreservoir.so "hash=crc32 count-bits=4"

It imports the package from this checkout's python/ directory, so that it
runs without installing it; a program of yours imports the installed one
(pip install ./python) and calls ibreservoir.Library() without a path.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import ibreservoir  # noqa: E402

PATH = [(1, 33), (10, 1), (100, 2), (21, 1), (2, 5)]
CANDIDATES = [(1, 33, 1), (1, 34, 1), (10, 1, 2), (10, 2, 2), (11, 1, 2), (11, 2, 2), (100, 1, 3),
              (100, 2, 3), (101, 1, 3), (101, 2, 3), (20, 1, 4), (21, 1, 4), (2, 5, 5)]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: example.py LIBRARY [CONFIGURATION]")
    lib = ibreservoir.Library(sys.argv[1])
    with lib.model(sys.argv[2] if len(sys.argv) > 2 else "") as m:
        print(f"libibreservoir {lib.version()}: {m.config()}")

        def packet(psn, payload=b""):
            pkt = m.packet(slid=0x0101, dlid=0x0202, dest_qp=0x42, psn=psn, payload=payload)
            m.send(pkt, 0x0101)
            return pkt

        pkt = packet(7, b"hello")
        for hop, (sw, port) in enumerate(PATH):
            r = m.stage(pkt, sw, port, congested=hop == 2)
            print(f"hop {hop + 1} {sw}:{port} l={r.hop_l} replaced={r.hop_replaced} count={r.hop_count}")
        s = m.receive(pkt)
        print(f"received: id {s.id}, hop bit {s.hop_bit}, congested bit {s.cong_bit}, weight {s.hop_count}")
        if m.info().scheme == ibreservoir.SCHEME_FULLID:
            return
        with m.decoder(5, CANDIDATES) as d:
            for psn in range(2000):
                pkt = packet(psn)
                for hop, (sw, port) in enumerate(PATH):
                    m.stage(pkt, sw, port, congested=hop == 2)
                d.add_packet(pkt)
            for e in d.estimates(5, 0.99):
                if e.passed:
                    print(f"hop {e.hop} {e.link.switch_id}:{e.link.port} W={e.w} (threshold {e.threshold:.0f}) "
                          f"congested fraction {e.fraction:.2f}")


if __name__ == "__main__":
    main()

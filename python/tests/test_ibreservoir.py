# SPDX-License-Identifier: Apache-2.0
"""Tests of the ibreservoir package: arguments out of range, the batch calls
against the single ones, and fork(). Run them on the installed package
(python -m unittest discover -s python/tests); Library() loads the
package's own library, or $IBRESERVOIR_LIB. Go's test of package capi
(TestPythonPackage) installs the package in a fresh venv and runs them."""
import multiprocessing
import os
import unittest

import ibreservoir as I

LIB = I.Library()


def _stage_in_worker(config):
    """A multiprocessing worker: one stage, or the error it raised."""
    try:
        m = MODEL_IN_PARENT  # made at import: in the parent for fork, afresh in a spawned worker
        pkt = m.packet(slid=1, dlid=2, psn=3)
        m.send(pkt, 1)
        return ("ok", m.stage(pkt, 7, 3).hop_l)
    except I.IbrError as e:
        return ("error", e.status, e.message)


MODEL_IN_PARENT = LIB.model("")


def packets(m, n, lid=1, payload=38):
    out = []
    for i in range(n):
        p = m.packet(slid=lid, dlid=2 + i % 7, dest_qp=i, psn=(i * 7919) & I.U24, payload=bytes(payload - i % 4))
        m.send(p, lid)
        out.append(p)
    return out


class Ranges(unittest.TestCase):
    """Every integer is checked against its C type's range: none wraps."""

    def setUp(self):
        self.m = LIB.model("")
        self.pkt = self.m.packet(slid=1, dlid=2)
        self.m.send(self.pkt, 1)

    def tearDown(self):
        self.m.close()

    def refused(self, fn, message, exc=ValueError):
        with self.assertRaises(exc) as cm:
            fn()
        self.assertEqual(str(cm.exception), message)

    def test_stage(self):
        self.refused(lambda: self.m.stage(self.pkt, 65537, 257), "switch is 65537: want 0..65535")
        self.refused(lambda: self.m.stage(self.pkt, 1, 257), "port is 257: want 0..255")
        self.refused(lambda: self.m.stage(self.pkt, -1, 1), "switch is -1: want 0..65535")
        self.refused(lambda: self.m.stage(self.pkt, 1, 1, congested=2), "congested is 2: want 0..1")
        self.refused(lambda: self.m.stage(self.pkt, 1, 1, state=[1 << 32, 0, 0, 0]),
                     "state[0] is 4294967296: want 0..4294967295")
        self.refused(lambda: self.m.stage(self.pkt, 1.0, 1), "switch must be an integer, not float", TypeError)

    def test_packet(self):
        self.refused(lambda: self.m.packet(psn=2**32 + 5), "psn is 4294967301: want 0..16777215")
        self.refused(lambda: self.m.packet(psn=1 << 24), "psn is 16777216: want 0..16777215")
        self.refused(lambda: self.m.packet(slid=70000), "slid is 70000: want 0..65535")
        self.refused(lambda: self.m.packet(dest_qp=-1), "dest_qp is -1: want 0..16777215")
        self.refused(lambda: self.m.packet(sl=16), "sl is 16: want 0..15")
        self.refused(lambda: self.m.packet(sgid=bytes(15)), "sgid is 15 bytes: want 16")

    def test_send(self):
        self.refused(lambda: self.m.send(self.pkt, 70000), "lid is 70000: want 0..65535")
        with self.assertRaises(I.IbrError) as cm:
            self.m.send(self.pkt, 2)
        self.assertEqual(cm.exception.status, I.ERR_ARG)
        self.assertIn("the packet's SLID is 0x0001, the NIC's LID 0x0002", cm.exception.message)

    def test_decoder(self):
        self.refused(lambda: self.m.decoder(2**40, [(1, 1, 1)]), "path_len is 1099511627776: want 1..2147483647")
        self.refused(lambda: self.m.decoder(3, [(1, 1, 4)]), "links[0] hop is 4: want 1..3")
        self.refused(lambda: self.m.decoder(3, [(1, 300, 1)]), "links[0] port is 300: want 0..255")
        with self.m.decoder(1, [(1, 1, 1)]) as d:
            self.refused(lambda: d.estimates(2**31), "L is 2147483648: want 1..2147483647")
            self.refused(lambda: d.estimates(1, 1.5), "p is 1.5: want 0 < p < 1")

    def test_strings_are_not_cut(self):
        self.refused(lambda: LIB.model("seed=5\0count-bits=4"),
                     "config has a NUL character at 6: C would read only what comes before it")
        self.refused(lambda: self.m.field(self.pkt, "hop_bit\0x"),
                     "name has a NUL character at 7: C would read only what comes before it")
        with self.assertRaises(I.IbrError) as cm:
            LIB.model(" " * 65528 + "seed=123456")
        self.assertEqual(cm.exception.status, I.ERR_ARG)
        self.assertTrue(cm.exception.message.startswith("configuration: longer than 65536 bytes"), cm.exception.message)

    def test_state_words_do_not_wrap(self):
        st = self.m.seed_state(7, 3)
        self.refused(lambda: self.m.set_port_state(7, 3, [w + (1 << 32) for w in st]),
                     f"state[0] is {st[0] + (1 << 32)}: want 0..4294967295")


class Frames(unittest.TestCase):
    """The cut-through stage on corrupt frames: stomped, and the reasons."""

    def test_stage_frame(self):
        m, ref = LIB.model(""), LIB.model("")
        pkt = m.packet(slid=1, dlid=2, psn=9, payload=bytes(40))
        m.send(pkt, 1)
        state = m.seed_state(7, 3)
        sound = bytearray(pkt)
        r, c = m.stage_frame(sound, 7, 3, state=list(state))
        want = bytearray(pkt)
        rw = ref.stage(want, 7, 3, state=list(state))
        self.assertEqual((c, bytes(sound), r.hop_field), (0, bytes(want), rw.hop_field))
        bad = bytearray(pkt)
        bad[-1] ^= 1  # the VCRC
        r, c = m.stage_frame(bad, 7, 3, state=list(state))
        self.assertEqual(c, I.CORRUPT_VCRC)
        self.assertEqual(bytes(bad[:-2]), bytes(want[:-2]))  # telemetry as the sound packet's
        self.assertNotEqual(bytes(bad[-2:]), bytes(want[-2:]))  # the VCRC stomped
        short = bytearray(pkt)
        short[5] -= 1  # PktLen one word short of the frame
        m.frame_seal(short)
        _, c = m.stage_frame(short, 7, 3, state=list(state))
        self.assertEqual(c, I.CORRUPT_LENGTH)

    def test_not_a_frame(self):
        m = LIB.model("")
        pkt = m.packet(slid=1, dlid=2)
        with self.assertRaises(I.IbrError) as e:
            m.stage_frame(pkt[:-1], 7, 3)
        self.assertEqual(e.exception.status, I.ERR_PACKET)
        self.assertIn("4k+2", e.exception.message)


class Batches(unittest.TestCase):
    """A batch call gives every packet what its single call gives it."""

    CONFIGS = ["", "hash=crc32 generator=lfsr-lut/b16 count-bits=4", "generator=sender sender-draws=3",
               "scheme=tworeservoir count-bits=2 global=true"]

    def test_stage_batch(self):
        for config in self.CONFIGS:
            with self.subTest(config=config), LIB.model(config) as single, LIB.model(config) as batched:
                pkts = packets(single, 50)
                pkts[9][-1] ^= 1  # a bad VCRC
                cong = bytes(i % 3 == 0 for i in range(50))
                words = single.info().state_words
                state = single.seed_state(5, 2) if words else None
                state_b = list(state) if words else None
                want, statuses = [], []
                for p, c in zip(pkts, cong):
                    p = bytearray(p)
                    try:
                        single.stage(p, 5, 2, congested=c, state=state)
                        statuses.append(I.OK)
                    except I.IbrError as e:
                        statuses.append(e.status)
                    want.append(p)
                batch = I.Packets(pkts)
                with self.assertRaises(I.IbrError) as cm:
                    batched.stage_batch(batch, 5, 2, congested=cong, state=state_b)
                self.assertEqual(cm.exception.status, I.ERR_PACKET)
                self.assertTrue(cm.exception.message.startswith("packet 9 of 50: "), cm.exception.message)
                self.assertEqual(cm.exception.statuses, statuses)
                self.assertEqual([batch.packet(i) for i in range(50)], want)
                self.assertEqual(state_b, state)

    def test_own_generator_and_results(self):
        with LIB.model("") as single, LIB.model("") as batched:
            pkts = packets(single, 20)
            fields = []
            for p in pkts:
                p = bytearray(p)
                fields.append(single.stage(p, 3, 4).hop_field)
            batch = I.Packets(pkts)
            results = batched.stage_batch(batch, 3, 4, results=True)
            self.assertEqual([r.hop_field for r in results], fields)
            self.assertEqual(batched.port_state(3, 4), single.port_state(3, 4))

    def test_send_and_decode(self):
        with LIB.model("") as single, LIB.model("") as batched:
            pkts = packets(single, 30)
            batch = I.Packets(pkts)
            batched.send_batch(batch, 1)
            for p in pkts:
                single.send(p, 1)
                single.stage(p, 1, 1)
            batched.stage_batch(batch, 1, 1)
            links = [(1, 1, 1), (1, 2, 1)]
            with single.decoder(1, links) as d1, batched.decoder(1, links) as d2, batched.decoder(1, links) as d3:
                samples = []
                for p in pkts:
                    d1.add_packet(p)
                    samples.append(single.receive(p))
                d2.add_packets(batch)
                d3.add_samples(samples)
                want = [(e.link.port, e.w, e.q) for e in d1.estimates(1)]
                self.assertEqual([(e.link.port, e.w, e.q) for e in d2.estimates(1)], want)
                self.assertEqual([(e.link.port, e.w, e.q) for e in d3.estimates(1)], want)
                bad = I.Sample(hop_count=8)
                with self.assertRaises(I.IbrError) as cm:
                    d3.add_samples([samples[0], bad])
                self.assertEqual(cm.exception.statuses, [I.OK, I.ERR_ARG])
                self.assertIn("sample 1 of 2: ", cm.exception.message)

    def test_bad_congested(self):
        with LIB.model("") as m:
            batch = I.Packets(packets(m, 3))
            self.assertRaisesRegex(ValueError, r"^congested\[1\] is 2: want 0 or 1$",
                                   lambda: m.stage_batch(batch, 1, 1, congested=b"\0\2\0"))
            self.assertRaisesRegex(ValueError, r"^congested has 2 flags for 3 packets$",
                                   lambda: m.stage_batch(batch, 1, 1, congested=b"\0\0"))


class Fork(unittest.TestCase):
    """In a forked child every call fails at once with ERR_FORK and says what
    to do; workers of the "spawn" start method use the library."""

    def test_os_fork(self):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                out = repr(_stage_in_worker(""))
            except BaseException as e:  # anything, so that the child never runs the tests
                out = repr(e)
            os.write(w, out.encode())
            os._exit(0)
        os.close(w)
        got = b""
        while True:
            b = os.read(r, 4096)
            if not b:
                break
            got += b
        os.close(r)
        _, code = os.waitpid(pid, 0)
        self.assertEqual(code, 0)
        status, message = eval(got.decode())[1:]
        self.assertEqual(status, I.ERR_FORK)
        self.assertIn("child of a fork()", message)
        self.assertIn('"spawn"', message)

    def test_multiprocessing(self):
        for method, want in (("fork", "error"), ("spawn", "ok"), ("forkserver", "ok")):
            with self.subTest(method=method):
                ctx = multiprocessing.get_context(method)
                with ctx.Pool(1) as pool:
                    got = pool.apply_async(_stage_in_worker, ("",)).get(timeout=120)
                self.assertEqual(got[0], want, got)
                if want == "error":
                    self.assertEqual(got[1], I.ERR_FORK)


if __name__ == "__main__":
    unittest.main()

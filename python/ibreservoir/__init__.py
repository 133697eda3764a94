# SPDX-License-Identifier: Apache-2.0
"""ibreservoir: the reference model's C library (libibreservoir) from Python,
through ctypes (standard library only). The structures mirror
capi/include/ibreservoir.h, which documents every function; a failing call
raises IbrError with the library's status and message, and an argument out of
its range raises ValueError naming it before anything is called.

    import ibreservoir
    lib = ibreservoir.Library()          # the library installed with the package
    m = lib.model("hash=crc32 count-bits=4")
    pkt = m.packet(slid=0x101, dlid=0x202, psn=7, payload=b"hello")
    m.send(pkt, 0x101)
    result = m.stage(pkt, switch=1, port=33, congested=False)
    sample = m.receive(pkt)

Batches (Packets) run one call over many packets: Model.stage_batch,
Model.send_batch, Decoder.add_packets, Decoder.add_samples.

Model.stage_frame is the stage as a cut-through switch runs it on any frame
of a link, corrupt or not (ibr_stage_frame): it returns the result and the
CORRUPT_* reasons it stomped the frame's VCRC for (0: sound);
Model.frame_seal writes a frame's VCRC whatever its PktLen says.

The library: Library(path) loads path; Library() loads $IBRESERVOIR_LIB when
it is set, else the libibreservoir.so installed inside this package (pip
install ./python builds it with go build -buildmode=c-shared).

fork(): the library is the Go runtime, which does not survive fork(); in a
forked child every call raises IbrError with status ERR_FORK. Use
multiprocessing with the "spawn" or "forkserver" start method.
"""
import ctypes as C
import operator
import os

OK, ERR_ARG, ERR_CONFIG, ERR_PACKET, ERR_STATE, ERR_HANDLE, ERR_SPACE, ERR_INTERNAL, ERR_FORK = range(9)
SCHEME_FULLID, SCHEME_TWORESERVOIR, SCHEME_ONERESERVOIR = range(3)
PACKET_SPEC_INIT = 0x31524249  # IBR_PACKET_SPEC_INIT
CORRUPT_VCRC, CORRUPT_LENGTH, CORRUPT_OVERSIZE = 1, 2, 4  # IBR_CORRUPT_*
MAX_LEGAL_PKTLEN = 1048  # IBR_MAX_LEGAL_PKTLEN, words

U8, U16, U24, U32 = (1 << 8) - 1, (1 << 16) - 1, (1 << 24) - 1, (1 << 32) - 1
INT32_MAX = (1 << 31) - 1
MAX_BATCH = 1 << 24  # the library's largest batch


class Info(C.Structure):
    _fields_ = [(n, C.c_int32) for n in (
        "scheme", "lnh", "count_bits", "sender_l", "count_max", "state_bits", "state_words",
        "footer_bytes", "max_switch", "max_port")]


class PacketSpec(C.Structure):
    _fields_ = [("init", C.c_uint32), ("slid", C.c_uint16), ("dlid", C.c_uint16), ("sl", C.c_uint8), ("vl", C.c_uint8),
                ("opcode", C.c_uint8), ("pkey", C.c_uint16), ("dest_qp", C.c_uint32), ("psn", C.c_uint32),
                ("resv6", C.c_uint8), ("tclass", C.c_uint8), ("flow_label", C.c_uint32), ("hop_limit", C.c_uint8),
                ("sgid", C.c_uint8 * 16), ("dgid", C.c_uint8 * 16),
                ("payload", C.POINTER(C.c_uint8)), ("payload_len", C.c_size_t)]


class StageResult(C.Structure):
    _fields_ = [("id", C.c_uint32), ("d", C.c_uint32)] + [(n, C.c_int32) for n in (
        "hash_bit", "hop_l", "hop_replaced", "hop_saturated", "hop_count", "congested", "cong_drew",
        "cong_l", "cong_replaced", "cong_saturated", "cong_count", "draws", "hop_field")]


class Sample(C.Structure):
    _fields_ = [("slid", C.c_uint16), ("dlid", C.c_uint16), ("id", C.c_uint32),
                ("hop_bit", C.c_int32), ("cong_bit", C.c_int32), ("hop_count", C.c_int32), ("cong_count", C.c_int32),
                ("hop_switch", C.c_uint16), ("cong_switch", C.c_uint16), ("hop_port", C.c_uint8), ("cong_port", C.c_uint8)]


class Link(C.Structure):
    _fields_ = [("switch_id", C.c_uint16), ("port", C.c_uint8)]


class Estimate(C.Structure):
    _fields_ = [("link", Link), ("hop", C.c_int32), ("passed", C.c_int32), ("w", C.c_int64), ("c", C.c_int64),
                ("q", C.c_int64), ("threshold", C.c_double), ("fraction", C.c_double)]


class IbrError(Exception):
    """A call failed: status is the ibr_status, message the library's. A
    batch's error also has statuses, every packet's status (a list)."""

    def __init__(self, status, message, statuses=None):
        super().__init__(f"status {status}: {message}")
        self.status, self.message, self.statuses = status, message, statuses


def _int(name, value, lo, hi):
    """value as an int in lo..hi, or a ValueError (TypeError) naming it."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{name} is {v}: want {lo}..{hi}")
    return v


def _text(name, value):
    """A str as the NUL-terminated bytes C reads: a NUL inside would end it
    early, so it is refused."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    i = value.find("\0")
    if i >= 0:
        raise ValueError(f"{name} has a NUL character at {i}: C would read only what comes before it")
    return value.encode()


def _bit(name, value):
    """A congested flag: a bool, or the integer 0 or 1."""
    if isinstance(value, bool):
        return int(value)
    return _int(name, value, 0, 1)


_H = C.c_size_t  # uintptr_t handles
_BUF = C.POINTER(C.c_uint8)
_SIZES = C.POINTER(C.c_size_t)
_STATUS = C.POINTER(C.c_int)
_SIGNATURES = {
    "ibr_version": (C.c_char_p, []),
    "ibr_model_new": (C.c_int, [C.c_char_p, C.POINTER(_H), C.c_char_p, C.c_size_t]),
    "ibr_free": (C.c_int, [_H]),
    "ibr_last_error": (C.c_int, [_H, C.c_char_p, C.c_size_t]),
    "ibr_model_info": (C.c_int, [_H, C.POINTER(Info)]),
    "ibr_model_config": (C.c_int, [_H, C.c_char_p, C.c_size_t]),
    "ibr_model_digest": (C.c_int, [_H, C.c_char_p, C.c_size_t]),
    "ibr_packet_spec_init": (None, [C.POINTER(PacketSpec)]),
    "ibr_packet_build": (C.c_int, [_H, C.POINTER(PacketSpec), _BUF, C.c_size_t, C.POINTER(C.c_size_t)]),
    "ibr_send": (C.c_int, [_H, _BUF, C.c_size_t, C.c_uint16]),
    "ibr_stage": (C.c_int, [_H, _BUF, C.c_size_t, C.c_uint16, C.c_uint8, C.c_int, C.POINTER(C.c_uint32), C.c_size_t,
                            C.POINTER(StageResult)]),
    "ibr_stage_batch": (C.c_int, [_H, _BUF, C.c_size_t, _SIZES, _SIZES, C.c_size_t, C.c_uint16, C.c_uint8, _BUF,
                                  C.POINTER(C.c_uint32), C.c_size_t, C.POINTER(StageResult), _STATUS]),
    "ibr_stage_frame": (C.c_int, [_H, _BUF, C.c_size_t, C.c_uint16, C.c_uint8, C.c_int, C.POINTER(C.c_uint32),
                                  C.c_size_t, C.POINTER(StageResult), C.POINTER(C.c_uint32)]),
    "ibr_frame_seal": (C.c_int, [_H, _BUF, C.c_size_t]),
    "ibr_send_batch": (C.c_int, [_H, _BUF, C.c_size_t, _SIZES, _SIZES, C.c_size_t, C.c_uint16, _STATUS]),
    "ibr_port_state": (C.c_int, [_H, C.c_uint16, C.c_uint8, C.POINTER(C.c_uint32), C.c_size_t]),
    "ibr_port_set_state": (C.c_int, [_H, C.c_uint16, C.c_uint8, C.POINTER(C.c_uint32), C.c_size_t]),
    "ibr_port_seed_state": (C.c_int, [_H, C.c_uint16, C.c_uint8, C.POINTER(C.c_uint32), C.c_size_t]),
    "ibr_receive": (C.c_int, [_H, _BUF, C.c_size_t, C.POINTER(Sample)]),
    "ibr_field_get": (C.c_int, [_H, _BUF, C.c_size_t, C.c_char_p, C.POINTER(C.c_uint64)]),
    "ibr_field_set": (C.c_int, [_H, _BUF, C.c_size_t, C.c_char_p, C.c_uint64]),
    "ibr_decoder_new": (C.c_int, [_H, C.c_int, C.POINTER(Link), C.POINTER(C.c_int32), C.c_size_t, C.POINTER(_H)]),
    "ibr_decoder_add_packet": (C.c_int, [_H, _BUF, C.c_size_t]),
    "ibr_decoder_add_sample": (C.c_int, [_H, C.POINTER(Sample)]),
    "ibr_decoder_add_packets": (C.c_int, [_H, _BUF, C.c_size_t, _SIZES, _SIZES, C.c_size_t, _STATUS]),
    "ibr_decoder_add_samples": (C.c_int, [_H, C.POINTER(Sample), C.c_size_t, _STATUS]),
    "ibr_decoder_estimates": (C.c_int, [_H, C.c_int, C.c_double, C.POINTER(Estimate), C.c_size_t,
                                        C.POINTER(C.c_size_t)]),
}


def default_library():
    """The library Library() loads: $IBRESERVOIR_LIB, else the package's own."""
    env = os.environ.get("IBRESERVOIR_LIB")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libibreservoir.so")


class Library:
    """The loaded shared library (go build -buildmode=c-shared ./capi)."""

    def __init__(self, path=None):
        if path is None:
            path = default_library()
            if not os.path.exists(path):
                raise FileNotFoundError(
                    f"no libibreservoir at {path}: install the package with pip (which builds it), "
                    "set IBRESERVOIR_LIB to a library built with go build -buildmode=c-shared ./capi, "
                    "or give Library its path")
        self.path = path
        self.lib = C.CDLL(path)
        for name, (restype, argtypes) in _SIGNATURES.items():
            f = getattr(self.lib, name)
            f.restype, f.argtypes = restype, argtypes

    def version(self):
        return self.lib.ibr_version().decode()

    def model(self, config=""):
        h, err = _H(), C.create_string_buffer(1024)
        st = self.lib.ibr_model_new(_text("config", config), C.byref(h), err, len(err))
        if st != OK:
            raise IbrError(st, err.value.decode())
        return Model(self, h.value)


class _Handle:
    def __init__(self, lib, handle):
        self.lib, self.handle = lib, handle

    def _check(self, status, statuses=None):
        if status != OK:
            msg = C.create_string_buffer(2048)
            self.lib.lib.ibr_last_error(self.handle, msg, len(msg))
            raise IbrError(status, msg.value.decode(), statuses)

    def _batch(self, status, pkts):
        self._check(status, None if status == OK else list(pkts.status)[:pkts.n])

    def close(self):
        if self.handle:
            self.lib.lib.ibr_free(self.handle)
            self.handle = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _packet(pkt):
    """A bytearray's memory as the uint8_t* the library writes in place."""
    if not isinstance(pkt, bytearray):
        raise TypeError(f"a packet is a bytearray (changed in place), not {type(pkt).__name__}")
    if not pkt:
        raise ValueError("a packet of 0 bytes")
    return (C.c_uint8 * len(pkt)).from_buffer(pkt)


def _words(state, what="state"):
    """A list of 32-bit words as a ctypes array."""
    return (C.c_uint32 * len(state))(*[_int(f"{what}[{i}]", w, 0, U32) for i, w in enumerate(state)])


class Packets:
    """A batch: packets in one bytearray (buf), packet i at off[i], len[i]
    bytes, with room for each packet's status (status, after a batch call).
    Build it once and pass it to every batch call; packet(i) copies one out."""

    def __init__(self, packets):
        packets = list(packets)
        if len(packets) > MAX_BATCH:
            raise ValueError(f"{len(packets)} packets: a batch holds at most {MAX_BATCH}")
        self.n = len(packets)
        self.off = (C.c_size_t * max(self.n, 1))()
        self.len = (C.c_size_t * max(self.n, 1))()
        pos = 0
        for i, p in enumerate(packets):
            if not p:
                raise ValueError(f"packet {i} is empty")
            self.off[i], self.len[i] = pos, len(p)
            pos += len(p)
        self.buf = bytearray(b"".join(bytes(p) for p in packets))
        self.status = (C.c_int * max(self.n, 1))()

    def __len__(self):
        return self.n

    def packet(self, i):
        i = _int("packet index", i, 0, self.n - 1)
        return bytearray(self.buf[self.off[i]:self.off[i] + self.len[i]])

    def _args(self):
        data = (C.c_uint8 * max(len(self.buf), 1)).from_buffer(self.buf) if self.buf else (C.c_uint8 * 1)()
        return data, len(self.buf), self.off, self.len, self.n


class Model(_Handle):
    """An ibr_model: packets are bytearrays, changed in place."""

    def info(self):
        i = Info()
        self._check(self.lib.lib.ibr_model_info(self.handle, C.byref(i)))
        return i

    def config(self):
        b = C.create_string_buffer(4096)
        self._check(self.lib.lib.ibr_model_config(self.handle, b, len(b)))
        return b.value.decode()

    def digest(self):
        b = C.create_string_buffer(65)
        self._check(self.lib.lib.ibr_model_digest(self.handle, b, len(b)))
        return b.value.decode()

    def packet(self, slid=0, dlid=0, dest_qp=0, psn=0, opcode=0x04, pkey=0xFFFF, sl=0, vl=0, resv6=0, tclass=0,
               flow_label=0, hop_limit=0, sgid=bytes(16), dgid=bytes(16), payload=b""):
        """A packet of the model's kind (ibr_packet_build), a bytearray."""
        spec = PacketSpec()
        self.lib.lib.ibr_packet_spec_init(C.byref(spec))
        for name, value, hi in (("slid", slid, U16), ("dlid", dlid, U16), ("dest_qp", dest_qp, U24), ("psn", psn, U24),
                                ("opcode", opcode, U8), ("pkey", pkey, U16), ("sl", sl, 15), ("vl", vl, 15),
                                ("resv6", resv6, 63), ("tclass", tclass, U8), ("flow_label", flow_label, (1 << 20) - 1),
                                ("hop_limit", hop_limit, U8)):
            setattr(spec, name, _int(name, value, 0, hi))
        for name, gid in (("sgid", sgid), ("dgid", dgid)):
            if len(gid) != 16:
                raise ValueError(f"{name} is {len(gid)} bytes: want 16")
            getattr(spec, name)[:] = list(bytes(gid))
        payload = bytes(payload)
        data = (C.c_uint8 * max(len(payload), 1)).from_buffer_copy(payload.ljust(1, b"\0"))
        spec.payload, spec.payload_len = C.cast(data, _BUF), len(payload)
        buf, n = (C.c_uint8 * 9000)(), C.c_size_t()
        self._check(self.lib.lib.ibr_packet_build(self.handle, C.byref(spec), buf, len(buf), C.byref(n)))
        return bytearray(buf[:n.value])

    def send(self, pkt, lid):
        """The sender NIC with LID lid (the packet's SLID) on pkt, in place."""
        lid = _int("lid", lid, 0, U16)
        self._check(self.lib.lib.ibr_send(self.handle, _packet(pkt), len(pkt), lid))

    def stage(self, pkt, switch, port, congested=False, state=None):
        """One switch stage on pkt in place. state (a list of 32-bit words,
        changed in place) is the port's generator state; None uses the
        model's own generator for the link."""
        switch, port, congested = _int("switch", switch, 0, U16), _int("port", port, 0, U8), _bit("congested", congested)
        r = StageResult()
        words, n = None, 0
        if state is not None:
            words, n = _words(state), len(state)
        self._check(self.lib.lib.ibr_stage(self.handle, _packet(pkt), len(pkt), switch, port, congested, words, n,
                                           C.byref(r)))
        if state is not None:
            state[:] = list(words)
        return r

    def stage_frame(self, frame, switch, port, congested=False, state=None):
        """ibr_stage_frame: the stage as a cut-through switch runs it on
        frame (a bytearray: the whole frame the link delivered, its VCRC its
        last two bytes whatever PktLen says), in place, corrupt or not; state
        as stage's. Returns (StageResult, corrupt): corrupt is the CORRUPT_*
        reasons the VCRC was stomped for, 0 for a sound frame."""
        switch, port, congested = _int("switch", switch, 0, U16), _int("port", port, 0, U8), _bit("congested", congested)
        r, c = StageResult(), C.c_uint32()
        words, n = None, 0
        if state is not None:
            words, n = _words(state), len(state)
        self._check(self.lib.lib.ibr_stage_frame(self.handle, _packet(frame), len(frame), switch, port, congested, words,
                                                 n, C.byref(r), C.byref(c)))
        if state is not None:
            state[:] = list(words)
        return r, c.value

    def frame_seal(self, frame):
        """ibr_frame_seal: the VCRC of frame's bytes into its last two, in
        place, whatever PktLen says."""
        self._check(self.lib.lib.ibr_frame_seal(self.handle, _packet(frame), len(frame)))

    def stage_batch(self, pkts, switch, port, congested=None, state=None, results=False):
        """ibr_stage_batch: one stage on every packet of pkts (a Packets), in
        place, all leaving link (switch, port). congested: None (none), or a
        bytes-like of 0/1 per packet. state as stage's. With results=True
        returns the StageResult array. A failure raises IbrError (its
        statuses: each packet's) after every packet was processed; state is
        then the state after the packets that were staged."""
        if not isinstance(pkts, Packets):
            raise TypeError("stage_batch takes a Packets")
        switch, port = _int("switch", switch, 0, U16), _int("port", port, 0, U8)
        flags = None
        if congested is not None:
            flags = bytes(congested)
            if len(flags) != pkts.n:
                raise ValueError(f"congested has {len(flags)} flags for {pkts.n} packets")
            bad = next((i for i, c in enumerate(flags) if c > 1), None) if flags.translate(None, b"\0\1") else None
            if bad is not None:
                raise ValueError(f"congested[{bad}] is {flags[bad]}: want 0 or 1")
            flags = (C.c_uint8 * max(len(flags), 1)).from_buffer_copy(flags.ljust(1, b"\0"))
        words, n = None, 0
        if state is not None:
            words, n = _words(state), len(state)
        out = (StageResult * max(pkts.n, 1))() if results else None
        data, size, off, lens, count = pkts._args()
        st = self.lib.lib.ibr_stage_batch(self.handle, data, size, off, lens, count, switch, port, flags, words, n, out,
                                          pkts.status)
        if state is not None:
            state[:] = list(words)  # the state after the packets staged, also when some failed
        self._batch(st, pkts)
        return out

    def send_batch(self, pkts, lid):
        """ibr_send_batch: the sender NIC with LID lid on every packet."""
        if not isinstance(pkts, Packets):
            raise TypeError("send_batch takes a Packets")
        lid = _int("lid", lid, 0, U16)
        data, size, off, lens, count = pkts._args()
        self._batch(self.lib.lib.ibr_send_batch(self.handle, data, size, off, lens, count, lid, pkts.status), pkts)

    def _state(self, fn, switch, port, words=None):
        switch, port = _int("switch", switch, 0, U16), _int("port", port, 0, U8)
        st = words if words is not None else (C.c_uint32 * max(self.info().state_words, 1))()
        self._check(fn(self.handle, switch, port, st, len(st)))
        return list(st)

    def port_state(self, switch, port):
        """The state of the model's generator for the link (a list of words)."""
        return self._state(self.lib.lib.ibr_port_state, switch, port)

    def set_port_state(self, switch, port, state):
        self._state(self.lib.lib.ibr_port_set_state, switch, port, _words(state))

    def seed_state(self, switch, port):
        """The state the configuration's seed gives the link."""
        return self._state(self.lib.lib.ibr_port_seed_state, switch, port)

    def receive(self, pkt):
        s = Sample()
        self._check(self.lib.lib.ibr_receive(self.handle, _packet(pkt), len(pkt), C.byref(s)))
        return s

    def field(self, pkt, name):
        v = C.c_uint64()
        self._check(self.lib.lib.ibr_field_get(self.handle, _packet(pkt), len(pkt), _text("name", name), C.byref(v)))
        return v.value

    def set_field(self, pkt, name, value):
        value = _int(name, value, 0, (1 << 64) - 1)
        self._check(self.lib.lib.ibr_field_set(self.handle, _packet(pkt), len(pkt), _text("name", name), value))

    def decoder(self, path_len, links):
        """A decoder over candidate links: (switch, port, hop) triples."""
        path_len = _int("path_len", path_len, 1, INT32_MAX)
        links = list(links)
        ls = (Link * max(len(links), 1))()
        hs = (C.c_int32 * max(len(links), 1))()
        for i, (s, p, h) in enumerate(links):
            ls[i] = Link(_int(f"links[{i}] switch", s, 0, U16), _int(f"links[{i}] port", p, 0, U8))
            hs[i] = _int(f"links[{i}] hop", h, 1, path_len)
        d = _H()
        self._check(self.lib.lib.ibr_decoder_new(self.handle, path_len, ls, hs, len(links), C.byref(d)))
        return Decoder(self.lib, d.value)


class Decoder(_Handle):
    """An ibr_decoder."""

    def add_packet(self, pkt):
        self._check(self.lib.lib.ibr_decoder_add_packet(self.handle, _packet(pkt), len(pkt)))

    def add_sample(self, s):
        self._check(self.lib.lib.ibr_decoder_add_sample(self.handle, C.byref(s)))

    def add_packets(self, pkts):
        """ibr_decoder_add_packets: every packet of a Packets."""
        if not isinstance(pkts, Packets):
            raise TypeError("add_packets takes a Packets")
        data, size, off, lens, count = pkts._args()
        self._batch(self.lib.lib.ibr_decoder_add_packets(self.handle, data, size, off, lens, count, pkts.status), pkts)

    def add_samples(self, samples):
        """ibr_decoder_add_samples: a ctypes array of Sample (Sample * n)."""
        n = len(samples)
        if n > MAX_BATCH:
            raise ValueError(f"{n} samples: a batch holds at most {MAX_BATCH}")
        if n and not isinstance(samples, C.Array):
            samples = (Sample * n)(*samples)
        status = (C.c_int * max(n, 1))()
        st = self.lib.lib.ibr_decoder_add_samples(self.handle, samples if n else None, n, status)
        self._check(st, None if st == OK else list(status)[:n])

    def estimates(self, L, p=0.99):
        L = _int("L", L, 1, INT32_MAX)
        p = float(p)
        if not 0 < p < 1:
            raise ValueError(f"p is {p}: want 0 < p < 1")
        n = C.c_size_t()
        self.lib.lib.ibr_decoder_estimates(self.handle, L, p, None, 0, C.byref(n))
        out = (Estimate * max(n.value, 1))()
        self._check(self.lib.lib.ibr_decoder_estimates(self.handle, L, p, out, n.value, C.byref(n)))
        return list(out)[:n.value]

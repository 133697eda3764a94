"""ibreservoir: the reference model's C library (libibreservoir) through
ctypes, standard library only. The structures mirror capi/ibreservoir.h,
which documents every function; errors raise IbrError with the library's
status and message.

    import ibreservoir
    lib = ibreservoir.Library("out/lib/libibreservoir.so")
    m = lib.model("hash=crc32 count-bits=4")
    pkt = m.packet(slid=0x101, dlid=0x202, psn=7, payload=b"hello")
    m.send(pkt, 0x101)
    result = m.stage(pkt, switch=1, port=33, congested=False)
    sample = m.receive(pkt)
"""
import ctypes as C

OK, ERR_ARG, ERR_CONFIG, ERR_PACKET, ERR_STATE, ERR_HANDLE, ERR_SPACE, ERR_INTERNAL = range(8)
SCHEME_FULLID, SCHEME_TWORESERVOIR, SCHEME_ONERESERVOIR = range(3)


class Info(C.Structure):
    _fields_ = [(n, C.c_int32) for n in (
        "scheme", "lnh", "count_bits", "sender_l", "count_max", "state_bits", "state_words",
        "footer_bytes", "max_switch", "max_port")]


class PacketSpec(C.Structure):
    _fields_ = [("slid", C.c_uint16), ("dlid", C.c_uint16), ("sl", C.c_uint8), ("vl", C.c_uint8),
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
    """A call failed: status is the ibr_status, message the library's."""

    def __init__(self, status, message):
        super().__init__(f"status {status}: {message}")
        self.status, self.message = status, message


_H = C.c_size_t  # uintptr_t handles
_BUF = C.POINTER(C.c_uint8)
_SIGNATURES = {
    "ibr_version": (C.c_char_p, []),
    "ibr_model_new": (C.c_int, [C.c_char_p, C.POINTER(_H), C.c_char_p, C.c_size_t]),
    "ibr_free": (C.c_int, [_H]),
    "ibr_last_error": (C.c_int, [_H, C.c_char_p, C.c_size_t]),
    "ibr_model_info": (C.c_int, [_H, C.POINTER(Info)]),
    "ibr_model_config": (C.c_int, [_H, C.c_char_p, C.c_size_t]),
    "ibr_model_digest": (C.c_int, [_H, C.c_char_p, C.c_size_t]),
    "ibr_packet_build": (C.c_int, [_H, C.POINTER(PacketSpec), _BUF, C.c_size_t, C.POINTER(C.c_size_t)]),
    "ibr_send": (C.c_int, [_H, _BUF, C.c_size_t, C.c_uint16]),
    "ibr_stage": (C.c_int, [_H, _BUF, C.c_size_t, C.c_uint16, C.c_uint8, C.c_int, C.POINTER(C.c_uint32), C.c_size_t,
                            C.POINTER(StageResult)]),
    "ibr_receive": (C.c_int, [_H, _BUF, C.c_size_t, C.POINTER(Sample)]),
    "ibr_decoder_new": (C.c_int, [_H, C.c_int, C.POINTER(Link), C.POINTER(C.c_int32), C.c_size_t, C.POINTER(_H)]),
    "ibr_decoder_add_packet": (C.c_int, [_H, _BUF, C.c_size_t]),
    "ibr_decoder_estimates": (C.c_int, [_H, C.c_int, C.c_double, C.POINTER(Estimate), C.c_size_t,
                                        C.POINTER(C.c_size_t)]),
}


class Library:
    """The loaded shared library (go build -buildmode=c-shared ./capi)."""

    def __init__(self, path):
        self.lib = C.CDLL(path)
        for name, (restype, argtypes) in _SIGNATURES.items():
            f = getattr(self.lib, name)
            f.restype, f.argtypes = restype, argtypes

    def version(self):
        return self.lib.ibr_version().decode()

    def model(self, config=""):
        h, err = _H(), C.create_string_buffer(1024)
        st = self.lib.ibr_model_new(config.encode(), C.byref(h), err, len(err))
        if st != OK:
            raise IbrError(st, err.value.decode())
        return Model(self, h.value)


class _Handle:
    def __init__(self, lib, handle):
        self.lib, self.handle = lib, handle

    def _check(self, status):
        if status != OK:
            msg = C.create_string_buffer(2048)
            self.lib.lib.ibr_last_error(self.handle, msg, len(msg))
            raise IbrError(status, msg.value.decode())

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
    return (C.c_uint8 * len(pkt)).from_buffer(pkt)


class Model(_Handle):
    """An ibr_model: packets are bytearrays, changed in place."""

    def info(self):
        i = Info()
        self._check(self.lib.lib.ibr_model_info(self.handle, C.byref(i)))
        return i

    def config(self):
        b = C.create_string_buffer(1024)
        self._check(self.lib.lib.ibr_model_config(self.handle, b, len(b)))
        return b.value.decode()

    def digest(self):
        b = C.create_string_buffer(65)
        self._check(self.lib.lib.ibr_model_digest(self.handle, b, len(b)))
        return b.value.decode()

    def packet(self, slid=0, dlid=0, dest_qp=0, psn=0, opcode=0x04, pkey=0xFFFF, payload=b""):
        spec = PacketSpec(slid=slid, dlid=dlid, dest_qp=dest_qp, psn=psn, opcode=opcode, pkey=pkey)
        data = (C.c_uint8 * max(len(payload), 1)).from_buffer_copy(payload.ljust(1, b"\0"))
        spec.payload, spec.payload_len = C.cast(data, _BUF), len(payload)
        buf, n = (C.c_uint8 * 9000)(), C.c_size_t()
        self._check(self.lib.lib.ibr_packet_build(self.handle, C.byref(spec), buf, len(buf), C.byref(n)))
        return bytearray(buf[:n.value])

    def send(self, pkt, lid):
        self._check(self.lib.lib.ibr_send(self.handle, _packet(pkt), len(pkt), lid))

    def stage(self, pkt, switch, port, congested=False, state=None):
        """One switch stage on pkt in place. state (a list of 32-bit words,
        changed in place) is the port's generator state; None uses the
        model's own generator for the port."""
        r = StageResult()
        words, n = None, 0
        if state is not None:
            words, n = (C.c_uint32 * len(state))(*state), len(state)
        self._check(self.lib.lib.ibr_stage(self.handle, _packet(pkt), len(pkt), switch, port, int(congested),
                                           words, n, C.byref(r)))
        if state is not None:
            state[:] = list(words)
        return r

    def receive(self, pkt):
        s = Sample()
        self._check(self.lib.lib.ibr_receive(self.handle, _packet(pkt), len(pkt), C.byref(s)))
        return s

    def decoder(self, path_len, links):
        """A decoder over candidate links: (switch, port, hop) triples."""
        ls = (Link * len(links))(*[Link(s, p) for s, p, _ in links])
        hs = (C.c_int32 * len(links))(*[h for _, _, h in links])
        d = _H()
        self._check(self.lib.lib.ibr_decoder_new(self.handle, path_len, ls, hs, len(links), C.byref(d)))
        return Decoder(self.lib, d.value)


class Decoder(_Handle):
    """An ibr_decoder."""

    def add_packet(self, pkt):
        self._check(self.lib.lib.ibr_decoder_add_packet(self.handle, _packet(pkt), len(pkt)))

    def estimates(self, L, p=0.99):
        n = C.c_size_t()
        self.lib.lib.ibr_decoder_estimates(self.handle, L, p, None, 0, C.byref(n))
        out = (Estimate * n.value)()
        self._check(self.lib.lib.ibr_decoder_estimates(self.handle, L, p, out, n.value, C.byref(n)))
        return list(out)

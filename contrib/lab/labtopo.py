# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
"""Lab topology files: parser, per-pair rates, matrix writer and collective lower bounds.

Python 3 standard library only.  Used by `contrib/lab/lab` (to build the emulated cloud) and by
`contrib/bench/compare` (to compute physical lower bounds).  The file format is documented in
docs/lab-topology-format.md; every rate in a topology file is MPI goodput (TCP payload), in bit/s
with a unit (`kbit`, `mbit`, `gbit`).  The shapers are set to the corresponding wire rate
(x WIRE_FACTOR), so that the goodput an MPI program sees matches the file.
"""

import math
import random
import re

FORMAT_TAG = "cloudaware-lab-topology"
FORMAT_VERSION = 1
MAX_HOSTS = 64
MAX_RACKS = 16
# Ethernet frame of a full-MSS TCP segment (1514 bytes on the wire as tc counts it) over its payload
# (1448 bytes with timestamps): shaping the wire at rate*WIRE_FACTOR gives `rate` of goodput.
WIRE_FACTOR = 1514.0 / 1448.0
DEFAULT_LATENCY_S = 1e-4

_UNITS = {"bit": 1.0, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
_RATE_RE = re.compile(r"^([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)(bit|kbit|mbit|gbit)$", re.I)


class TopologyError(Exception):
    """A topology file is malformed; the message names the file and the line."""


def parse_rate(text):
    """'40mbit' -> 40e6 (bit/s).  A unit is required."""
    m = _RATE_RE.match(text.strip())
    if not m:
        raise ValueError("bad rate '%s' (expected a number with a unit: kbit, mbit or gbit, e.g. 40mbit)" % text)
    value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if not (value > 0 and math.isfinite(value)):
        raise ValueError("rate '%s' must be > 0" % text)
    return value


def format_rate(bps):
    """bit/s -> short human text in Mbit/s."""
    return "%.3g Mbit/s" % (bps / 1e6)


def parse_hosts(text, nhosts):
    """'0-3,6' -> [0,1,2,3,6]"""
    out = []
    for part in text.split(","):
        if not part:
            raise ValueError("empty element in host list '%s'" % text)
        if "-" in part:
            a, b = part.split("-", 1)
            a, b = int(a), int(b)
            if b < a:
                raise ValueError("bad host range '%s'" % part)
            # checked before expanding: '0-99999999999' must not build a list of 10^11 hosts
            if not (0 <= a and b < nhosts):
                raise ValueError("host range '%s' out of range 0..%d" % (part, nhosts - 1))
            out.extend(range(a, b + 1))
        else:
            out.append(int(part))
        if not 0 <= out[-1] < nhosts:
            raise ValueError("host %d out of range 0..%d" % (out[-1], nhosts - 1))
    if len(set(out)) != len(out):
        raise ValueError("host listed twice in '%s'" % text)
    return out


class Rack:
    def __init__(self, name, hosts, intra, uplink_out=None, uplink_in=None):
        self.name = name
        self.hosts = hosts
        self.intra = intra
        self.uplink_out = uplink_out  # bit/s goodput, None = not shaped
        self.uplink_in = uplink_in


class Topology:
    """A parsed topology.  Hosts are 0..n-1; rate[i][j] is the configured per-pair rate (bit/s
    goodput) of the pipe i->j; alone[i][j] is what one transfer i->j gets when nothing else runs
    (per-pair rate capped by rack uplinks and the ingress cap), i.e. what `lab verify` measures."""

    def __init__(self):
        self.path = None
        self.name = None
        self.nhosts = None
        self.ranks_per_host = 1
        self.latency = DEFAULT_LATENCY_S
        self.racks = []
        self.cross = None
        self.seed = 1
        self.uneven = 0.0
        self.asymmetry = 0.0
        self.pairs = {}  # (i, j) -> bit/s
        self.scale = {}  # (i, j) -> factor
        self.ingress = {}  # host -> bit/s
        self.egress = {}  # host -> bit/s
        self.rack_of = []
        self.rate = None
        self.alone = None
        self.loaded = None

    # ---------------------------------------------------------------- derived quantities
    def _compute(self):
        n = self.nhosts
        rng_u = random.Random(self.seed)
        rng_a = random.Random(self.seed * 1000003 + 7)
        u = [[1.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                f = rng_u.uniform(1.0 - self.uneven, 1.0 + self.uneven)
                u[i][j] = u[j][i] = f
        rate = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                a = rng_a.uniform(1.0 - self.asymmetry, 1.0 + self.asymmetry)
                ri, rj = self.rack_of[i], self.rack_of[j]
                base = self.racks[ri].intra if ri == rj else self.cross
                r = base * u[i][j] * a * self.scale.get((i, j), 1.0)
                if (i, j) in self.pairs:
                    r = self.pairs[(i, j)]
                # round to 1 kbit/s: tc takes integer kbit
                rate[i][j] = max(1000.0, round(r / 1000.0) * 1000.0)
        self.rate = rate
        alone = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                r = rate[i][j]
                ri, rj = self.rack_of[i], self.rack_of[j]
                if ri != rj:
                    if self.racks[ri].uplink_out:
                        r = min(r, self.racks[ri].uplink_out)
                    if self.racks[rj].uplink_in:
                        r = min(r, self.racks[rj].uplink_in)
                if j in self.ingress:
                    r = min(r, self.ingress[j])
                if i in self.egress:
                    r = min(r, self.egress[i])
                alone[i][j] = r
        self.alone = alone
        # What a transfer gets while every host of its racks also sends across (each one's fair
        # share of the shared uplinks): the rack structure a pairwise matrix cannot otherwise
        # show, and what CMPI's concurrent calibration tournament measures on such a network.
        loaded = [row[:] for row in alone]
        for i in range(n):
            for j in range(n):
                ri, rj = self.rack_of[i], self.rack_of[j]
                if i == j or ri == rj:
                    continue
                out_r, in_r = self.racks[ri], self.racks[rj]
                if out_r.uplink_out:
                    loaded[i][j] = min(loaded[i][j], out_r.uplink_out / len(out_r.hosts))
                if in_r.uplink_in:
                    loaded[i][j] = min(loaded[i][j], in_r.uplink_in / len(in_r.hosts))
        self.loaded = loaded

    def same_rack(self, i, j):
        return self.rack_of[i] == self.rack_of[j]

    def egress_capacity(self, h):
        """Upper limit of the total rate host h can send to all others at once (bit/s)."""
        r = self.rack_of[h]
        inside = sum(self.rate[h][j] for j in range(self.nhosts) if j != h and self.rack_of[j] == r)
        outside = sum(self.rate[h][j] for j in range(self.nhosts) if self.rack_of[j] != r)
        if self.racks[r].uplink_out:
            outside = min(outside, self.racks[r].uplink_out)
        total = inside + outside
        if h in self.egress:
            total = min(total, self.egress[h])
        return total

    def ingress_capacity(self, h):
        """Upper limit of the total rate host h can receive from all others at once (bit/s)."""
        r = self.rack_of[h]
        inside = sum(self.rate[i][h] for i in range(self.nhosts) if i != h and self.rack_of[i] == r)
        outside = sum(self.rate[i][h] for i in range(self.nhosts) if self.rack_of[i] != r)
        if self.racks[r].uplink_in:
            outside = min(outside, self.racks[r].uplink_in)
        total = inside + outside
        if h in self.ingress:
            total = min(total, self.ingress[h])
        return total

    def rack_out_capacity(self, r):
        """Total rate rack r can send to other racks (bit/s)."""
        hosts = self.racks[r].hosts
        s = sum(self.rate[i][j] for i in hosts for j in range(self.nhosts) if self.rack_of[j] != r)
        return min(s, self.racks[r].uplink_out) if self.racks[r].uplink_out else s

    def rack_in_capacity(self, r):
        hosts = self.racks[r].hosts
        s = sum(self.rate[i][j] for j in hosts for i in range(self.nhosts) if self.rack_of[i] != r)
        return min(s, self.racks[r].uplink_in) if self.racks[r].uplink_in else s

    # ---------------------------------------------------------------- output
    def matrix_text(self, hostnames, loaded=False):
        """The configured network in the component's matrix format (docs/matrix-format.md):
        bandwidth = bytes/s of goodput a lone transfer gets (loaded: while every host of the
        racks involved sends across, i.e. its fair share of shared uplinks); latency = the
        constant `latency`."""
        n = self.nhosts
        rates = self.loaded if loaded else self.alone
        what = ("goodput of a transfer while every host of its racks sends across (fair share of "
                "the shared rack uplinks)" if loaded else
                "goodput of a lone transfer (per-pair rate, capped by rack uplinks and ingress caps)")
        out = ["# written by contrib/lab/lab from topology '%s' (%s)" % (self.name, self.path),
               "# bandwidth: configured MPI %s, bytes/s." % what,
               "# latency: configured constant (the lab shapes bandwidth only).",
               "cloudaware-matrix 1",
               "nodes %d" % n]
        out += ["host %s" % h for h in hostnames]
        out.append("latency_s")
        for i in range(n):
            out.append(" ".join("0" if i == j else "%.3e" % self.latency for j in range(n)))
        out.append("bandwidth_Bps")
        for i in range(n):
            out.append(" ".join("0" if i == j else "%.6e" % (rates[i][j] / 8.0) for j in range(n)))
        out.append("end")
        return "\n".join(out) + "\n"

    def describe(self):
        """Human-readable summary: racks, uplinks, the configured pair matrix (Mbit/s)."""
        n = self.nhosts
        lines = ["topology %s: %d hosts x %d ranks, %d rack(s), seed %d, uneven %g, asymmetry %g"
                 % (self.name, n, self.ranks_per_host, len(self.racks), self.seed, self.uneven, self.asymmetry)]
        for r in self.racks:
            up = ""
            if r.uplink_out or r.uplink_in:
                up = ", uplink out %s / in %s" % (format_rate(r.uplink_out) if r.uplink_out else "unshaped",
                                                 format_rate(r.uplink_in) if r.uplink_in else "unshaped")
                hsum = len(r.hosts) * (self.cross or r.intra)
                if r.uplink_out:
                    up += " (oversubscription %.2g:1)" % (hsum / r.uplink_out)
            lines.append("  rack %s: hosts %s, in-rack %s%s" % (r.name, ",".join(map(str, r.hosts)),
                                                                format_rate(r.intra), up))
        if self.cross:
            lines.append("  cross-rack per-pair base rate %s" % format_rate(self.cross))
        for h, c in sorted(self.ingress.items()):
            lines.append("  ingress cap host %d: %s" % (h, format_rate(c)))
        for h, c in sorted(self.egress.items()):
            lines.append("  egress cap host %d: %s" % (h, format_rate(c)))
        lines.append("  lone-transfer goodput, Mbit/s (row = sender, column = receiver):")
        lines.append("       " + "".join("%7d" % j for j in range(n)))
        for i in range(n):
            lines.append("  %4d " % i + "".join("%7s" % ("-" if i == j else "%.1f" % (self.alone[i][j] / 1e6))
                                                 for j in range(n)))
        return "\n".join(lines)


def load(path):
    """Parses the file at path; TopologyError (one line naming the file) for any content problem,
    including bytes that are not UTF-8 text, OSError when it cannot be read."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TopologyError("%s: not UTF-8 text (byte %d)" % (path, e.start)) from None
    return parse(text, path)


def parse(text, path="<topology>"):
    t = Topology()
    t.path = path
    seen_header = False
    ended = False
    rack_lines = []
    pending = []  # (lineno, keyword, args) processed once `hosts` is known

    def err(lineno, msg):
        raise TopologyError("%s:%d: %s" % (path, lineno, msg))

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if ended:
            err(lineno, "nothing but comments may follow 'end'")
        words = line.split()
        kw, args = words[0], words[1:]
        if not seen_header:
            if kw != FORMAT_TAG or args != [str(FORMAT_VERSION)]:
                err(lineno, "first line must be '%s %d'" % (FORMAT_TAG, FORMAT_VERSION))
            seen_header = True
            continue
        try:
            if kw == "end":
                if args:
                    err(lineno, "'end' takes no arguments")
                ended = True
            elif kw == "name":
                if len(args) != 1 or not re.match(r"^[A-Za-z0-9_.-]+$", args[0]):
                    err(lineno, "usage: name NAME (letters, digits, _ . -)")
                t.name = args[0]
            elif kw == "hosts":
                if len(args) != 1 or t.nhosts is not None:
                    err(lineno, "usage: hosts N (once)")
                t.nhosts = int(args[0])
                if not 1 <= t.nhosts <= MAX_HOSTS:
                    err(lineno, "hosts must be 1..%d" % MAX_HOSTS)
            elif kw == "ranks_per_host":
                if len(args) != 1:
                    err(lineno, "usage: ranks_per_host K")
                t.ranks_per_host = int(args[0])
                if not 1 <= t.ranks_per_host <= 64:
                    err(lineno, "ranks_per_host must be 1..64")
            elif kw == "latency":
                if len(args) != 1:
                    err(lineno, "usage: latency SECONDS")
                t.latency = float(args[0])
                if not (t.latency >= 0 and math.isfinite(t.latency)):
                    err(lineno, "latency must be finite and >= 0")
            elif kw == "cross":
                if len(args) != 1:
                    err(lineno, "usage: cross RATE")
                t.cross = parse_rate(args[0])
            elif kw == "seed":
                if len(args) != 1:
                    err(lineno, "usage: seed N")
                t.seed = int(args[0])
            elif kw in ("uneven", "asymmetry"):
                if len(args) != 1:
                    err(lineno, "usage: %s FRACTION (0 <= FRACTION < 1)" % kw)
                v = float(args[0])
                if not 0 <= v < 1:
                    err(lineno, "%s must be in [0, 1)" % kw)
                setattr(t, kw, v)
            elif kw in ("rack", "pair", "scale", "ingress", "egress"):
                pending.append((lineno, kw, args))
            else:
                err(lineno, "unknown keyword '%s'" % kw)
        except ValueError as e:
            err(lineno, str(e))
    if not seen_header:
        raise TopologyError("%s: empty file (expected '%s %d')" % (path, FORMAT_TAG, FORMAT_VERSION))
    if not ended:
        raise TopologyError("%s: missing 'end' (truncated file?)" % path)
    if t.name is None:
        raise TopologyError("%s: missing 'name'" % path)
    if t.nhosts is None:
        raise TopologyError("%s: missing 'hosts'" % path)
    n = t.nhosts
    t.rack_of = [None] * n
    for lineno, kw, args in pending:
        try:
            if kw == "rack":
                # rack NAME hosts LIST intra RATE [uplink RATE | uplink_out RATE | uplink_in RATE]...
                if len(args) < 5 or args[1] != "hosts" or args[3] != "intra":
                    err(lineno, "usage: rack NAME hosts LIST intra RATE [uplink RATE] "
                                "[uplink_out RATE] [uplink_in RATE]")
                name = args[0]
                if any(r.name == name for r in t.racks):
                    err(lineno, "rack '%s' defined twice" % name)
                hosts = parse_hosts(args[2], n)
                rack = Rack(name, hosts, parse_rate(args[4]))
                rest = args[5:]
                if len(rest) % 2:
                    err(lineno, "rack options come in pairs (KEY RATE)")
                for k in range(0, len(rest), 2):
                    key, val = rest[k], parse_rate(rest[k + 1])
                    if key == "uplink":
                        rack.uplink_out = rack.uplink_in = val
                    elif key == "uplink_out":
                        rack.uplink_out = val
                    elif key == "uplink_in":
                        rack.uplink_in = val
                    else:
                        err(lineno, "unknown rack option '%s'" % key)
                for h in hosts:
                    if t.rack_of[h] is not None:
                        err(lineno, "host %d is already in rack '%s'" % (h, t.racks[t.rack_of[h]].name))
                    t.rack_of[h] = len(t.racks)
                t.racks.append(rack)
                if len(t.racks) > MAX_RACKS:
                    err(lineno, "at most %d racks" % MAX_RACKS)
            elif kw in ("pair", "scale"):
                if len(args) != 3:
                    err(lineno, "usage: %s FROM TO %s" % (kw, "RATE" if kw == "pair" else "FACTOR"))
                a, b = int(args[0]), int(args[1])
                if not (0 <= a < n and 0 <= b < n) or a == b:
                    err(lineno, "%s needs two different hosts in 0..%d" % (kw, n - 1))
                if kw == "pair":
                    t.pairs[(a, b)] = parse_rate(args[2])
                else:
                    f = float(args[2])
                    if not (f > 0 and math.isfinite(f)):
                        err(lineno, "scale factor must be > 0")
                    t.scale[(a, b)] = f
            elif kw in ("ingress", "egress"):
                if len(args) != 2:
                    err(lineno, "usage: %s HOSTS RATE" % kw)
                for h in parse_hosts(args[0], n):
                    getattr(t, kw)[h] = parse_rate(args[1])
        except ValueError as e:
            err(lineno, str(e))
    if not t.racks:
        raise TopologyError("%s: at least one 'rack' line is required" % path)
    missing = [h for h in range(n) if t.rack_of[h] is None]
    if missing:
        raise TopologyError("%s: hosts %s are in no rack" % (path, ",".join(map(str, missing))))
    if len(t.racks) > 1 and t.cross is None:
        raise TopologyError("%s: several racks need a 'cross RATE' line" % path)
    t._compute()
    return t


# -------------------------------------------------------------------- lower bounds
BOUND_OPS = ("bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "barrier")


def lower_bound(t, op, nbytes, root=0):
    """A physical lower bound (seconds) for one call of `op` with `nbytes` per rank (the buffer size
    for bcast/reduce/allreduce, the per-rank block for gather/scatter/allgather) on topology t, with
    ranks placed by-slot (rank r on host r // ranks_per_host).  Only link capacities count (host
    egress and ingress capacity = sum of its pipes, capped by its rack uplink and its ingress cap;
    rack uplinks); latency, CPU and protocol overhead are ignored, so every real run is slower.
    Returns (seconds, reason) or (None, reason) when no bandwidth bound applies (barrier)."""
    n, p, m = t.nhosts, t.ranks_per_host, float(nbytes)
    if n < 2 or op == "barrier":
        return None, "latency-bound"
    rh = root // p
    rr = t.rack_of[rh]
    cands = []  # (seconds, reason)

    def add(bits, cap, why):
        if cap and cap > 0 and bits > 0:
            cands.append((bits / cap, why))

    nracks = len(t.racks)
    if op == "bcast":
        add(8 * m, t.egress_capacity(rh), "root host sends m")
        for h in range(n):
            if h != rh:
                add(8 * m, t.ingress_capacity(h), "host %d receives m" % h)
        for r in range(nracks):
            if r != rr:
                add(8 * m, t.rack_in_capacity(r), "rack %s uplink receives m" % t.racks[r].name)
    elif op == "reduce":
        add(8 * m, t.ingress_capacity(rh), "root host receives m")
        for h in range(n):
            if h != rh:
                add(8 * m, t.egress_capacity(h), "host %d sends m" % h)
        for r in range(nracks):
            if r != rr:
                add(8 * m, t.rack_out_capacity(r), "rack %s uplink sends m" % t.racks[r].name)
    elif op == "allreduce":
        for h in range(n):
            add(8 * m, t.ingress_capacity(h), "host %d receives m" % h)
            add(8 * m, t.egress_capacity(h), "host %d sends m" % h)
        if nracks > 1:
            for r in range(nracks):
                add(8 * m, t.rack_in_capacity(r), "rack %s uplink receives m" % t.racks[r].name)
                add(8 * m, t.rack_out_capacity(r), "rack %s uplink sends m" % t.racks[r].name)
    elif op in ("gather", "scatter"):
        into_root = op == "gather"
        others = (n - 1) * p * m
        add(8 * others, t.ingress_capacity(rh) if into_root else t.egress_capacity(rh),
            "root host %s (n-1)*p*m" % ("receives" if into_root else "sends"))
        for h in range(n):
            if h != rh:
                add(8 * p * m, t.egress_capacity(h) if into_root else t.ingress_capacity(h),
                    "host %d %s p*m" % (h, "sends" if into_root else "receives"))
        for r in range(nracks):
            k = len(t.racks[r].hosts)
            if r == rr:
                add(8 * (n - k) * p * m, t.rack_in_capacity(r) if into_root else t.rack_out_capacity(r),
                    "root rack uplink carries the other racks' blocks")
            else:
                add(8 * k * p * m, t.rack_out_capacity(r) if into_root else t.rack_in_capacity(r),
                    "rack %s uplink carries its blocks" % t.racks[r].name)
    elif op == "allgather":
        for h in range(n):
            add(8 * (n - 1) * p * m, t.ingress_capacity(h), "host %d receives (n-1)*p*m" % h)
            add(8 * p * m, t.egress_capacity(h), "host %d sends p*m" % h)
        if nracks > 1:
            for r in range(nracks):
                k = len(t.racks[r].hosts)
                add(8 * (n - k) * p * m, t.rack_in_capacity(r), "rack %s uplink receives" % t.racks[r].name)
                add(8 * k * p * m, t.rack_out_capacity(r), "rack %s uplink sends" % t.racks[r].name)
    else:
        raise ValueError("unknown op '%s'" % op)
    if not cands:
        return None, "no network traffic"
    return max(cands)

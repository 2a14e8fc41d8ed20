#!/usr/bin/env python3
# Copyright (c) 2026 The coll/cloudaware authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the seed corpora of the fuzz targets, taken at run time from the examples the docs
show (so the seeds follow the formats as the docs change):

  OUTDIR/matrix/    every fenced block of docs/*.md that is a matrix file, and the matrix the lab
                    writes for each shipped topology (contrib/lab/labtopo.py, matrix_text)
  OUTDIR/rules/     every fenced block of docs/*.md that is a rules file, docs/examples/*.conf,
                    contrib/bench/*.rules
  OUTDIR/cache/     each matrix seed as a cache entry: the node set line (host names in file
                    order, and reversed), then the file
  OUTDIR/topology/  every fenced block of docs/*.md that is a lab topology, the shipped *.topo

usage: seeds.py TOP_SRCDIR OUTDIR
"""
import glob
import os
import re
import sys

KINDS = {"cloudaware-matrix": "matrix", "cloudaware-rules": "rules",
         "cloudaware-lab-topology": "topology"}


def first_statement(text):
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            return line.split()[0]
    return None


def main():
    top, out = sys.argv[1], sys.argv[2]
    seeds = {k: [] for k in ("matrix", "rules", "cache", "topology")}
    for doc in sorted(glob.glob(os.path.join(top, "docs", "*.md"))):
        blocks = re.findall(r"^```[^\n]*\n(.*?)^```", open(doc, encoding="utf-8").read(),
                            re.S | re.M)
        for i, block in enumerate(blocks):
            kind = KINDS.get(first_statement(block))
            if kind:
                seeds[kind].append(("%s-%d" % (os.path.basename(doc)[:-3], i), block))
    for path in sorted(glob.glob(os.path.join(top, "docs", "examples", "*.conf")) +
                       glob.glob(os.path.join(top, "contrib", "bench", "*.rules"))):
        seeds["rules"].append((os.path.basename(path), open(path, encoding="utf-8").read()))
    sys.path.insert(0, os.path.join(top, "contrib", "lab"))
    import labtopo
    for path in sorted(glob.glob(os.path.join(top, "contrib", "lab", "topologies", "*.topo"))):
        name = os.path.basename(path)
        seeds["topology"].append((name, open(path, encoding="utf-8").read()))
        t = labtopo.load(path)
        seeds["matrix"].append((name + ".matrix",
                                t.matrix_text(["h%d" % i for i in range(t.nhosts)])))
    for name, text in seeds["matrix"]:
        hosts = [l.split()[1] for l in text.splitlines() if l.startswith("host ")]
        seeds["cache"].append((name, " ".join(hosts) + "\n" + text))
        seeds["cache"].append((name + ".reversed", " ".join(reversed(hosts)) + "\n" + text))
    for kind, items in seeds.items():
        if not items:
            sys.exit("seeds.py: no %s example found under %s" % (kind, top))
        os.makedirs(os.path.join(out, kind), exist_ok=True)
        for name, text in items:
            with open(os.path.join(out, kind, name), "w", encoding="utf-8") as f:
                f.write(text)
    print("seeds.py: %s" % ", ".join("%d %s" % (len(v), k) for k, v in seeds.items()))


if __name__ == "__main__":
    main()

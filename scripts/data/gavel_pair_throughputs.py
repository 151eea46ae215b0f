#!/usr/bin/env python3
# Usage: scripts/data/gavel_pair_throughputs.py GAVEL/scheduler/simulation_throughputs.json > data/real/gavel/pair_throughputs.csv
# Flattens the pair entries of Gavel's simulation_throughputs.json (scale factor 1; every entry at
# scale factors 2, 4 and 8 is [0, 0]) into data/real/gavel/pair_throughputs.csv.
import json, re, sys
d = json.load(open(sys.argv[1]))
key = re.compile(r"\('(.*)', (\d+)\)")
rows = []
for gpu in ('k80', 'p100', 'v100'):
    for a, table in d[gpu].items():
        ma = key.fullmatch(a); ja, sa = ma.group(1), int(ma.group(2))
        for b, v in table.items():
            if b == 'null': continue
            mb = key.fullmatch(b); jb, sb = mb.group(1), int(mb.group(2))
            assert sa == sb
            if sa != 1:
                assert v == [0.0, 0.0], (gpu, a, b, v)
                continue
            if ja > jb: continue  # the file is symmetric: T[a][b] == reversed(T[b][a])
            other = d[gpu][b][a]
            assert other == [v[1], v[0]], (gpu, a, b)
            rows.append((gpu, ja, jb, sa, v[0], v[1]))
print("gpu_type,job_type,other_job_type,scale_factor,steps_per_second,other_steps_per_second")
for r in sorted(rows):
    print("%s,%s,%s,%d,%r,%r" % r)

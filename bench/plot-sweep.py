#!/usr/bin/python3
"""Mean TTFT and mean latency against replay rate, one line per routing policy, from the POLICY-RATE.json reports
bench/router-sweep.sh writes.  Usage: bench/plot-sweep.py OUT_DIR PNG  (needs matplotlib: Debian's
python3-matplotlib)."""
import json
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend must be chosen first)

directory, png = pathlib.Path(sys.argv[1]), sys.argv[2]
runs = {}
for report in directory.glob("*.json"):
    match = re.fullmatch(r"(.+)-([0-9.]+)\.json", report.name)
    if not match:
        continue
    r = json.load(open(report))
    runs.setdefault(match.group(1), []).append((float(match.group(2)), r["ttft_ms"]["mean"], r["latency_ms"]["mean"]))

figure, (ttft, latency) = plt.subplots(1, 2, figsize=(11, 4.2))
for policy, points in sorted(runs.items()):
    points.sort()
    rates = [p[0] for p in points]
    ttft.plot(rates, [p[1] / 1000 for p in points], marker="o", label=policy)
    latency.plot(rates, [p[2] / 1000 for p in points], marker="o", label=policy)
for axis, title in ((ttft, "mean TTFT (s)"), (latency, "mean latency (s)")):
    axis.set_xlabel("replay rate (× the trace's)")
    axis.set_title(title)
    axis.set_yscale("log")
    axis.grid(True, which="both", alpha=0.3)
ttft.legend()
figure.suptitle(directory.name)
figure.tight_layout()
figure.savefig(png, dpi=110)

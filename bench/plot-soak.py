#!/usr/bin/python3
"""The series of a `squall bench soak` report against time, one panel each (heap after GC, RSS, direct buffers,
threads, open files, KV pages in use), the warm-up shaded.  Usage: bench/plot-soak.py SOAK.json PNG  (needs
matplotlib: Debian's python3-matplotlib)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend must be chosen first)

report_file, png = sys.argv[1], sys.argv[2]
report = json.load(open(report_file))
samples = report["samples"]
minutes = [s["t_s"] / 60 for s in samples]
MIB = 1 << 20
panels = [
    ("heap after GC (MiB)", "heap_after_gc_bytes", MIB),
    ("RSS (MiB)", "rss_bytes", MIB),
    ("direct buffers (MiB)", "direct_buffer_bytes", MIB),
    ("live threads", "threads", 1),
    ("open files", "open_files", 1),
    ("KV pages in use", "kv_pages_in_use", 1),
]
figure, axes = plt.subplots(2, 3, figsize=(13, 6.5))
for axis, (title, key, scale) in zip(axes.flat, panels):
    axis.plot(minutes, [s[key] / scale for s in samples], marker=".", linewidth=1)
    if key == "rss_bytes" and "heap_committed_bytes" in samples[0]:
        # the committed heap is part of the RSS: G1 grows it under allocation pressure, not a leak by itself
        axis.plot(minutes, [s["heap_committed_bytes"] / scale for s in samples], linewidth=1, label="of which heap committed")
        axis.legend(loc="lower right")
    axis.axvspan(0, report["warmup_s"] / 60, color="grey", alpha=0.15, label="warm-up")
    axis.set_title(title)
    axis.set_xlabel("minutes")
    axis.set_ylim(bottom=0)
    axis.grid(True, alpha=0.3)
axes.flat[0].legend(loc="lower right")
figure.suptitle("squall bench soak: %s, %d streams, %d requests, %d failed" % (
    report["model"], report["concurrency"], report["requests_completed"], report["requests_failed"]))
figure.tight_layout()
figure.savefig(png, dpi=100)

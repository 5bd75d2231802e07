#!/usr/bin/env python3
"""Writes a Mooncake-format trace (one JSON object per line: timestamp in ms, input_length, output_length,
hash_ids of 512-token blocks) that mixes short chat turns with long documents: Poisson arrivals at RATE requests
a second for SECONDS, a LONG_SHARE of them long prompts with short answers, the rest short prompts with long
answers. Every prompt's blocks are its own (no prefix sharing), so what a run measures is how prefill and decode
share the workers, not the cache. The published Mooncake traces are prefill-bound throughout; this is the mix
where disaggregated prefill is meant to help (bench/disagg.sh replays it).

  bench/mixed-trace.py OUT.jsonl [--seconds 200] [--rate 6] [--long-share 0.25] [--seed 1]
"""
import argparse
import json
import random

BLOCK = 512


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--seconds", type=float, default=200)
    parser.add_argument("--rate", type=float, default=6, help="requests a second")
    parser.add_argument("--long-share", type=float, default=0.25)
    parser.add_argument("--short-isl", type=int, nargs=2, default=[256, 2048], metavar=("MIN", "MAX"))
    parser.add_argument("--short-osl", type=int, nargs=2, default=[128, 1024], metavar=("MIN", "MAX"))
    parser.add_argument("--long-isl", type=int, nargs=2, default=[8192, 32768], metavar=("MIN", "MAX"))
    parser.add_argument("--long-osl", type=int, nargs=2, default=[32, 128], metavar=("MIN", "MAX"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    next_block = 0
    t = 0.0
    with open(args.out, "w") as out:
        while True:
            t += rng.expovariate(args.rate)
            if t >= args.seconds:
                break
            long = rng.random() < args.long_share
            isl = rng.randint(*(args.long_isl if long else args.short_isl))
            osl = rng.randint(*(args.long_osl if long else args.short_osl))
            blocks = -(-isl // BLOCK)
            out.write(json.dumps({"timestamp": int(t * 1000), "input_length": isl, "output_length": osl,
                                  "hash_ids": list(range(next_block, next_block + blocks))}) + "\n")
            next_block += blocks


if __name__ == "__main__":
    main()

"""A protocol-v1 bot written from docs/protocol.md alone: a program that reads JSON lines on
standard input and writes one answer line per request on standard output, its log on
standard error. No arena code: what an author in any language writes."""

import json
import random
import sys


def main():
    rng = random.Random()
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") == "hello":
            rng.seed(bytes.fromhex(msg["seed"]))
            print("hello from seat", msg["seat"], file=sys.stderr)
            sys.stdout.write(json.dumps({"protocol": 1, "name": "raw"}) + "\n")
        elif msg.get("type") == "act":
            obs = msg["obs"]
            legal = obs["legal"]
            action = rng.choice(legal) if obs["phase"] != "bid1" else legal[-1]
            sys.stdout.write(json.dumps({"id": msg["id"], "action": action}) + "\n")
        sys.stdout.flush()


main()

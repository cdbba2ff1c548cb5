#!/usr/bin/env python3
"""Hostile requests to every route of `intersticed` (a node daemon and a
data center's broker): no 500, no crash, every answer in bounded time.

Starts each daemon on a temporary state directory (root needed: jobs run as
their submitter), then sends to every route malformed and extreme bodies
(not JSON, wrong types, huge and negative numbers, deep nesting, a megabyte
string, invalid UTF-8, unknown fields), bad ids and query strings, each
bounded in time. A request fails the pass when the daemon answers 500, does
not answer in time, or is no longer healthy after it. Exit status 1 when
anything failed.

    python3 scripts/fuzz-api.py [--bin target/debug/intersticed] [--per-route 60] [--seed 1]
"""

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

NODE_ROUTES = [
    ("POST", "/v1/jobs"), ("GET", "/v1/jobs"), ("GET", "/v1/jobs/{id}"), ("DELETE", "/v1/jobs/{id}"),
    ("GET", "/v1/jobs/{id}/output"), ("POST", "/v1/predict"), ("GET", "/v1/slots"),
    ("POST", "/v1/hpc/events"), ("GET", "/v1/area"), ("POST", "/v1/area"), ("GET", "/metrics"),
    ("GET", "/healthz"),
]
BROKER_ROUTES = [
    ("POST", "/v1/jobs"), ("GET", "/v1/jobs"), ("GET", "/v1/jobs/{id}"), ("POST", "/v1/predict"),
    ("POST", "/v1/datacenter/tuples"), ("GET", "/v1/datacenter/members"),
    ("POST", "/v1/datacenter/evicted"), ("GET", "/metrics"), ("GET", "/healthz"),
]
IDS = ["1", "0", "-1", "18446744073709551616", "abc", "%00", "1e9", "9" * 400, "..%2F..%2Fetc"]
QUERIES = ["", "?limit=0", "?limit=-1", "?limit=99999999999", "?cursor=zzz", "?tail=-5", "?tail=1e30",
           "?limit=1&cursor=before-0", "?" + "a=b&" * 2000]
NUMBERS = [0, -1, 1e308, -1e308, 18446744073709551616, 4000000000, 0.5, 1e-300, "NaN", "inf", None, True, [], {}]
KEYS = ["procs", "walltime", "slo", "argv", "env", "workdir", "class", "memory_mb", "features", "admission",
        "bytes", "type", "id", "time", "cpus", "conv_procs", "set", "on_behalf_of", "tuple", "address",
        "member", "job", "evicted", "now", "immediate", "future", "kind"]


def body(rng):
    """A hostile body: bytes."""
    choice = rng.randrange(9)
    if choice == 0:
        return b""
    if choice == 1:
        return b"\xff\xfe{not json"
    if choice == 2:
        return json.dumps("x" * (1 << 20)).encode()
    if choice == 3:
        return ("[" * 5000 + "]" * 5000).encode()
    if choice == 4:
        return json.dumps([1, 2, 3]).encode()
    fields = {}
    for key in rng.sample(KEYS, rng.randrange(1, 8)):
        fields[key] = rng.choice(NUMBERS + ["", "x" * rng.randrange(0, 5000), ["/bin/true"] * rng.randrange(0, 50),
                                            {"A": "B" * rng.randrange(0, 100)}, "0-999999", "started", "1-0"])
    if choice == 5:  # a plausible request with one field broken
        fields.update({"procs": 1, "walltime": 60, "slo": 600, "argv": ["/bin/true"]})
        fields[rng.choice(KEYS)] = rng.choice(NUMBERS)
    text = json.dumps(fields, allow_nan=True)
    return text.encode()


def request(sock_path, method, path, payload, seconds):
    """(status, seconds taken); status None: no answer in time or the connection failed."""
    start = time.monotonic()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(seconds)
            s.connect(sock_path)
            head = (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n").encode()
            try:
                s.sendall(head + payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the daemon answered before the whole body was sent: read its answer
            data = b""
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                data += chunk
    except (socket.timeout, OSError):
        return None, time.monotonic() - start
    line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    parts = line.split()
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    return status, time.monotonic() - start


def start(binary, config_text, directory):
    config = os.path.join(directory, "d.yaml")
    with open(config, "w") as f:
        f.write(config_text)
    log = open(os.path.join(directory, "log"), "w")
    child = subprocess.Popen([binary, "--config", config], stdout=subprocess.DEVNULL, stderr=log)
    sock_path = os.path.join(directory, "d.sock")
    deadline = time.monotonic() + 20
    while request(sock_path, "GET", "/healthz", b"", 2)[0] != 200:
        if time.monotonic() > deadline or child.poll() is not None:
            child.kill()
            raise SystemExit(f"fuzz-api: the daemon did not come up: {open(log.name).read()[-2000:]}")
        time.sleep(0.05)
    return child, sock_path


def fuzz(binary, name, config_text, routes, args, rng):
    failures = runs = 0
    with tempfile.TemporaryDirectory(prefix=f"fuzz-api-{name}-") as directory:
        os.chmod(directory, 0o755)
        child, sock_path = start(binary, config_text.format(d=directory), directory)
        try:
            for method, route in routes:
                for _ in range(args.per_route):
                    path = route.replace("{id}", rng.choice(IDS)) + (rng.choice(QUERIES) if method == "GET" else "")
                    payload = body(rng) if method in ("POST", "DELETE") else b""
                    status, took = request(sock_path, method, path, payload, args.seconds)
                    runs += 1
                    alive = child.poll() is None and request(sock_path, "GET", "/healthz", b"", 5)[0] == 200
                    if status is None or status == 500 or not alive:
                        failures += 1
                        print(f"FAIL {name}: {method} {path} body {payload[:120]!r}: status {status}, "
                              f"{took:.1f} s, {'alive' if alive else 'DOWN'}", flush=True)
                        if not alive:
                            return runs, failures
        finally:
            child.kill()
            child.wait()
    return runs, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(REPO, "target/debug/intersticed"))
    parser.add_argument("--per-route", type=int, default=60, help="requests per route and method (60)")
    parser.add_argument("--seconds", type=float, default=10.0, help="bound on one answer (10)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    node = ("api: {{socket: {d}/d.sock}}\nstate_dir: {d}/state\nengine: {{procs: 4}}\nbackend: {{type: plugin}}\n"
            "node: {{busy_margin_cpus: 1000}}\nlog_level: error\n")
    broker = ("api: {{socket: {d}/d.sock}}\nstate_dir: {d}/state\nlog_level: error\n"
              "datacenter: {{role: broker, member_max_age_seconds: 30, timeout_seconds: 2}}\n")
    total_runs = total_failures = 0
    for name, config, routes in [("node", node, NODE_ROUTES), ("broker", broker, BROKER_ROUTES)]:
        runs, failures = fuzz(args.bin, name, config, routes, args, rng)
        total_runs += runs
        total_failures += failures
    print(f"fuzz-api: {total_runs} requests over every route of a node and a broker, {total_failures} failed")
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())

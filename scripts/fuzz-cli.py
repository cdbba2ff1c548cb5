#!/usr/bin/env python3
"""Hostile arguments for every `interstice` subcommand: 0 panics, 0 aborts.

Walks `interstice --help` down to every leaf command, then runs each with
bad values in every option that takes one (empty, negative, NaN, infinite,
huge, a path to /dev/zero, a FIFO, a directory, a binary file, an empty
file) and with those as its positional arguments, each run bounded in time.
A run fails the pass when it panics (`panicked at` on stderr), dies by a
signal (an abort on a failed allocation, a crash), or still runs after the
bound while reading an input that cannot end (a FIFO, /dev/zero: it should
have refused it). Other slow runs (a server waiting for its peer) are only
listed. Exit status 1 when anything failed.

    python3 scripts/fuzz-cli.py [--bin target/debug/interstice] [--seconds 10] [--per-command 60]
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def help_text(binary, path):
    run = subprocess.run([binary, *path, "--help"], capture_output=True, text=True, timeout=30)
    return run.stdout


def subcommands(text):
    """The names under `Commands:` of a help text (without `help`)."""
    names, inside = [], False
    for line in text.splitlines():
        if line.startswith("Commands:"):
            inside = True
            continue
        if inside:
            if not line.strip():
                break
            match = re.match(r"^  (\S+)", line)
            if match and match.group(1) != "help":
                names.append(match.group(1))
    return names


def options(text):
    """(flag, takes a value) of every option of a help text, and the positionals."""
    flags = []
    for line in text.splitlines():
        match = re.match(r"^\s+(?:-\w, )?(--[\w-]+)(?: <([^>]+)>)?", line)
        if match and match.group(1) not in ("--help", "--version"):
            flags.append((match.group(1), match.group(2) is not None))
    usage = next((line for line in text.splitlines() if line.startswith("Usage:")), "")
    positionals = re.findall(r"<([A-Z_.\-a-z]+)>", usage.split("[OPTIONS]")[-1] if "[OPTIONS]" in usage else "")
    return flags, positionals


def leaves(binary, path=()):
    text = help_text(binary, list(path))
    names = subcommands(text)
    if not names:
        return [(list(path), text)]
    out = []
    for name in names:
        out.extend(leaves(binary, (*path, name)))
    return out


def hostile_inputs(scratch):
    fifo = os.path.join(scratch, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    binary = os.path.join(scratch, "binary")
    with open(binary, "wb") as f:
        f.write(bytes(random.Random(1).getrandbits(8) for _ in range(4096)))
    empty = os.path.join(scratch, "empty")
    open(empty, "w").close()
    return {"/dev/zero": "endless", fifo: "endless", scratch: "dir", binary: "file", empty: "file"}


VALUES = ["", "-1", "0", "nan", "inf", "-inf", "1e308", "18446744073709551616", "4000000000", "x:y:z", ":", ","]


def run(binary, args, seconds, scratch):
    env = dict(os.environ, INTERSTICE_DAEMON=os.path.join(scratch, "no-daemon.sock"))
    try:
        done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=seconds,
                              stdin=subprocess.DEVNULL, cwd=scratch, env=env)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    if done.returncode < 0:
        return "signal", done.stderr[-400:]
    if "panicked at" in done.stderr:
        return "panic", done.stderr[-400:]
    return "ok", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(REPO, "target/debug/interstice"))
    parser.add_argument("--seconds", type=float, default=10.0, help="bound on one run (10)")
    parser.add_argument("--per-command", type=int, default=60, help="runs per leaf command (60)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as scratch:
        inputs = hostile_inputs(scratch)
        paths = list(inputs)
        runs = failures = 0
        slow = []
        for path, text in leaves(args.bin):
            flags, positionals = options(text)
            cases = []
            for flag, takes in flags:
                for value in (VALUES + paths) if takes else [None]:
                    cases.append((flag, value))
            rng.shuffle(cases)
            for flag, value in cases[: args.per_command]:
                given = [rng.choice(paths) for _ in positionals]
                argv = path + given + ([flag] if value is None else [flag, value])
                if "--out" in [f for f, _ in flags] and flag != "--out":
                    argv += ["--out", os.path.join(scratch, "out")]
                outcome, tail = run(args.bin, argv, args.seconds, scratch)
                runs += 1
                # An endless input read as a file must be refused at once; as a
                # socket path or an output it is not read.
                not_read = ("--daemon", "--socket", "--connect", "--out", "-o", "--output")
                endless = any(
                    inputs.get(a) == "endless" and (i == 0 or argv[i - 1] not in not_read)
                    for i, a in enumerate(argv)
                )
                if outcome in ("panic", "signal") or (outcome == "timeout" and endless):
                    failures += 1
                    print(f"FAIL {outcome}: interstice {' '.join(argv)}\n{tail}", flush=True)
                elif outcome == "timeout":
                    slow.append(" ".join(argv))
        for line in slow[:20]:
            print(f"slow (a server waiting, or a long run; not a failure): interstice {line}")
        print(f"fuzz-cli: {runs} runs over every subcommand, {failures} failed, {len(slow)} slow")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""isodyn next to inspect-ai on the same prompts and the same loopback server: whole-process wall time.

    pip install -e '.[bench]'      # inspect-ai, for this script only
    python benchmarks/vs_inspect.py [--rounds 3] [--connections 16,64,256] [--cells 2000] [--latency 0.2]
    python benchmarks/vs_inspect.py --cells 100 --rounds 1 --connections 16     # a smoke check

One stub (`python -m isodyn.testing LATENCY --timing`) in a process of its own answers both tools and
counts their calls. The prompts are the text cells of an isodyn grid (`seeds=all
modalities=latex,code,story`, variants chosen to come near `--cells`): one untimed isodyn run writes
them, and the first user message of each cell's transcript is what inspect-ai gets, as a
MemoryDataset with a trivial scorer (`includes()`), `max_connections` = the connections, temperature
0 and max_tokens 512 (isodyn's defaults), and model `openai-api/bench/bench`: inspect-ai's
OpenAI-compatible provider (service `bench`, key in BENCH_API_KEY) at the stub's URL, which sends
chat completions for model `bench` as isodyn's `openai/bench` does. (Its `openai/bench` would not:
inspect-ai 0.3.285 takes a model name it does not know for OpenAI's newest and sends it to the
Responses API, `/v1/responses`, as a reasoning model.)

- live: isodyn (`exp run ... concurrency=N`) with a fresh cache, inspect-ai (`eval()` in `python -c`)
  with its cache off and an empty cache folder;
- cached: isodyn rerun on the cache its live run of the same round filled; inspect-ai with
  `cache=True` on a cache warmed by one untimed run.

Each run is a fresh process, timed from start to exit here; the two tools alternate run by run
(isodyn first in odd rounds, inspect-ai first in even ones). Every run is printed: wall time, time
from start to the stub's first call and from the last call to exit, the calls the stub saw, and
CPU seconds (user + system) and peak RSS, both GNU time's; then per setting the medians and
isodyn / inspect-ai, and the no-cliff check: each tool's live wall time and calls per second at each
setting side by side, and whether it slows down past 64 connections.

Both tools run in a temporary folder, with an environment stripped of keys, tokens, base URLs and
proxies; each sends only the dummy key `no-key-required`, and only to the stub on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TOOLS = ("isodyn", "inspect")
RSS_TOOL = "/usr/bin/time"  # GNU time: the peak RSS and CPU time of the command alone
MODES = ("live", "cached")
DUMMY_KEY = "no-key-required"  # what isodyn sends an api_base server when api_key_env names no variable
GRID = ["models=openai/bench", "seeds=all", "modalities=latex,code,story", "quiet=1"]
# Never handed to a child: anything that could hold a secret, point a client elsewhere or set a tool up.
WITHHELD = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|PROXY|BASE_URL|^AWS_|^AZURE|^INSPECT_", re.I)

INSPECT_RUN = """
import json, sys
from pathlib import Path
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate

settings = json.loads(sys.argv[1])
prompts = json.loads(Path(settings["prompts"]).read_text())
samples = [Sample(id=number, input=text, target="A") for number, text in enumerate(prompts, 1)]
task = Task(dataset=MemoryDataset(samples), solver=generate(), scorer=includes(), name="vs_isodyn")
log = eval(
    task, model="openai-api/bench/bench", model_base_url=settings["url"],
    max_connections=settings["connections"],
    cache=settings["cache"], temperature=0, max_tokens=512, display="none", log_dir=settings["log_dir"],
)[0]
done = log.results.completed_samples if log.results else 0
if log.status != "success" or done != len(prompts):
    error = log.error.message if log.error else ""
    sys.exit(f"inspect-ai: status {log.status}, {done} of {len(prompts)} samples done: {error[:500]}")
"""


@dataclass
class Run:
    tool: str
    mode: str
    connections: int
    wall_s: float
    first_s: float | None  # start to the stub's first call
    tail_s: float | None  # the stub's last call to exit
    calls: int
    other: int  # requests to routes other than chat completions
    cpu_s: float  # user + system, the child's own
    rss_mb: float


class Stub:
    """The counting stub in its own process (its threads do not share a benchmarked process's GIL)."""

    def __init__(self, latency_s: float) -> None:
        command = [sys.executable, "-m", "isodyn.testing", str(latency_s), "--timing"]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env({})
        )
        assert self.process.stdout and self.process.stdin
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self.close()
            raise SystemExit(f"the stub did not start on 127.0.0.1 (said {self.url!r})")

    def take(self) -> dict[str, float | int | None]:
        assert self.process.stdout and self.process.stdin
        self.process.stdin.write("take\n")
        self.process.stdin.flush()
        taken: dict[str, float | int | None] = json.loads(self.process.stdout.readline())
        return taken

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()  # the stub stops when its standard input closes
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def child_env(extra: dict[str, str]) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not WITHHELD.search(name)}
    return {**env, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", **extra}


def timed(command: list[str], cwd: Path, env: dict[str, str], stub: Stub) -> tuple[float, dict]:
    """Run `command` to its end: wall seconds, and what the stub saw meanwhile with `cpu_s`, `rss_mb`.

    The peak RSS is GNU time's: wait4's own would never be below this process's size, since a child
    exec'd from a (v)fork starts its high-water mark at its parent's.
    """
    stub.take()  # count from here
    with tempfile.TemporaryFile("w+") as out, tempfile.NamedTemporaryFile("r") as usage:
        started = time.monotonic()  # CLOCK_MONOTONIC, the clock the stub's times are on
        done = subprocess.run(
            [RSS_TOOL, "-f", "%M %U %S", "-o", usage.name, *command], cwd=cwd, env=env, stdout=out, stderr=out
        )
        wall = time.monotonic() - started
        if done.returncode:
            out.seek(0)
            tail = "\n".join(out.read().splitlines()[-20:])
            raise SystemExit(f"{command[0]} exited {done.returncode}:\n{tail}")
        peak_kb, user_s, system_s = usage.read().splitlines()[-1].split()  # after any "exited" line
    seen = stub.take()
    seen.update(started=started, cpu_s=float(user_s) + float(system_s), rss_mb=int(peak_kb) / 1024)
    return wall, seen


def exp_run(words: list[str], connections: int, out: Path, cache: Path) -> list[str]:
    exp = shutil.which("exp")
    command = [exp] if exp else [sys.executable, "-m", "isodyn"]
    return [*command, "run", *words, f"concurrency={connections}", f"out={out}", f"cache_dir={cache}"]


def run_isodyn(stub: Stub, tmp: Path, words: list[str], cache: Path, connections: int, mode: str) -> Run:
    out = tmp / "isodyn-runs"
    wall, seen = timed(exp_run(words, connections, out, cache), tmp, child_env({}), stub)
    if mode == "cached":  # a rerun sits beside the run it repeats, as in a user's project folder
        shutil.rmtree(out)
    return finished("isodyn", mode, connections, wall, seen)


def run_inspect(stub: Stub, tmp: Path, prompts: Path, cache: Path, connections: int, mode: str) -> Run:
    logs = tmp / "inspect-logs"
    settings = {
        "prompts": str(prompts), "url": stub.url, "connections": connections, "cache": mode == "cached",
        "log_dir": str(logs),
    }  # fmt: skip
    env = child_env({"BENCH_API_KEY": DUMMY_KEY, "INSPECT_CACHE_DIR": str(cache)})
    env["XDG_DATA_HOME"] = str(tmp / "inspect-data")  # its trace files, kept out of the home folder
    command = [sys.executable, "-c", INSPECT_RUN, json.dumps(settings)]
    wall, seen = timed(command, tmp, env, stub)
    shutil.rmtree(logs)
    return finished("inspect", mode, connections, wall, seen)


def finished(tool: str, mode: str, connections: int, wall: float, seen: dict) -> Run:
    first = seen["first"] - seen["started"] if seen["first"] is not None else None
    tail = seen["started"] + wall - seen["last"] if seen["last"] is not None else None
    calls, other = seen["calls"], seen["other"]
    return Run(tool, mode, connections, wall, first, tail, calls, other, seen["cpu_s"], seen["rss_mb"])


def grid_prompts(stub: Stub, tmp: Path, cells: int, connections: int) -> tuple[list[str], list[str]]:
    """The grid's words (variants sized to about `cells`) and the text each cell's one call sends."""
    from isodyn.experiments.plan import plan_experiment
    from isodyn.runs.config import parse_overrides

    words = [*GRID, f"api_base={stub.url}"]
    scratch = [f"out={tmp / 'plan-runs'}", f"cache_dir={tmp / 'plan-cache'}"]
    per_variant = len(plan_experiment(parse_overrides([*words, "variants=1", *scratch])).grid.cells)
    words.append(f"variants={max(1, round(cells / per_variant))}")
    out, cache = tmp / "prompt-runs", tmp / "prompt-cache"
    timed(exp_run(words, connections, out, cache), tmp, child_env({}), stub)
    prompts = []
    for line in next(out.glob("*/results.jsonl")).read_text().splitlines():
        calls = json.loads(line)["transcript"]
        assert len(calls) == 1, "every cell of this grid should make one call"
        user = next(message for message in calls[0]["messages"] if message["role"] == "user")
        assert isinstance(user["content"], str), "text cells only"
        prompts.append(user["content"])
    shutil.rmtree(out)
    shutil.rmtree(cache)
    return words, prompts


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def median(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return statistics.median(known) if known else None


def print_run(number: int, run: Run, prompts: list[str]) -> None:
    # Live, one call a prompt, or one a distinct prompt (isodyn sends identical requests once); cached, none.
    expected = (len(prompts), len(set(prompts))) if run.mode == "live" else (0,)
    odd = run.calls not in expected or run.other
    note = f"  <- expected {' or '.join(map(str, expected))} calls and no other request" if odd else ""
    print(
        f"{number:5}  {run.tool:7}  {run.mode:6}  {run.connections:5}  {run.wall_s:7.2f}  "
        f"{seconds(run.first_s):>12}  {seconds(run.tail_s):>12}  {run.calls:5}  {run.cpu_s:5.1f}  "
        f"{run.rss_mb:11.0f}{note}",
        flush=True,
    )


def print_medians(runs: list[Run], connections: list[int], prompts: int, latency: float) -> None:
    print("medians (isodyn / inspect-ai: below 1 means isodyn is faster or smaller)")
    for mode in MODES:
        for conns in connections:
            of = {tool: [r for r in runs if (r.tool, r.mode, r.connections) == (tool, mode, conns)]
                  for tool in TOOLS}  # fmt: skip
            wall = {tool: statistics.median(r.wall_s for r in of[tool]) for tool in TOOLS}
            cpu = {tool: statistics.median(r.cpu_s for r in of[tool]) for tool in TOOLS}
            rss = {tool: statistics.median(r.rss_mb for r in of[tool]) for tool in TOOLS}
            first = {tool: median([r.first_s for r in of[tool]]) for tool in TOOLS}
            calls_alone = -(-prompts // conns) * latency  # every connection busy all the time
            live = (
                f"; first call {seconds(first['isodyn'])} s vs {seconds(first['inspect'])} s; "
                f"the calls alone take {calls_alone:.1f} s"
            )
            print(
                f"{mode:6} {conns:4} connections: wall isodyn {wall['isodyn']:.2f} s, inspect-ai "
                f"{wall['inspect']:.2f} s, ratio {wall['isodyn'] / wall['inspect']:.3f}"
                f"{live if mode == 'live' else ''}; CPU {cpu['isodyn']:.1f} s vs {cpu['inspect']:.1f} s, "
                f"ratio {cpu['isodyn'] / cpu['inspect']:.3f}; peak RSS {rss['isodyn']:.0f} MB vs "
                f"{rss['inspect']:.0f} MB, ratio {rss['isodyn'] / rss['inspect']:.3f}"
            )


def print_cliff(runs: list[Run], connections: list[int]) -> None:
    """The no-cliff check: live wall time and calls per second (the stub's count / wall, medians)
    at each setting, both tools side by side, and whether either slows down past 64 connections."""
    print("no-cliff check (live; calls per second = the stub's calls / wall time)")
    print(f"{'conns':>5}  {'isodyn s':>8}  {'isodyn calls/s':>14}  {'inspect s':>9}  {'inspect calls/s':>15}")
    wall: dict[tuple[str, int], float] = {}
    for conns in connections:
        row = []
        for tool in TOOLS:
            of = [r for r in runs if (r.tool, r.mode, r.connections) == (tool, "live", conns)]
            wall[tool, conns] = statistics.median(r.wall_s for r in of)
            row.append((wall[tool, conns], statistics.median(r.calls / r.wall_s for r in of)))
        (iso_s, iso_rate), (ins_s, ins_rate) = row
        print(f"{conns:5}  {iso_s:8.2f}  {iso_rate:14.1f}  {ins_s:9.2f}  {ins_rate:15.1f}")
    for tool in TOOLS:
        past = [c for c in connections if c > 64 and 64 in connections]
        slower = [c for c in past if wall[tool, c] > 1.1 * wall[tool, 64]]
        if past:
            verdict = f"slower at {', '.join(map(str, slower))}" if slower else "no slowdown"
            print(f"{tool} past 64 connections: {verdict} (slower: a wall time over 1.1 x its own at 64)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", default="16,64,256", help="comma-separated, e.g. 16,64,256")
    parser.add_argument("--cells", type=int, default=2000, help="about this many cells (prompts)")
    parser.add_argument("--latency", type=float, default=0.2, help="the stub's seconds per reply")
    arguments = parser.parse_args()
    connections = [int(word) for word in arguments.connections.split(",")]
    if importlib.util.find_spec("inspect_ai") is None:
        sys.exit("vs_inspect.py: inspect-ai is not installed; install it with: pip install -e '.[bench]'")
    if not os.access(RSS_TOOL, os.X_OK):
        sys.exit(f"vs_inspect.py: {RSS_TOOL} (GNU time: CPU time, peak RSS) is missing: apt-get install time")
    from importlib.metadata import version

    runs: list[Run] = []
    stub = Stub(arguments.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="vs-inspect-") as folder:
            tmp = Path(folder)
            words, prompts = grid_prompts(stub, tmp, arguments.cells, max(connections))
            prompt_file = tmp / "prompts.json"
            prompt_file.write_text(json.dumps(prompts))
            versions = ", ".join(f"{tool} {version(tool)}" for tool in ("isodyn", "inspect-ai", "litellm"))
            print(f"{versions}; {os.cpu_count()} cores")
            print(
                f"{len(prompts)} prompts, {len(set(prompts))} distinct ({' '.join(GRID)} {words[-1]}); "
                f"stub latency {arguments.latency * 1000:.0f} ms; {arguments.rounds} rounds"
            )
            warm = tmp / "inspect-cache-warm"
            run_inspect(stub, tmp, prompt_file, warm, max(connections), "cached")  # untimed: fills it
            print(f"{'round':>5}  {'tool':7}  {'mode':6}  {'conns':>5}  {'wall s':>7}  {'first call s':>12}  "
                  f"{'after last s':>12}  {'calls':>5}  {'CPU s':>5}  {'peak RSS MB':>11}")  # fmt: skip
            for number in range(1, arguments.rounds + 1):
                order = TOOLS if number % 2 else TOOLS[::-1]
                for conns in connections:
                    live_cache = tmp / f"isodyn-cache-{number}-{conns}"  # its cached rerun reads it
                    for mode in MODES:
                        for tool in order:
                            if tool == "isodyn":
                                run = run_isodyn(stub, tmp, words, live_cache, conns, mode)
                            else:
                                cache = warm if mode == "cached" else tmp / f"inspect-cache-{number}-{conns}"
                                run = run_inspect(stub, tmp, prompt_file, cache, conns, mode)
                            runs.append(run)
                            print_run(number, run, prompts)
                    shutil.rmtree(live_cache)
    finally:
        stub.close()
    print_medians(runs, connections, len(prompts), arguments.latency)
    print_cliff(runs, connections)


if __name__ == "__main__":
    main()

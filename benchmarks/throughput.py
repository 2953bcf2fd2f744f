"""Live throughput against the loopback OpenAI-compatible server, next to its two ceilings.

    python benchmarks/throughput.py [cells] [latency_s] [concurrency]

- ideal: concurrency / latency (every slot always busy);
- CPU ceiling of litellm's own call path: calls per second one process manages back to back against
  a zero-latency server (and with litellm's mock_response, no HTTP at all);
- measured: an `exp run` grid through the whole engine (gates, cache writes, scoring, result rows).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.models.catalog import litellm_module
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply


class StubProcess:
    """The stub in a process of its own, so its threads do not share this process's GIL."""

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s

    def __enter__(self) -> str:
        code = ["-m", "isodyn.testing", str(self.latency_s)]
        self.process = subprocess.Popen([sys.executable, *code], stdout=subprocess.PIPE, text=True)
        return self.process.stdout.readline().strip()

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
        self.process.wait()


MESSAGES = [{"role": "user", "content": "What is 2 + 2? " * 20}]


async def back_to_back(calls: int, **kwargs: object) -> float:
    litellm = litellm_module()
    started = time.perf_counter()
    for _ in range(calls):
        await litellm.acompletion(model="openai/ceiling", messages=MESSAGES, max_tokens=8, **kwargs)
    return calls / (time.perf_counter() - started)


def main() -> None:
    cells = int(sys.argv[1]) if len(sys.argv) > 1 else 640
    latency = float(sys.argv[2]) if len(sys.argv) > 2 else 0.2
    concurrency = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    with StubProcess(0.0) as fast_url:
        http_ceiling = asyncio.run(back_to_back(200, api_base=fast_url, api_key="k", max_retries=0))
    with OpenAIStub(lambda request: ScriptedReply(text='{"short answer": "A"}')) as same_process:
        shared_gil = asyncio.run(
            back_to_back(200, api_base=same_process.base_url, api_key="k", max_retries=0)
        )
    mock_ceiling = asyncio.run(back_to_back(300, mock_response='{"short answer": "A"}'))
    with tempfile.TemporaryDirectory() as tmp, StubProcess(latency) as slow_url:
        variants = max(1, cells // 4)  # parity: latex + code; connectivity: latex + story
        words = [
            "models=openai/bench", f"api_base={slow_url}", "seeds=isobench_parity,isobench_connectivity",
            "modalities=latex,code,story", f"variants={variants}", f"concurrency={concurrency}", "quiet=1",
            f"out={Path(tmp) / 'runs'}", f"cache_dir={Path(tmp) / 'cache'}",
        ]  # fmt: skip
        plan = plan_experiment(parse_overrides(words))
        started = time.perf_counter()
        outcome = asyncio.run(execute(plan, new_run_dir(plan.config)))
        seconds = time.perf_counter() - started
    made = outcome.summary["calls_made"]
    ideal = concurrency / latency
    measured = made / seconds
    print(f"calls {made} at {latency * 1000:.0f} ms latency, concurrency {concurrency}")
    print(f"ideal (concurrency / latency)           {ideal:8.1f} calls/s")
    print(f"litellm CPU ceiling, HTTP to loopback   {http_ceiling:8.1f} calls/s (server in its own process)")
    print(f"  the same, server in this process      {shared_gil:8.1f} calls/s")
    print(f"litellm CPU ceiling, mock_response      {mock_ceiling:8.1f} calls/s")
    share = f"{measured / ideal:.0%} of ideal, {measured / http_ceiling:.0%} of the HTTP ceiling"
    print(f"measured through the engine             {measured:8.1f} calls/s  ({share})")


if __name__ == "__main__":
    main()

"""Speed of the embedded model's engine for two builds of llama-cpp-python, side by side: the one
installed (A) against another unpacked somewhere else (B, e.g. the portable build made with
`CMAKE_ARGS="-DGGML_NATIVE=OFF" pip wheel llama-cpp-python` and `pip install --target DIR`).

Each round runs a fresh process per build, alternating A and B, and prints every run: seconds to
load the model, prompt tokens per second and generated tokens per second for a fixed prompt and
64 generated tokens at temperature 0 (the same tokens for both builds, so the work is the same).

python benchmarks/engine_speed.py DIR_OF_B [rounds]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

PROMPT = (
    "A rectangle has sides 7 and 12. Its diagonal is drawn. Explain step by step how to find the "
    "length of the diagonal, then give the answer as a number with two decimals."
)


def one_run() -> None:
    from llama_cpp import Llama

    from isodyn.models.local import gguf_path

    started = time.perf_counter()
    llama = Llama(model_path=str(gguf_path()), n_ctx=2048, n_threads=2, verbose=False, seed=0)
    loaded = time.perf_counter() - started
    messages = [{"role": "user", "content": PROMPT}]

    def timed(max_tokens: int) -> tuple[float, dict]:
        llama.reset()  # no prompt reused from the previous call: both calls read it afresh
        t0 = time.perf_counter()
        out = llama.create_chat_completion(messages=messages, max_tokens=max_tokens, temperature=0.0, seed=0)  # type: ignore[arg-type]
        return time.perf_counter() - t0, out  # type: ignore[return-value]

    prompt_seconds, _ = timed(1)  # reading the prompt and one token
    total_seconds, out = timed(64)
    usage = out["usage"]
    generated = usage["completion_tokens"]
    import llama_cpp

    print(json.dumps({
        "library": os.path.dirname(llama_cpp.__file__), "load_s": round(loaded, 3),
        "prompt_tokens": usage["prompt_tokens"],
        "prompt_tokens_per_s": round(usage["prompt_tokens"] / prompt_seconds, 1),
        "completion_tokens": generated,
        "generate_tokens_per_s": round((generated - 1) / max(total_seconds - prompt_seconds, 1e-9), 1),
        "text": out["choices"][0]["message"]["content"][:40],
    }))  # fmt: skip


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        one_run()
        return
    other = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    builds = {"A installed": {}, "B " + other: {"PYTHONPATH": other}}
    for r in range(rounds):
        order = list(builds) if r % 2 == 0 else list(reversed(builds))
        for name in order:
            env = {**os.environ, **builds[name]}
            command = [sys.executable, __file__, "--one"]
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            print(name, done.stdout.strip() or done.stderr.strip()[-300:], flush=True)


if __name__ == "__main__":
    main()

"""`exp` as a user types it, in a subprocess, with none of this machine's API keys or base URLs in
reach. conftest removes them for each test; module-scoped fixtures run before it does, so the
subprocess's environment is built here too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Variables that would point a run at a hosted API, or pay for it.
NO_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE")


def user_env(**extra: str) -> dict[str, str]:
    """This process's environment without keys or base URLs, litellm's cost map read locally, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in NO_KEYS and not k.endswith("_API_KEY")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env | extra


def exp(
    *args: str, cwd: Path | str | None = None, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Run `exp ARGS` (as `python -m isodyn`), capturing its output; `env` defaults to `user_env()`."""
    return subprocess.run(
        [sys.executable, "-m", "isodyn", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=user_env() if env is None else env,
        timeout=timeout,
    )

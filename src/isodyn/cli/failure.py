"""How an `exp` command's failure reaches the user: one line on stderr and exit code 2 (`fail`), and
the operating system's refusal said as one line (`os_problem`).
"""

from __future__ import annotations

import errno

import typer

from isodyn.cli.terminal import say


def fail(message: str) -> typer.Exit:
    """A one-line error and exit code 2 (bad input). The message is printed as written: it quotes
    what the user typed or what a model is called, where `[red]` or `[/]` is text, not style."""
    say("error:", "bold red", message)
    return typer.Exit(code=2)


def os_problem(exc: OSError) -> str:
    """The operating system's refusal as one line: what, and on which file. A full disk anywhere in
    the chain (a write failed, then the cleanup's write failed too) is named as such."""
    chain: list[BaseException] = []
    at: BaseException | None = exc
    while at is not None and at not in chain:
        chain.append(at)
        at = at.__cause__ or at.__context__
    full = next((e for e in chain if isinstance(e, OSError) and e.errno == errno.ENOSPC), None)
    if isinstance(full, OSError):
        where = f" writing {full.filename}" if full.filename else ""
        return f"the disk is full (no space left on the device){where}; free some space and run it again"
    files = " -> ".join(str(name) for name in (exc.filename, exc.filename2) if name is not None)
    what = exc.strerror or str(exc) or type(exc).__name__
    return f"{files}: {what}" if files else what

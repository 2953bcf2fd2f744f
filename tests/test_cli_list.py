from functools import partial

import user_cli
from isodyn.strategies import BASES, MODIFIERS

exp = partial(user_cli.exp, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})  # piped, 200 columns


def test_list_strategies_names_source_calls_and_modalities() -> None:
    done = exp("list", "strategies")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name in [*BASES, *MODIFIERS, "sc@k"]:
        assert any(line.startswith(f"│ {name} ") for line in lines), name
    isosp = next(line for line in lines if line.startswith("│ isosp "))
    assert "IsoBench" in isosp and "│ 2 " in isosp and "image" in isosp
    cot3 = next(line for line in lines if line.startswith("│ cot3 "))
    assert "DynaMath" in cot3 and "all" in cot3


def test_list_seeds_and_bad_list() -> None:
    done = exp("list", "seeds")
    assert "isobench_parity" in done.stdout and "iso_math" in done.stdout
    bad = exp("list", "wombats")
    assert bad.returncode == 2 and "cannot list 'wombats'; valid: strategies, seeds" in bad.stderr

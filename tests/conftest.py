import pytest


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """No test reads a user's cache, and no test can reach a hosted API with a real key."""
    monkeypatch.setenv("ISODYN_CACHE_DIR", str(tmp_path / "default-cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_API_BASE",
    ):
        monkeypatch.delenv(name, raising=False)


def pytest_terminal_summary(terminalreporter) -> None:
    """The reply corpus's size and shares per pattern, printed with every test run (issue 13)."""
    from corpus import load_corpus, summary_lines

    for line in summary_lines(load_corpus()):
        terminalreporter.write_line(line)

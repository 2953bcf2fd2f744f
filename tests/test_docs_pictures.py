"""Pictures in the documentation say what made them (issue 38): a picture of a stub run is captioned
as one, and its script names only made-up models, so no reader takes it for a model's results."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PICTURE = re.compile(r"!\[([^\]]*)\]\((docs/images/[^)]+)\)")


def test_every_picture_in_the_readme_is_captioned_as_a_stub_run() -> None:
    pictures = PICTURE.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(pictures) >= 3
    for caption, path in pictures:
        assert (ROOT / path).is_file(), path
        assert "loopback stub" in caption, f"{path}: the caption does not say the run is the stub's"


def test_the_screenshot_script_asks_only_made_up_models() -> None:
    script = (ROOT / "docs/images/make_screenshots.py").read_text(encoding="utf-8")
    models = re.findall(r'"openai/([\w/.-]+)": \{', script)
    assert models and all(name.startswith("stub/") for name in models), models

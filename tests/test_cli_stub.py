"""`exp run` and `exp report` as a user types them, against the loopback OpenAI-compatible server."""

import json
import subprocess
import sys

from isodyn.testing import OpenAIStub, ScriptedReply


def test_exp_run_against_local_server_then_report(tmp_path) -> None:
    def script(request: dict) -> ScriptedReply:
        # answer B only for image prompts, A for text prompts: the report must tell them apart
        has_image = any(isinstance(m["content"], list) for m in request["messages"])
        return ScriptedReply(text=json.dumps({"solution": "...", "short answer": "B" if has_image else "A"}))

    out = tmp_path / "runs"
    with OpenAIStub(script) as stub:
        words = [
            "models=openai/any",
            f"api_base={stub.base_url}",
            "vision=yes",
            "seeds=isobench_connectivity",
            "variants=4",
            f"out={out}",
            f"cache_dir={tmp_path / 'cache'}",
            "quiet=1",
        ]
        done = subprocess.run([sys.executable, "-m", "isodyn", "run", *words], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert len(stub.requests) == 12  # image, latex, story x 4 variants
    (run_dir,) = out.iterdir()
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    expected = {}
    for modality in ("image", "latex", "story"):
        said = "B" if modality == "image" else "A"
        hits = [r["truth"] == said for r in rows if r["modality"] == modality]
        expected[modality] = 100 * sum(hits) / len(hits)

    report = subprocess.run(
        [sys.executable, "-m", "isodyn", "report", str(run_dir)], capture_output=True, text=True
    )
    assert report.returncode == 0, report.stderr
    assert report.stdout == (run_dir / "report.md").read_text()
    for modality, accuracy in expected.items():
        line = next(x for x in report.stdout.splitlines() if f"| {modality} |" in x)
        assert line.startswith("| openai/any | zeroshot |")
        assert f"| {accuracy:.1f} (1 seed, no interval) |" in line  # one seed: no interval to show

import base64
import hashlib
import json
import subprocess
import sys
from dataclasses import replace

import pytest

from isodyn.cache import KEY_VERSION, ResponseCache, cache_key
from isodyn.models.requests import ModelRequest, Reply


def image_message(png: bytes) -> list[dict]:
    uri = "data:image/png;base64," + base64.b64encode(png).decode()
    return [
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": uri}}, {"type": "text", "text": "Q"}],
        }
    ]


BASE = ModelRequest(
    model="openai/gpt-4o",
    messages=image_message(b"\x89PNG pixels"),
    params={"temperature": 0.0, "max_tokens": 512},
    api_base=None,
    repeat=0,
    step="answer",
)


@pytest.mark.parametrize(
    "changed",
    [
        replace(BASE, model="openai/gpt-4o-mini"),
        replace(BASE, api_base="http://127.0.0.1:8000/v1"),
        replace(BASE, params={"temperature": 0.7, "max_tokens": 512}),
        replace(BASE, params={"temperature": 0.0, "max_tokens": 256}),
        replace(BASE, params={"temperature": 0.0, "max_tokens": 512, "top_p": 0.9}),
        replace(BASE, messages=image_message(b"\x89PNG other pixels")),
        replace(BASE, messages=[{"role": "user", "content": "Q"}]),
        replace(BASE, repeat=1),
        replace(BASE, step="describe"),
        replace(BASE, sample=1),
    ],
)
def test_changing_any_input_changes_the_key(changed: ModelRequest) -> None:
    assert cache_key(changed) != cache_key(BASE)


def test_same_inputs_same_key_and_param_order_is_irrelevant() -> None:
    reordered = replace(BASE, params={"max_tokens": 512, "temperature": 0.0})
    assert cache_key(reordered) == cache_key(BASE)


def test_image_is_hashed_by_bytes_not_encoding() -> None:
    # The same pixels behind a different MIME label are the same image to the key's hashing.
    png = b"\x89PNG pixels"
    other_label = "data:image/x-png;base64," + base64.b64encode(png).decode()
    msgs = image_message(png)
    msgs[0]["content"][0]["image_url"]["url"] = other_label
    assert cache_key(replace(BASE, messages=msgs)) == cache_key(BASE)


def test_key_is_stable_across_processes() -> None:
    code = (
        "import json,sys; from isodyn.cache import cache_key; "
        "from isodyn.models.requests import ModelRequest; "
        "print(cache_key(ModelRequest(**json.loads(sys.argv[1]))))"
    )
    document = json.dumps(BASE.__dict__)
    other = subprocess.run([sys.executable, "-c", code, document], capture_output=True, text=True, check=True)
    assert other.stdout.strip() == cache_key(BASE)


def test_cache_round_trip_between_instances(tmp_path) -> None:
    first = ResponseCache(tmp_path)
    reply = Reply(text='{"short answer": "A"}', prompt_tokens=3, completion_tokens=2, cost_usd=0.01)
    first.put("k", reply)
    first.close()
    second = ResponseCache(tmp_path)
    assert second.get("k") == reply
    assert second.get("missing") is None
    second.close()


def test_render_cache_replays_images_without_redrawing(tmp_path, monkeypatch) -> None:
    from isodyn.cache.renders import RenderCache
    from isodyn.core import Modality
    from isodyn.generators import get_seed

    seed = get_seed("isobench_parity")
    variant = seed.variant(5)
    drawn = RenderCache(tmp_path).representation(seed, variant, Modality.IMAGE)
    assert drawn == seed.representation(variant, Modality.IMAGE)

    def refuse(*args, **kwargs):
        raise AssertionError("rendered again")

    monkeypatch.setattr(type(seed), "render", refuse)
    assert RenderCache(tmp_path).representation(seed, variant, Modality.IMAGE) == drawn
    with pytest.raises(AssertionError, match="rendered again"):  # another variant is not in the memo
        RenderCache(tmp_path).representation(seed, seed.variant(6), Modality.IMAGE)


def test_key_is_the_sha256_of_the_documented_canonical_json() -> None:
    """The layout the module docstring documents, computed here from scratch: keys already on users'
    disks must keep matching, whatever the implementation does to be fast."""
    request = ModelRequest(
        model="openai/gpt-4o",
        messages=[{"role": "user", "content": "Ünïcode: is 2 + 2 = 4?"}],
        params={"temperature": 0.0, "max_tokens": 64},
        api_base="http://127.0.0.1:9/v1",
        repeat=1,
        step="answer",
        sample=2,
    )
    document = {
        "version": KEY_VERSION,
        "model": "openai/gpt-4o",
        "api_base": "http://127.0.0.1:9/v1",
        "params": {"max_tokens": 64, "temperature": 0.0},
        "messages": [{"role": "user", "content": "Ünïcode: is 2 + 2 = 4?"}],
        "repeat": 1,
        "sample": 2,
        "step": "answer",
    }
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert cache_key(request) == hashlib.sha256(canonical.encode()).hexdigest()


def test_an_image_drawn_is_found_by_the_digest_its_transcript_records(tmp_path) -> None:
    import diskcache

    from isodyn.cache.renders import RenderCache, image_key, stored_image
    from isodyn.core import Modality
    from isodyn.generators import get_seed
    from isodyn.models.requests import hash_images
    from isodyn.strategies.base import user_message

    seed = get_seed("isobench_parity")
    drawn = RenderCache(tmp_path / "renders").representation(seed, seed.variant(3), Modality.IMAGE)
    assert drawn.image_png is not None
    sent = hash_images(user_message("q", [drawn.image_png]))  # what the transcript keeps
    digest = next(part["image_url"]["url"] for part in sent["content"] if part["type"] == "image_url")
    assert digest == "sha256:" + hashlib.sha256(drawn.image_png).hexdigest()
    assert stored_image(tmp_path / "renders", digest) == drawn.image_png
    assert stored_image(tmp_path / "renders", "sha256:" + "0" * 64) is None
    # nothing is created for a store that is not there, and a pickled entry is never loaded
    assert stored_image(tmp_path / "elsewhere", digest) is None and not (tmp_path / "elsewhere").exists()
    with diskcache.Cache(str(tmp_path / "hostile")) as store:
        store.set(image_key(digest), {"not": "bytes"})
    assert stored_image(tmp_path / "hostile", digest) is None


def test_replies_are_stored_as_json_and_prune_reads_their_age_from_it(tmp_path) -> None:
    import time

    import orjson

    from isodyn.cache import encode_reply
    from isodyn.cache.stores import open_store

    store = ResponseCache(tmp_path)
    reply = Reply(text="A\ud800", prompt_tokens=3, completion_tokens=2, cost_usd=0.01, latency_s=0.5)
    store.put("new", reply)
    store.close()
    with open_store(tmp_path) as raw:
        stored = raw.get("new")
        assert type(stored) is bytes and orjson.loads(stored)["text"] == "A\ufffd"  # JSON, cleaned
        raw.set("old", encode_reply(reply, time.time() - 40 * 86400))
        raw.set("forged", b'{"text": "A"}')  # no reply isodyn wrote: of no use, pruned too
    store = ResponseCache(tmp_path)
    assert store.get("forged") is None and store.unreadable == 1
    assert store.prune(30 * 86400) == 2
    assert store.get("new") == Reply("A\ufffd", 3, 2, 0.01, 0.5) and len(store) == 1
    store.close()

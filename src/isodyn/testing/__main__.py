"""`python -m isodyn.testing [latency_s] [json|prose]`: serve an OpenAI-compatible stub on 127.0.0.1
until killed, answering every request with one fixed reply (DynaMath JSON, or a free-form one)."""

import sys

from isodyn.testing.openai_stub import FIXED_REPLIES, serve_forever

latency_s = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
style = sys.argv[2] if len(sys.argv) > 2 else "json"
if style not in FIXED_REPLIES:
    sys.exit(f"unknown style {style!r}; valid: {', '.join(FIXED_REPLIES)}")
serve_forever(latency_s, FIXED_REPLIES[style])

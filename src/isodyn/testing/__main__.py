"""`python -m isodyn.testing [latency_s] [json|prose] [--timing]`: serve an OpenAI-compatible stub on
127.0.0.1 until killed, answering every request with one fixed reply (DynaMath JSON, or a free-form
one). With `--timing` it also counts requests and times the first and last, reported on standard
input's `take` (see timing_stub.py), and stops when standard input closes."""

import sys

from isodyn.testing.openai_stub import FIXED_REPLIES, serve_forever

timing = "--timing" in sys.argv[1:]
arguments = [word for word in sys.argv[1:] if word != "--timing"]
latency_s = float(arguments[0]) if arguments else 0.0
style = arguments[1] if len(arguments) > 1 else "json"
if style not in FIXED_REPLIES:
    sys.exit(f"unknown style {style!r}; valid: {', '.join(FIXED_REPLIES)}")
if timing:
    from isodyn.testing.timing_stub import serve_timed

    serve_timed(latency_s, FIXED_REPLIES[style])
else:
    serve_forever(latency_s, FIXED_REPLIES[style])

"""`python -m isodyn.testing [latency_s]`: serve an OpenAI-compatible stub on 127.0.0.1 until killed."""

import sys

from isodyn.testing.openai_stub import serve_forever

serve_forever(float(sys.argv[1]) if len(sys.argv) > 1 else 0.0)

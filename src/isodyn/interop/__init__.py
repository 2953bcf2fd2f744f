"""isodyn inside other tools: inspect tasks and inspect logs (the only package that imports inspect_ai)."""

"""Test helpers shipped with the package: a scriptable OpenAI-compatible server on loopback."""

from isodyn.testing.openai_stub import OpenAIStub, ScriptedReply

__all__ = ["OpenAIStub", "ScriptedReply"]

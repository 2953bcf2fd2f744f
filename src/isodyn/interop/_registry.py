"""What inspect's `inspect_ai` entry point loads (`isodyn = "isodyn.interop._registry"`): importing
the tasks registers them as isodyn/dynamath, isodyn/isobench and isodyn/hardset."""

from isodyn.interop.inspect_tasks import dynamath, hardset, isobench

__all__ = ["dynamath", "hardset", "isobench"]

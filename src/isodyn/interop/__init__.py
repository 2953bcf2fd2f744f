"""isodyn inside other tools: its experiments as inspect tasks (`inspect_tasks`, registered through
inspect's `inspect_ai` entry point by `_registry`) and its runs as inspect logs.

inspect_ai is an optional extra (`pip install 'isodyn[inspect]'`): only the modules of this package
import it, and nothing below `commands` imports this package, so `import isodyn` never loads it.
"""

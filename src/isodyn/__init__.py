"""isodyn: does a prompting strategy make a (vision-)language model reason about math more robustly?"""

import os

# litellm (imported by isodyn, dspy or anything else in this process) must never fetch its price
# table over the network: its packaged copy is used.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"

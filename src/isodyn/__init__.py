"""isodyn: does a prompting strategy make a (vision-)language model reason about math more robustly?"""

__version__ = "0.1.0"

"""Worst-variant search: `exp search` looks for variants of a seed the model answers wrongly."""

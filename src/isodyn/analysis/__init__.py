"""Analysis: the papers' metrics and the reports built from a run's results."""

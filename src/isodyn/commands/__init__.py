"""isodyn's command pipelines, callable from Python and tests without a subprocess or a terminal.

One module per `exp` command: `run` (`run_experiment`, `estimate_run`), `rescore` (`rescore_run`),
`judge` (`judge_run`), `report` (`report_run`), `compare` (`compare_runs`), `generate`
(`generate_dataset`), `merge` (`merge_runs`) and `cache` (`cache_command`). Each takes a frozen
request (built from `key=value` words by its `from_words`, or directly) and returns a frozen
result: the paths written, the numbers to show, the notices given on the way. Nothing here prints;
a caller that wants notices as they come passes a hook. Failures a user can act on raise
`isodyn.errors.IsodynError`.

The layers below (experiments, analysis, results) never import this package, and this package
never imports `isodyn.cli`. Nothing is imported here, so `exp cache` does not load the runner.
"""

"""A run folder and what it holds: the only code that knows the files a run leaves.

- `record`, `calls`, `schema`: one cell's record (its transcript of calls) and its flat row;
- `results`: the one reader and writer of results.jsonl;
- `config`, `saved_config`: the experiment's settings, parsed from `key=value` and saved beside the run;
- `rundir`, `runlock`, `batch_ledger`: the folder's life (new, resumed, finished), its lock, and the
  ledger of submitted batches;
- `marks`, `judgements`: what a person (`exp view`) or a judge (`exp judge`) wrote beside the run;
- `safe`: how a file is written into a folder that may hold links.

Nothing is imported here, so importing one of them costs only what it imports itself.
"""

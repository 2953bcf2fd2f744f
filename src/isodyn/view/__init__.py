"""`exp view RUN`: a local, read-only viewer of a run in the browser.

One module per job: `index` (the compact, cached index of a run's cells, filtered and paged on the
server), `cells` (one cell's full line read lazily by its offset, as the page shows it), `marks` (a
person's verdict marks beside the run, and nothing else written), `export` (marks as labelled
replies for the grading corpus), `server` (the HTTP server on 127.0.0.1), `static/` (the page: plain
HTML, CSS and JavaScript, no build step). Nothing is imported here, so `exp` stays quick to start.
"""

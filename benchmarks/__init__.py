"""The project's benchmarks: each script prints its figures and writes
``benchmarks/<name>.json`` (``make bench`` runs them all).

Run them as scripts (``python benchmarks/pipeline.py``); what one benchmark
takes from another (the pipeline benchmark's filmed games, the accuracy
benchmark's test sets), and what the tests check of them, is imported from
this package (``from benchmarks import accuracy``), never loaded by file path.
"""

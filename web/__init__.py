"""The club's web page: live table, history, set-up, corrections, API, SSE."""

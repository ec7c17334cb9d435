"""The card reader's lab: deck rendering, datasets, training, evaluation, the
virtual table and the reader's benchmark.

The runtime (:mod:`vision` proper) never imports this package, and the Pi's
install leaves it out; the lab uses the runtime's public names only.
"""

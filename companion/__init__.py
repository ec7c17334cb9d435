"""The table companion: the service that wires camera sources, the event store,
the rules engine, the web page and the score display (the command line that starts
it is ``cli``)."""

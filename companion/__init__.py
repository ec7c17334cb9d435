"""The table companion: the service that wires camera sources, the event store,
the rules engine, the web page and the score display; and the CLI."""

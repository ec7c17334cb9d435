"""The club server: every table's events over MQTT, the concours, the ranking,
the season's statistics.

``broker`` runs a Mosquitto broker with per-table credentials (demo, tests,
benchmark); ``store`` is the club's own SQLite file; ``server`` receives the
tables' events and sends each table its next game; ``concours`` draws the rounds
and ranks the teams; ``evening`` runs a concours and exports it; ``simtable``
plays a simulated table for the demo. The MQTT topics both sides use and a
season's counts are ``common.topics`` and ``common.season``. The club's web pages
are ``app`` and ``pages`` (they read these, as the table's pages read the service).
"""

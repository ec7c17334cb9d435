"""The club server: every table's events over MQTT, the concours, the ranking,
the season's statistics.

``topics`` names the MQTT topics both sides use; ``broker`` runs a Mosquitto
broker with per-table credentials (demo, tests, benchmark); ``store`` is the
club's own SQLite file; ``server`` receives the tables' events and sends each
table its next game; ``concours`` draws the rounds and ranks the teams; ``evening`` runs a
concours and exports it; ``stats`` counts a season. The club's web pages are
``club`` (they read these, as the table's pages read the service).
"""

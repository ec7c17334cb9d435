"""What the table and the club server both use: the MQTT topics between them
(``topics``), a season's statistics and their charts (``season``), and a game's
score chart (``chart``). Below the table (``companion``) and the pages (``web``):
it imports the scorer alone."""

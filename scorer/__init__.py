"""The Belote Table rules engine: pure Python, no I/O, no third-party import.

Cards, bidding, trick legality, renonce proof, hand scoring, game end and rule
sets. Everything else in the project asks this package what is legal and what
each team scores.
"""

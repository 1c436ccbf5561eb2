"""Bots: players that see only their seat's view and legal actions."""

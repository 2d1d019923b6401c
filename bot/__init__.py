"""Glassbox's Telegram front end: commands, live message, rendering, transcripts."""

"""Glassbox on Telegram: commands, the live message, rendering, transcripts in SQLite."""

"""Glassbox's Telegram front end: settings, handlers, the live message, rendering, the store."""

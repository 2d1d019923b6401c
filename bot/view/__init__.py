"""View: the fold of a run's events and every renderer of it (Telegram HTML, /history, the export),
and all the bot's own words. Pure: no Bot, no database, no clock, no network."""

"""Store: what the bot keeps, in SQLite or PostgreSQL behind one interface (db,
database_url): runs and their steps (transcripts.Store, written a round at a time by
round_writer; retry and backlog carry a run's writes over a moment's lock or an outage,
breaker fails them fast while PostgreSQL is down), what it hands out (records, kinds: pure
data), the numbered migrations of each database, each chat's settings (chat_settings and
chat_settings_values), board links, API sessions, reply threads, the photos a run was asked
about, what auto mode learned of each endpoint (endpoints; terminal_memory lends it to
`python -m agent`), the course's figures (course_stats over the tallies, course_records),
the course-notes index (course_notes, pg_notes), deleting runs (forgetting) and moving a
class to another database (copy, `python -m bot.store copy`)."""

"""Store: what the bot keeps, in SQLite or PostgreSQL behind one interface (db): transcripts
(transcripts.Store), what it hands out (records, pure data), the numbered migrations of each
database, each chat's settings, board links and API sessions, the course's figures, and the
course-notes index kept in the same database (course_notes)."""

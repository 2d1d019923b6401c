"""Store: transcripts in SQLite (transcripts.Store), what it hands out (records, pure data) and its
numbered migrations."""

"""Store: transcripts in SQLite (transcripts.Store), what it hands out (records, pure data), its
numbered migrations, and the course-notes index kept in the same database (notes)."""

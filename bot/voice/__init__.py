"""Voice questions: what a student said, heard by Glassbox (an embedded Whisper model, or a
school's own OpenAI-compatible transcription server) and asked as if typed."""

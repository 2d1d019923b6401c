"""What the tests and the benchmarks both drive Glassbox with: the fake servers that speak the
real services' wire formats (fakes/), the bot in-process (botkit) and as a process
(bot_process), the database as a test reads it (dbkit), and the inputs they make (PDFs,
photos, speech, hostile text). It imports nothing of tests/: bench/ uses it without the suite."""

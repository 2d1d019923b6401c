"""What the tests, the benchmarks and the gallery drive Glassbox with: the fake servers that
speak the real services' wire formats (fakes/), the bot in-process (botkit; with its HTTP
server, serving) and as a process (bot_process), the database as a test reads it (dbkit),
and the inputs they make (PDFs, photos, speech, hostile text). It imports nothing of tests/:
bench/ and gallery/ use it without the suite."""

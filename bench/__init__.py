"""Benchmarks, apart from the test suite: `python -m bench` (or `scripts/bench`) starts the
real bot against fake Telegram and model servers that behave like the real ones, measures
the store and the renderer, and prints one Markdown table of figures."""

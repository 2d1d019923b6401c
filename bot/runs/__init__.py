"""Runs: one question from start to stored end, the runs in flight, who may start or stop them,
and the services every front end reads (services)."""

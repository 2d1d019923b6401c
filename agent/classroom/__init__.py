"""What a class sees besides the answer: the comparison's judge and its check, quiz votes,
the planner, the step-mode confirm gate, history summaries, Glassbox's remarks and run
summaries."""

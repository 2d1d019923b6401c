"""What a class sees besides the answer: the comparison's judge and its check, quiz votes,
the planner, the confirm gate (/step), history summaries, Glassbox's remarks and run
summaries."""

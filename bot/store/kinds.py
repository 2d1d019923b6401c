"""The kinds a stored run has, as enums whose values are what the store holds (so old rows
read as they were written): what was asked for, the lanes it ran in, how it ended."""

from __future__ import annotations

from enum import StrEnum


class RunMode(StrEnum):
    """What a question asked for (`runs.mode`). The HTTP API names ASK "react"."""

    ASK = "ask"  # the ReAct loop: thoughts, tool calls, observations, an answer
    PLAIN = "plain"  # the model alone, no tools
    COMPARE = "compare"  # both side by side, then the model's judgement of the difference
    RUNS = "runs"  # two stored runs of the chat side by side: copied, no model called
    MODELS = "models"  # two named models on one question, each with tools, side by side


class Lane(StrEnum):
    """One line of events in a run (`steps.lane`): an ask or plain run has MAIN; a compare
    run has PLAIN and REACT, run concurrently; a comparison of stored runs has LEFT and RIGHT,
    each a copy of one run's chain, and so has a compare of two models, each one's chain."""

    MAIN = "main"
    PLAIN = "plain"
    REACT = "react"
    LEFT = "left"
    RIGHT = "right"

    @staticmethod
    def of(mode: str) -> tuple[Lane, ...]:
        """The lanes a run of `mode` has, in the order they are shown."""
        if mode == RunMode.COMPARE:
            return Lane.PLAIN, Lane.REACT
        return (Lane.LEFT, Lane.RIGHT) if mode in (RunMode.RUNS, RunMode.MODELS) else (
            Lane.MAIN,)


class RunStatus(StrEnum):
    """Where a run is (`runs.status`): RUNNING until it ends, then how it ended."""

    RUNNING = "running"
    DONE = "done"
    MAX_ROUNDS = "max_rounds"  # it ran out of rounds before an answer
    ERROR = "error"
    CANCELLED = "cancelled"  # stopped: ⏹, /stop, or a pause nobody decided in time
    INTERRUPTED = "interrupted"  # stopped by a shutdown or a restart, not by a person


class ConversationKind(StrEnum):
    """What a conversation in the store is (`conversation_kind`, beside its `chat_id`): its
    runs, their numbers, its budget, settings and board are its own, whatever its id."""

    TELEGRAM = "telegram"  # a Telegram chat: the id is Telegram's for it
    API = "api"  # an HTTP API token's scope: the id numbers tokens from 1 by first use


class CourseMode(StrEnum):
    """How a run was asked, as the class saw it (`runs.course_mode`, what the course's
    figures split questions by): a quiz and a walkthrough (/step) are ReAct runs
    (RunMode.ASK) that the class voted before, or that paused before each action."""

    ASK = "ask"
    PLAIN = "plain"
    COMPARE = "compare"
    QUIZ = "quiz"
    WALKTHROUGH = "step"


class RefusalReason(StrEnum):
    """Why a question was not started (`refusals.reason`)."""

    RATE = "rate"  # USER_RATE_LIMIT
    BUDGET = "budget"  # CHAT_DAILY_TOKEN_BUDGET

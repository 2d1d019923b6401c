"""Polls in the fake Bot API: what sendPoll creates, votes change and stopPoll closes, in the
Bot API 10.0 shapes of tests/wire/telegram/sendPoll_quiz_ok.json, stopPoll_ok.json and
getUpdates_poll_answer.json (a PollOption has a `persistent_id`; a Poll has `allows_revoting`,
`members_only` and, for a quiz, `correct_option_ids`). The refusals' words are Telegram's, as
client libraries match them (aiogram's error table); the limits are those of Bot API 10.0."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from testkit.fakes.telegram_objects import ApiError

MAX_QUESTION, MAX_OPTION_TEXT, MAX_OPTIONS = 300, 100, 12
"""The Bot API's sendPoll limits: a question of 1-300 characters, 1-12 options of 1-100."""


@dataclass
class Poll:
    poll_id: str
    question: str
    options: list[str]
    kind: str
    """"regular" or "quiz"."""
    anonymous: bool
    correct: list[int]
    votes: dict[int, list[int]] = field(default_factory=dict)
    """Each voter's chosen options, by user id."""
    closed: bool = False

    def counts(self) -> list[int]:
        return [sum(i in chosen for chosen in self.votes.values())
                for i in range(len(self.options))]

    def json(self) -> dict[str, Any]:
        """The Poll object, as sendPoll's Message and stopPoll return it."""
        counts = self.counts()
        data: dict[str, Any] = {
            "id": self.poll_id, "question": self.question,
            "options": [{"persistent_id": str(i), "text": text, "voter_count": counts[i]}
                        for i, text in enumerate(self.options)],
            "total_voter_count": sum(bool(chosen) for chosen in self.votes.values()),
            "is_closed": self.closed, "is_anonymous": self.anonymous, "type": self.kind,
            "allows_multiple_answers": False, "allows_revoting": False, "members_only": False}
        if self.kind == "quiz":
            data["correct_option_ids"] = self.correct
        return data

    def answer(self, user: dict[str, Any], chosen: list[int]) -> dict[str, Any]:
        """Count a vote; the `poll_answer` update's body (sent for non-anonymous polls)."""
        self.votes[user["id"]] = chosen
        return {"poll_id": self.poll_id, "user": user, "option_ids": chosen,
                "option_persistent_ids": [str(i) for i in chosen]}


def new_poll(poll_id: str, p: dict[str, Any]) -> Poll:
    """A poll from sendPoll's parameters (options as strings or InputPollOption objects),
    refused as the Bot API refuses it."""
    question = p.get("question", "")
    if not question.strip():
        raise ApiError(400, "Bad Request: poll question must be non-empty")
    if len(question) > MAX_QUESTION:
        raise ApiError(400, "Bad Request: poll question length must not exceed 300")
    options = [o if isinstance(o, str) else o["text"] for o in json.loads(p["options"])]
    if not options or len(options) > MAX_OPTIONS:
        raise ApiError(400, "Bad Request: poll can't have more than 12 options")
    if any(not o.strip() for o in options):
        raise ApiError(400, "Bad Request: poll options must be non-empty")
    if any(len(o) > MAX_OPTION_TEXT for o in options):
        raise ApiError(400, "Bad Request: poll options length must not exceed 100")
    kind = p.get("type", "regular")
    correct = json.loads(p["correct_option_ids"]) if "correct_option_ids" in p else (
        [int(p["correct_option_id"])] if "correct_option_id" in p else [])
    anonymous = str(p.get("is_anonymous", "true")).lower() not in ("false", "0")
    return Poll(poll_id, question, options, kind, anonymous, correct)

"""Quiz mode as the chat, the board and the export show it: the poll's words (capped to
Telegram's limits) and the class's vote beside what the model did. Pure, like every view;
votes are counts only, never who chose what."""

from __future__ import annotations

import html
from dataclasses import dataclass

from agent.classroom.quiz_choices import taken
from agent.events import ANSWER_CHOICE, OTHER_CHOICE
from bot.view.i18n import phrase, plural
from bot.view.spans import B, I, Span, squeeze
from bot.view.textlen import shorten
from bot.view.transcript import RoundView, RoundVote, Transcript

MAX_POLL_QUESTION, MAX_POLL_OPTION = 300, 100
"""sendPoll's limits: a question of 1-300 characters, options of 1-100."""


def choice_label(choice: str, lang: str) -> str:
    if choice == ANSWER_CHOICE:
        return phrase(lang, "quiz_answer_choice")
    if choice == OTHER_CHOICE:
        return phrase(lang, "quiz_other_choice")
    return choice


def poll_words(rnd: int, question: str, choices: tuple[str, ...],
               lang: str) -> tuple[str, list[str]]:
    """The poll's question (the round's, then the asked question as far as it fits) and its
    options, each within sendPoll's limits."""
    head = phrase(lang, "quiz_poll", n=rnd)
    asked = squeeze(" ".join(question.split()))
    room = MAX_POLL_QUESTION - len(head) - 3
    full = f"{head}\n❓ {shorten(asked, room)}" if asked and room > 10 else head
    return full[:MAX_POLL_QUESTION], [shorten(choice_label(c, lang), MAX_POLL_OPTION)
                                      for c in choices]


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    count: int
    taken: bool


def rows(t: Transcript, view: RoundView, lang: str, *, every: bool = False) -> list[Row]:
    """The vote's choices with their counts, the model's own marked once known: most votes
    first; `every`: also the choices nobody took (else only those voted for or taken)."""
    vote = view.vote
    assert vote is not None
    taken = t.vote_taken(view) or set()
    counts = vote.counts or (0,) * len(vote.choices)
    out = [Row(choice_label(c, lang), n, i in taken)
           for i, (c, n) in enumerate(zip(vote.choices, counts, strict=False))
           if every or n or i in taken]
    return sorted(out, key=lambda r: -r.count) if vote.counts is not None else out


def summary(t: Transcript, view: RoundView, lang: str, *, marks: bool = True) -> str:
    """'20 votes · revealed by Teacher · ✅ the model's choice', or why there are none;
    `marks`: whether the model's choice is marked (named in the legend)."""
    vote = view.vote
    assert vote is not None
    if not vote.sent:
        return phrase(lang, "quiz_unsent")
    how = phrase(lang, "quiz_revealed_by", by=vote.by) if vote.by else phrase(
        lang, "quiz_timed_out")
    legend = f" · ✅ {phrase(lang, 'quiz_model_took')}" if marks and t.vote_taken(view) else ""
    return f"{plural(lang, 'quiz_votes', vote.voters)} · {how}{legend}"


def class_record(t: Transcript, lang: str) -> str:
    """'the class's top pick was right in 2 of 3 rounds': of the rounds the class voted on
    and whose move is known, those where the most chosen choice (or one tied for it) is
    the model's; empty when there are none."""
    hit = n = 0
    for view in t.rounds:
        vote, taken = view.vote, t.vote_taken(view)
        if vote is None or not vote.counts or not vote.voters or taken is None:
            continue
        n += 1
        top = max(vote.counts)
        hit += any(vote.counts[i] == top for i in taken)
    return phrase(lang, "quiz_matched", hit=hit, n=n) if n else ""


def voting_now(t: Transcript) -> bool:
    """Whether the run waits for the class: its last round's vote is open."""
    vote = t.rounds[-1].vote if t.rounds else None
    return vote is not None and vote.counts is None and t.finished is None


def vote_spans(t: Transcript, view: RoundView, lang: str) -> list[Span]:
    """The chat's lines for a round's vote: voting now, or the counts beside the model's
    choice (✅)."""
    vote = view.vote
    assert vote is not None
    out: list[Span] = [("🗳 ", ()), (phrase(lang, "quiz_heading"), (B,))]
    if vote.counts is None:
        return [*out, (phrase(lang, "chain_colon"), ()), (_open_words(t, vote, lang), (I,))]
    out.append((" · " + summary(t, view, lang), (I,)))
    shown = rows(t, view, lang)
    if shown and vote.sent:
        out.append(("\n", ()))
        out.append((" · ".join(f"{r.label} {r.count}{' ✅' if r.taken else ''}"
                               for r in shown), ()))
    return out


def vote_html(t: Transcript, view: RoundView, lang: str, *,
              marks: bool = True) -> tuple[str, str]:
    """The board's and the export's vote: its label, and the choices as a list, each with its
    count and a bar; `marks`: the model's choice marked `taken` (the board marks it on the
    action instead: in reveal mode the vote shows before the action and must not tell it)."""
    vote = view.vote
    assert vote is not None
    heading = f"🗳 {_e(phrase(lang, 'quiz_heading'))}"
    if vote.counts is None:
        items = "".join(f"<li>{_e(label)}</li>" for label in
                        (r.label for r in rows(t, view, lang, every=True)))
        words = phrase(lang, "quiz_cut" if t.finished is not None else "quiz_voting_board")
        if vote.so_far and t.finished is None:
            words += " · " + phrase(lang, "quiz_so_far", n=vote.so_far)
        return (f'{heading} <span class="figure">· {_e(words)}</span>',
                f'<ul class="votes open">{items}</ul>')
    label = (f'{heading} <span class="figure">· '
             f"{_e(summary(t, view, lang, marks=marks))}</span>")
    if not vote.sent:
        return label, ""
    most = max(vote.voters, 1)
    items = "".join(
        f'<li{" class=taken" if marked else ""}><span class="choice">'
        f"{'✅ ' if marked else ''}{_e(r.label)}</span>"
        f'<progress max="{most}" value="{r.count}"></progress>'
        f'<b class="count">{r.count}</b></li>'
        for r in rows(t, view, lang, every=True) for marked in [marks and r.taken])
    return label, f'<ul class="votes">{items}</ul>'


def predicted(view: RoundView, tool: str | None, lang: str) -> str:
    """Beside a move of the model (a call of `tool`; None: its answer): '🗳 3 of 4 predicted
    it', from the round's vote; empty without one."""
    vote = view.vote
    if vote is None or not vote.counts or not vote.sent:
        return ""
    [index] = taken(vote.choices, () if tool is None else (tool,)) or {-1}
    n = vote.counts[index] if index >= 0 else 0
    return phrase(lang, "quiz_predicted", n=n, total=vote.voters)


def _open_words(t: Transcript, vote: RoundVote, lang: str) -> str:
    """A vote with no counts, in the chat: open now (and how many voted), or cut short by the
    run's end."""
    if t.finished is not None:
        return phrase(lang, "quiz_cut")
    so_far = f" ({phrase(lang, 'quiz_so_far', n=vote.so_far)})" if vote.so_far else ""
    return phrase(lang, "quiz_voting") + so_far


def _e(text: str) -> str:
    return html.escape(text, quote=True)

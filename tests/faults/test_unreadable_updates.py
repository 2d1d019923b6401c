"""Updates the installed python-telegram-bot cannot read, against `python -m bot`: a `poll`
update from a Bot API server older than 9.6 (its options without `persistent_id`). Each is
skipped (polling: the offset moves past it, it is handed out once; the webhook answers 200),
logged by id and type, a bounded number of lines however many come, never with its body,
and counted on /metrics; the next question is answered."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

from bot.log_limit import BURST
from testkit.bot_process import BotProcess, bot_process, free_port, listening
from testkit.botkit import ALICE, people
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram_faults import FaultyTelegram

QUESTION = "Which tool will it call next?"
"""The old-shape poll's question: what people wrote, never in the log."""
SKIPPED = re.compile(r"update (\d+) \(poll\) skipped: python-telegram-bot [\d.]+ cannot read it")
HOOK = "/tg-hook"


def skipped_on_metrics(port: int) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        shown = reply.read().decode()
    found = re.search(r'^glassbox_telegram_updates_skipped_total\{type="poll"\} (\S+)$', shown,
                      re.MULTILINE)
    return float(found.group(1)) if found else 0.0


async def answered(tg: FaultyTelegram, bot: BotProcess, asked: int, words: str) -> None:
    def done() -> bool:
        assert bot.proc.poll() is None, bot.output()
        return any(m.reply_to == asked and words in m.text and not m.buttons
                   for m in tg.bot_messages(ALICE))
    await tg.wait(done, timeout=20)


async def test_polling_skips_updates_it_cannot_read_and_answers_the_next(
        tmp_path: Path) -> None:
    port = free_port()
    with FaultyTelegram() as tg, FakeModel() as model:
        people(tg)
        # A server that sends every poll update in the old shape: thirty in a row, then a
        # question, all in the first getUpdates answer.
        poisoned = [tg.poll_from_an_older_server() for _ in range(30)]
        model.push(text_reply("Still here."))
        asked = tg.send(ALICE, ALICE, "are you still there?")
        with bot_process(tg, model, tmp_path, HTTP_LISTEN=f"127.0.0.1:{port}") as bot:
            await answered(tg, bot, asked, "Still here.")
            await tg.wait(lambda: listening(port))
            assert skipped_on_metrics(port) == 30
            assert bot.terminate() == 0
            log = bot.output()
    assert [tg.handed[i] for i in poisoned] == [1] * 30  # the offset moved past each, at once
    logged = [int(i) for i in SKIPPED.findall(log)]
    assert logged == poisoned[:BURST]  # one line each, up to the rate limit
    assert QUESTION not in log and "calculate" not in log and "Traceback" not in log
    assert len(log.encode()) < 8_000, log


async def test_the_webhook_answers_200_and_a_redelivered_update_keeps_the_log_small(
        tmp_path: Path) -> None:
    port = free_port()
    with FaultyTelegram() as tg, FakeModel() as model:
        people(tg)
        with bot_process(tg, model, tmp_path, WEBHOOK_URL=f"http://127.0.0.1:{port}{HOOK}",
                         HTTP_LISTEN=f"127.0.0.1:{port}") as bot:
            def up() -> bool:
                assert bot.proc.poll() is None, bot.output()
                return listening(port) and bool(tg.webhook)
            await tg.wait(up, 30)
            poisoned = tg.poll_from_an_older_server()
            await tg.wait(lambda: len(tg.push_statuses) == 1)
            assert tg.push_statuses == [200]  # anything else, and Telegram delivers it again
            # Delivered again and again (a minute of redeliveries, back to back):
            [update] = tg.pushed
            assert [tg.push(update) for _ in range(300)] == [200] * 300
            model.push(text_reply("Still here."))
            asked = tg.send(ALICE, ALICE, "are you still there?")
            await answered(tg, bot, asked, "Still here.")
            assert skipped_on_metrics(port) == 1
            assert bot.terminate() == 0
            log = bot.output()
    assert [int(i) for i in SKIPPED.findall(log)] == [poisoned]
    assert log.count(f"update {poisoned} delivered again") <= BURST
    assert QUESTION not in log and "Traceback" not in log
    assert len(log.encode()) < 8_000, log

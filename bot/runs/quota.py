"""Fair use: a per-user rate limit (USER_RATE_LIMIT) and a per-chat daily token budget
(CHAT_DAILY_TOKEN_BUDGET); and `Cooldowns`, the in-memory limit on what is cheap to ask for
but not free to answer (notices to one sender, /history searches).

Both are counted from the store, so a restart resets neither: the rate limit from when the
user's runs started, the budget from the tokens of the runs the chat started today (UTC).
A running run's tokens count once it finishes. Admins (ADMIN_USER_IDS) have no rate limit;
the budget holds for everyone, since it is about the bill.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Hashable
from datetime import UTC, datetime, timedelta

from agent.lang import Lang
from bot.settings import BotSettings
from bot.store.transcripts import Store
from bot.view.i18n import text


async def refusal(store: Store, settings: BotSettings, chat_id: int, user_id: int,
                  lang: Lang, now: datetime | None = None) -> str | None:
    """The polite line saying why a new question may not start now and when it may;
    None if it may."""
    refused = await refusal_and_wait(store, settings, chat_id, user_id, lang, now)
    return None if refused is None else refused[0]


async def refusal_and_wait(store: Store, settings: BotSettings, chat_id: int, user_id: int,
                           lang: Lang, now: datetime | None = None
                           ) -> tuple[str, timedelta] | None:
    """`refusal`'s line and how long until a question may start (the HTTP API's
    Retry-After); None if one may now."""
    now = now or datetime.now(UTC)
    limit = settings.user_rate_limit
    if limit is not None and not settings.is_admin(user_id):
        window = timedelta(seconds=limit.window_s)
        starts = await store.starts_since(user_id, now - window)
        if len(starts) >= limit.runs:
            frees = starts[len(starts) - limit.runs] + window
            return text(lang, "rate_limited", count=len(starts),
                        window=wait_text(window, lang), wait=wait_text(frees - now, lang)), \
                frees - now
    budget = settings.chat_daily_token_budget
    if budget is not None:
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        if await store.tokens_since(chat_id, midnight) >= budget:
            frees = midnight + timedelta(days=1)
            return text(lang, "over_budget", budget=f"{budget:,}",
                        wait=wait_text(frees - now, lang)), frees - now
    return None


def wait_text(span: timedelta, lang: Lang) -> str:
    """A span rounded up to whole minutes: `7 min`, `3 h 12 min` (`7 分钟`, `3 小时 12 分钟`)."""
    minutes = max(1, math.ceil(span.total_seconds() / 60))
    hours, minutes = divmod(minutes, 60)
    h, m = ("小时", "分钟") if lang == "zh" else ("h", "min")
    if not hours:
        return f"{minutes} {m}"
    return f"{hours} {h}" + (f" {minutes} {m}" if minutes else "")


class Cooldowns:
    """At most `most` uses per key in any `window_s` seconds, remembered in memory for at
    most `keys_kept` keys (a flood of new keys forgets the oldest, never grows without end)."""

    def __init__(self, most: int, window_s: float, keys_kept: int = 4096) -> None:
        self.most, self.window_s, self.keys_kept = most, window_s, keys_kept
        self._uses: dict[Hashable, deque[float]] = {}

    def take(self, key: Hashable) -> float:
        """Use one for `key` if its budget allows: 0.0. Otherwise the seconds until it
        does (and nothing is used)."""
        now = time.monotonic()
        uses = self._uses.get(key)
        if uses is None:
            self._make_room(now)
            uses = self._uses[key] = deque()
        while uses and now - uses[0] >= self.window_s:
            uses.popleft()
        if len(uses) >= self.most:
            return uses[0] + self.window_s - now
        uses.append(now)
        return 0.0

    def _make_room(self, now: float) -> None:
        if len(self._uses) < self.keys_kept:
            return
        self._uses = {k: v for k, v in self._uses.items() if v and now - v[-1] < self.window_s}
        while len(self._uses) >= self.keys_kept:
            del self._uses[next(iter(self._uses))]

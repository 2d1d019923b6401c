"""Fair use: a per-user rate limit (USER_RATE_LIMIT) and a per-chat daily token budget
(CHAT_DAILY_TOKEN_BUDGET); and `Cooldowns`, the in-memory limit on what is cheap to ask for
but not free to answer (notices to one sender, /history searches).

Both are counted from the store, so a restart resets neither: the rate limit from when the
user's runs started, the budget from the tokens of the runs the chat started today (UTC).
A running run's tokens count once it finishes. Admins (ADMIN_USER_IDS) have no rate limit;
the budget holds for everyone, since it is about the bill.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.bot_settings import BotSettings
from bot.store.db import StoreUnavailable
from bot.store.records import Conversation
from bot.store.transcripts import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RateLimited:
    """USER_RATE_LIMIT: `runs` questions started in the last `window`; the next may start
    in `wait`."""

    runs: int
    window: timedelta
    wait: timedelta


@dataclass(frozen=True, slots=True)
class OverBudget:
    """CHAT_DAILY_TOKEN_BUDGET (`budget` tokens) is used up today; it frees up in `wait`."""

    budget: int
    wait: timedelta


async def refusal(store: Store, settings: BotSettings, conversation: Conversation,
                  user_id: int | None, now: datetime | None = None
                  ) -> RateLimited | OverBudget | None:
    """Why a new question of `user_id` in `conversation` may not start now (user_id None:
    the conversation asks, an API token); None if it may (also while the database, which
    counts them, is down: the class is not stopped)."""
    try:
        return await _refusal(store, settings, conversation, user_id, now or datetime.now(UTC))
    except StoreUnavailable as err:
        log.warning("limits not checked: the database is down (%s)", err)
        return None


async def _refusal(store: Store, settings: BotSettings, conversation: Conversation,
                   user_id: int | None, now: datetime) -> RateLimited | OverBudget | None:
    limit = settings.user_rate_limit
    if limit is not None and (user_id is None or not settings.is_admin(user_id)):
        window = timedelta(seconds=limit.window_s)
        starts = await (store.starts_in(conversation, now - window) if user_id is None
                        else store.starts_since(user_id, now - window))
        if len(starts) >= limit.runs:
            return RateLimited(len(starts), window, starts[len(starts) - limit.runs] + window - now)
    budget = settings.chat_daily_token_budget
    if budget is not None:
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        if await store.tokens_since(conversation, midnight) >= budget:
            return OverBudget(budget, midnight + timedelta(days=1) - now)
    return None


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

"""What every handler needs to read an update: the sender's language and who the sender is."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import Update, User

from agent.lang import Lang
from bot.store.chat_settings_values import ChatSettings
from bot.store.records import telegram_chat
from bot.telegram.context import Context


def lang_of(user: User | None) -> Lang:
    """The user's Telegram language: Chinese for any `zh…` code, else English."""
    code = (user.language_code or "") if user else ""
    return "zh" if code.lower().startswith("zh") else "en"


@dataclass(frozen=True, slots=True)
class Sender:
    """Who sent a message, as the bot tells people apart: their runs, their one running
    question, their rate limits, who may stop or forget what.

    A message posted as a channel or as the group itself ("anonymous admin") comes `from`
    one placeholder user that every such message shares (136817688 for channels, 1087968824
    for anonymous admins); its `sender_chat` says who it really is. So such a sender is that
    chat: its id (negative, never a user's) and title. Every anonymous admin of a group is
    the one sender "the group"; Telegram vouches they are its admins."""

    id: int
    name: str
    lang: Lang
    anonymous_admin: bool = False
    """Posted as the group by one of its admins: an admin of this chat."""


def sender_of(update: Update) -> Sender:
    """The sender of the update's message (a button's tapper has no `sender_chat`)."""
    user, msg = update.effective_user, update.message
    assert user is not None
    posted_as = msg.sender_chat if msg is not None else None
    if posted_as is None:
        return Sender(user.id, user.full_name, lang_of(user))
    assert msg is not None
    return Sender(posted_as.id, posted_as.effective_name or str(posted_as.id), lang_of(user),
                  anonymous_admin=posted_as.id == msg.chat_id)


async def is_admin(context: Context, chat_id: int, sender: Sender) -> bool:
    """May `sender` act for everyone in the chat (stop or forget anyone's run)?"""
    return sender.anonymous_admin or await context.parts.admins.check(chat_id, sender.id)


async def words_lang(context: Context, chat_id: int, person: Lang) -> Lang:
    """The language of the bot's words in this chat to `person`: the chat's /settings
    language, if it set one, else the person's own (ChatSettings.words_lang)."""
    return (await chat_settings(context, chat_id)).words_lang(person)


async def tap_lang(update: Update, context: Context) -> Lang:
    """The language of the answer to a button tap: the chat's, if it set one, else the
    tapper's."""
    query, chat = update.callback_query, update.effective_chat
    assert query is not None
    person = lang_of(query.from_user)
    return person if chat is None else await words_lang(context, chat.id, person)


async def chat_settings(context: Context, chat_id: int) -> ChatSettings:
    """The chat's own settings (/settings), the environment's where it changed nothing."""
    return await context.services.chat_settings(telegram_chat(chat_id))

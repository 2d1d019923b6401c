"""What the bot refuses, and how: updates it never acts on, chats it does not serve, and
messages no other handler takes (unknown commands, photos and stickers). Each gets one
short line or nothing, never a trace or a half-started run. (Buttons no handler knows are
answered by the last handler here.)
"""

from __future__ import annotations

from telegram import Message, Update
from telegram.constants import ChatType
from telegram.ext import (
    ApplicationHandlerStop,
    BaseHandler,
    CallbackQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.commands import PRIVATE
from bot.telegram.handlers.common import lang_of, sender_of
from bot.view.i18n import text


def screen_handler() -> BaseHandler:  # type: ignore[type-arg]
    """Runs before every other handler (in its own, earlier group)."""
    return TypeHandler(Update, screen)


def fallback_handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    """After every other handler: these take only what none of them took."""
    not_text = ~filters.TEXT & ~filters.StatusUpdate.ALL
    where = filters.ChatType.PRIVATE | filters.CaptionRegex("^/")
    return [
        MessageHandler(filters.COMMAND, unknown_command),
        MessageHandler(not_text & where, text_only),
        CallbackQueryHandler(unknown_tapped),
    ]


def addressed_to_us(msg: Message, username: str) -> bool:
    """In a private chat, everything; in a group, a command naming us (`/x@GlassboxBot`)
    or one of our commands without a name (text or caption)."""
    if msg.chat.type == ChatType.PRIVATE:
        return True
    first = (msg.text or msg.caption or "").split(maxsplit=1)[:1]
    if not first or not first[0].startswith("/"):
        return False
    name, _, target = first[0][1:].partition("@")
    return target.lower() == username.lower() if target else name.lower() in PRIVATE


async def screen(update: Update, context: Context) -> None:
    """Edits, channel posts and a linked channel's automatic forwards are never acted on
    (an edited question does not run again). A button with empty data (forged: every
    pattern handler would take it) is stale. Chats outside ALLOWED_CHAT_IDS get one line
    when they address the bot, nothing more."""
    if update.edited_message or update.channel_post or update.edited_channel_post or (
            update.message is not None and update.message.is_automatic_forward):
        raise ApplicationHandlerStop
    query = update.callback_query
    if query is not None and not query.data:
        await query.answer(text(lang_of(query.from_user), "stale_button"))
        raise ApplicationHandlerStop
    chat = update.effective_chat
    if chat is None or context.services.settings.chat_allowed(chat.id):
        return
    line = text(lang_of(update.effective_user), "not_allowed")
    if query is not None:
        await query.answer(line)
    elif update.message is not None and addressed_to_us(update.message, context.bot.username):
        await context.parts.outbox.notice(chat.id, update.message.message_id,
                                    sender_of(update).id, line, Notice.NOT_ALLOWED)
    raise ApplicationHandlerStop


async def unknown_command(update: Update, context: Context) -> None:
    await _hint_if_ours(update, context, "unknown_command")


async def text_only(update: Update, context: Context) -> None:
    """A photo, sticker or voice message in a private chat, or a command in a caption."""
    await _hint_if_ours(update, context, "text_only")


async def _hint_if_ours(update: Update, context: Context, key: str) -> None:
    """A usage hint (the text `key`), if the message was meant for us: as a notice, once per
    cooldown to a sender who keeps at it."""
    msg = update.effective_message
    assert msg is not None
    if addressed_to_us(msg, context.bot.username):
        sender = sender_of(update)
        await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                    text(sender.lang, key), Notice.USAGE, key)


async def unknown_tapped(update: Update, context: Context) -> None:
    """A button no handler knows (from an older version, or forged): say so, do nothing."""
    query = update.callback_query
    assert query is not None
    await query.answer(text(lang_of(query.from_user), "stale_button"), show_alert=True)

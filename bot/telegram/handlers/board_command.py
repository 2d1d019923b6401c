"""/board: the chat's class-board link; `/board reset`: a new one (the old link stops working).

Anyone with the link can watch the chat's runs, so in a group only admins get it, and
privately: the link goes to the admin's private chat with the bot, and the group is told
it was sent (or, when the bot may not write to them yet, asked to start a private chat).
"""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import BaseHandler, CommandHandler

from bot.store.records import telegram_chat
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import is_admin, lang_of, sender_of, words_lang
from bot.view.i18n import text


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    return [CommandHandler("board", board_command)]


async def board_command(update: Update, context: Context) -> None:
    msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert msg is not None and msg.text is not None and chat is not None and user is not None
    sender = sender_of(update)
    lang = await words_lang(context, chat.id, lang_of(user))
    say = context.parts.outbox.say
    if context.services.settings.http_address() is None:
        await say(chat.id, msg.message_id, text(lang, "board_off"))
        return
    private = chat.type == ChatType.PRIVATE
    if not private and not await is_admin(context, chat.id, sender):
        await context.parts.outbox.notice(chat.id, msg.message_id, sender.id,
                                    text(lang, "board_admins_only"), Notice.ADMINS_ONLY,
                                    "board")
        return
    words = msg.text.split()
    renew = len(words) > 1 and words[1].lower() == "reset"
    token = await context.services.store.boards.token(chat.id, renew=renew)
    if renew:
        context.services.hub.reset(telegram_chat(chat.id), token)  # streams of the old link end now
    query = f"?lead={sender.id}" + ("&lang=zh" if lang == "zh" else "")  # the teacher's runs
    url = f"{context.services.settings.base_url()}/board/{token}{query}"
    title = chat.effective_name or str(chat.id)
    link = text(lang, "board_link", title=title, url=url)
    if renew:
        link = text(lang, "board_reset") + "\n\n" + link
    if private:
        await say(chat.id, msg.message_id, link)
        return
    sent = [] if sender.anonymous_admin else await say(user.id, None, link)
    await say(chat.id, msg.message_id,
              text(lang, "board_sent" if sent else "board_start_private"))

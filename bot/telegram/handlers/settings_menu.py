"""/settings: a chat's own settings in an inline menu that edits them in place. Group admins
(and, in a private chat, its user) change them; anyone else sees them read-only. A change
says what changed and applies from the chat's next question.

The bot's admins (ADMIN_USER_IDS) also see what auto mode learned about the model endpoints,
which changes every chat's runs, and may reset it."""

from __future__ import annotations

from telegram import Message, Update
from telegram.constants import ChatType
from telegram.ext import BaseHandler, CallbackQueryHandler, CommandHandler

from agent.model.endpoint_memory import EndpointMemory
from bot.runs.chat_settings_applied import apply
from bot.store.chat_settings_values import ChatSettings
from bot.store.db import StoreUnavailable
from bot.store.records import telegram_chat
from bot.telegram.context import Context
from bot.telegram.delivery.outbox import Notice
from bot.telegram.handlers.common import chat_settings, is_admin, lang_of, sender_of
from bot.view.i18n import phrase, text
from bot.view.settings_view import FORGET_LEARNED, settings_keyboard, settings_text, value_text

_MENUS = {"tool": "tools", "tz": "tz", "model": "models"}
"""After a change in a submenu, that submenu stays open."""


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    return [CommandHandler("settings", settings_command),
            CallbackQueryHandler(settings_tapped, pattern=r"^cfg:")]


async def settings_command(update: Update, context: Context) -> None:
    """/settings shows the menu; `/settings timezone Area/City` sets a zone the menu does
    not offer."""
    msg, sender = update.effective_message, sender_of(update)
    assert msg is not None and msg.text is not None
    chat = await chat_settings(context, msg.chat_id)
    lang = chat.words_lang(sender.lang)
    allowed = msg.chat.type == ChatType.PRIVATE or await is_admin(context, msg.chat_id, sender)
    words = msg.text.split()[1:]
    change = None
    if words and allowed:
        zone = words[1] if len(words) == 2 and words[0].lower() in ("timezone", "tz") else ""
        changed = apply(chat, f"tz:{zone}") if zone else None
        if changed is None:
            await context.parts.outbox.notice(msg.chat_id, msg.message_id, sender.id,
                                        text(lang, "settings_usage"), Notice.USAGE,
                                        "settings")
            return
        chat, done = changed
        await context.services.store.chats.put(telegram_chat(msg.chat_id), chat, _defaults(context),
                                      sender.id)
        change = (done.field, done.before, done.after)
    tools, learned = _tools(context), _learned(context, sender.id)
    await context.parts.outbox.say(msg.chat_id, msg.message_id,
                             settings_text(chat, lang, tools, may_change=allowed, change=change,
                                           learned=learned),
                             settings_keyboard(chat, lang, tools, forget=_resettable(learned),
                                               models=_models(context))
                             if allowed else None)


def _learned(context: Context, user_id: int) -> list[EndpointMemory]:
    """What auto mode learned, for a bot admin to see; nothing for anyone else."""
    return context.services.runs.learned() if context.services.settings.is_admin(user_id) else []


def _resettable(learned: list[EndpointMemory]) -> bool:
    return any(memory.learned() for memory in learned)


def _tools(context: Context) -> list[str]:
    """The tools this bot has (AGENT_TOOLS), in the order they are offered."""
    return [tool.name for tool in context.services.runs.tools]


def _models(context: Context) -> list[str]:
    """The names of the models a chat may choose, the environment's default first."""
    return context.services.runs.models.names


def _defaults(context: Context) -> ChatSettings:
    return ChatSettings.defaults(context.services.settings)


async def settings_tapped(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None and query.data is not None
    message, user = query.message, query.from_user
    if not isinstance(message, Message):
        await query.answer(text(lang_of(user), "stale_button"))
        return
    chat_id = message.chat_id
    chat = await chat_settings(context, chat_id)
    lang = chat.words_lang(lang_of(user))
    if message.chat.type != ChatType.PRIVATE and not await context.parts.admins.check(chat_id,
                                                                                 user.id):
        await query.answer(phrase(lang, "settings_not_admin"), show_alert=True)
        return
    if query.data == FORGET_LEARNED:
        await _forget_learned(update, context, chat, lang)
        return
    action = query.data.removeprefix("cfg:")
    learned = _learned(context, user.id)
    if action.startswith("menu:"):
        await query.answer()
        await context.parts.outbox.edit(chat_id, message.message_id,
                                  settings_text(chat, lang, _tools(context), may_change=True,
                                                learned=learned),
                                  settings_keyboard(chat, lang, _tools(context),
                                                    action.removeprefix("menu:"),
                                                    forget=_resettable(learned),
                                                    models=_models(context)))
        return
    changed = apply(chat, action, _models(context))
    if changed is None:
        await query.answer(text(lang, "stale_button"))
        return
    chat, done = changed
    await context.services.store.chats.put(telegram_chat(chat_id), chat, _defaults(context),
                                           user.id)
    lang = chat.words_lang(lang_of(user))
    after = value_text(done.field, done.after, lang, _tools(context))
    await query.answer(phrase(lang, "settings_changed_short",
                              what=phrase(lang, f"settings_{done.field}"), after=after))
    menu = _MENUS.get(action.split(":", 1)[0], "main")
    await context.parts.outbox.edit(chat_id, message.message_id,
                              settings_text(chat, lang, _tools(context), may_change=True,
                                            change=(done.field, done.before, done.after),
                                            learned=learned),
                              settings_keyboard(chat, lang, _tools(context), menu,
                                                forget=_resettable(learned),
                                                models=_models(context)))


async def _forget_learned(update: Update, context: Context, chat: ChatSettings,
                          lang: str) -> None:
    """♻️: a bot admin resets what auto mode learned; the menu shows it gone."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    if not context.services.settings.is_admin(query.from_user.id):
        await query.answer(phrase(lang, "settings_not_bot_admin"), show_alert=True)
        return
    try:
        await context.services.runs.forget_learned(query.from_user.id)
    except StoreUnavailable:
        await query.answer(phrase(lang, "settings_store_down"), show_alert=True)
        return
    await query.answer(phrase(lang, "settings_forgot_learned"))
    await context.parts.outbox.edit(query.message.chat_id, query.message.message_id,
                              settings_text(chat, lang, _tools(context), may_change=True,
                                            learned=context.services.runs.learned()),
                              settings_keyboard(chat, lang, _tools(context),
                                                models=_models(context)))

"""The gallery page: each scenario's message states in order, as bubbles at phone width, then
its final state on a phone screen (390×844) and in Telegram Desktop at 1280×720, as Telegram
draws them (light theme). What a projector shows in class is the board (gallery/board_picture.py).
One self-contained HTML file: inline CSS, no scripts, nothing fetched.

Code is drawn in a CJK monospace font, whose Latin letters are half as wide as its Chinese
ones: the width tables (bot/view/tables.py) count them by."""

from __future__ import annotations

import base64
import html
import re
from typing import Any

import numpy as np

from agent.lang import pick
from bot.voice.audio import decode
from gallery.run import Played
from testkit.fakes.telegram_objects import Frame, Sound

VOICE_BARS = 36
"""The bars a voice note's loudness is drawn in."""

_CSS = """
:root { --bubble: #fff; --mine: #effdde; --chat: #cfdcc1; --accent: #3a8bd1; }
* { box-sizing: border-box; }
body { margin: 0; background: #eef0f2; color: #111;
       font: 15px/1.4 "Noto Sans", "Noto Sans CJK SC", "Noto Color Emoji", sans-serif; }
main { padding: 16px 24px 64px; }
nav a { margin-right: .8em; }
h1 { margin: 1.2em 0 .2em; } h2 { margin: 1.6em 0 .2em; border-top: 2px solid #bbb;
                                   padding-top: .6em; }
.about { color: #555; margin: 0 0 .6em; }
.row { display: flex; gap: 24px; align-items: flex-start; flex-wrap: wrap; }
.timeline { width: 390px; background: var(--chat); padding: 8px; border-radius: 8px; }
figure { margin: 0 0 10px; }
figcaption { font-size: 11px; color: #345; margin: 0 0 2px 4px; }
.msg { display: flex; flex-direction: column; align-items: flex-start; margin: 4px 0; }
.msg.mine { align-items: flex-end; }
.bubble { background: var(--bubble); border-radius: 12px; padding: 6px 10px 8px;
          max-width: 100%; white-space: pre-wrap; overflow-wrap: anywhere;
          box-shadow: 0 1px 1px rgba(0,0,0,.15); }
.mine .bubble { background: var(--mine); }
.sender { color: var(--accent); font-weight: 600; font-size: .9em; white-space: normal; }
.bubble code { font-family: "Noto Sans Mono CJK SC", monospace; font-size: .9em;
               background: #eef2f5; border-radius: 3px; padding: 0 2px; color: #1a5a8a; }
.bubble pre { font-family: "Noto Sans Mono CJK SC", monospace; font-size: .85em;
              background: #eef2f5; border-radius: 6px; padding: 6px 8px; margin: 2px 0;
              white-space: pre; overflow-x: auto; }
.bubble pre code { background: none; padding: 0; color: inherit; }
.bubble blockquote { margin: 3px 0; padding: 2px 8px; border-left: 3px solid var(--accent);
                     background: #e9f2fb; border-radius: 4px; }
.bubble blockquote.expandable { max-height: 4.3em; overflow: hidden; position: relative; }
.bubble blockquote.expandable::after { content: "⌄"; position: absolute; right: 6px;
                                       bottom: 0; color: var(--accent); background: #e9f2fb; }
.bubble a { color: var(--accent); }
.buttons { display: flex; flex-direction: column; gap: 3px; margin-top: 3px; width: 100%; }
.buttons div { display: flex; gap: 3px; }
.buttons span { flex: 1; text-align: center; background: rgba(80,110,90,.45); color: #fff;
                border-radius: 8px; padding: 5px 8px; font-size: .9em; }
.file { display: flex; gap: 8px; align-items: center; white-space: normal; }
.file b { display: block; }
.file i { width: 40px; height: 40px; border-radius: 50%; background: var(--accent);
          color: #fff; display: flex; align-items: center; justify-content: center;
          font-style: normal; }
.screen { background: var(--chat); overflow: hidden; display: flex; flex-direction: column;
          border: 1px solid #889; position: relative; }
.phone { width: 390px; height: 844px; border-radius: 28px; border: 8px solid #222; }
.desktop { width: 1280px; height: 720px; flex-direction: row; font-size: 14px;
             margin-top: 16px; }
.bar { background: #fff; padding: 10px 14px; border-bottom: 1px solid #ddd; flex: none; }
.bar small { display: block; color: #888; }
.input { background: #fff; color: #999; padding: 12px 16px; flex: none;
         border-top: 1px solid #ddd; }
.scroll { flex: 1; overflow: hidden; display: flex; flex-direction: column;
          justify-content: flex-end; padding: 6px 8px; }
.phone .bubble { max-width: 92%; }
.side { width: 300px; background: #fff; border-right: 1px solid #ddd; flex: none; }
.side div { padding: 12px 16px; color: #333; } .side .on { background: #419fd9; color: #fff; }
.desk { flex: 1; display: flex; flex-direction: column; }
.desk .scroll { padding: 6px 60px; }
.desk .bubble { max-width: 480px; }
.poll { white-space: pre-wrap; min-width: 260px; }
.photo { display: block; width: 100%; max-width: 100%; border-radius: 8px; margin-bottom: 6px; }
.poll small { display: block; color: #888; margin: 2px 0 4px; }
.voice { display: flex; gap: 8px; align-items: center; white-space: normal; }
.voice b { width: 40px; height: 40px; border-radius: 50%; background: var(--accent);
           color: #fff; display: flex; align-items: center; justify-content: center;
           flex: none; font-weight: normal; }
.voice span { display: flex; gap: 2px; align-items: flex-end; height: 22px; }
.voice span i { width: 3px; background: var(--accent); border-radius: 2px; opacity: .8; }
.voice small { color: #5a8f5a; }
.poll .option { margin: 6px 0; position: relative; padding-bottom: 5px; }
.poll .option i { position: absolute; left: 0; bottom: 0; height: 3px; background: var(--accent);
                  border-radius: 2px; }
.poll .votes { text-align: center; }
iframe.export { width: 100%; max-width: 1280px; height: 640px; border: 1px solid #889;
                background: #fff; margin-top: 12px; }
"""

_EXPANDABLE = re.compile(r"<blockquote expandable>")
_BLOCK_END = re.compile(r"(</blockquote>|</pre>)\n")
"""A line break right after a quote or a code block: Telegram draws none (the block ends
the line), a browser would draw a blank line."""


def page(played: list[Played]) -> str:
    """The whole gallery as one HTML document."""
    nav = " ".join(f'<a href="#{p.scenario.key}-{p.lang}">{_e(_title(p))}</a>' for p in played)
    parts = [f"<h2 id=\"{p.scenario.key}-{p.lang}\">{_e(_title(p))}</h2>{_section(p)}"
             for p in played]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>Glassbox gallery</title>\n<style>" + _CSS + "</style>\n</head>\n<body><main>"
            "<h1>Glassbox gallery</h1><p class=\"about\">Every message state of each scenario, "
            "in order, run against the fakes; then the final state on a phone and in "
            "Telegram Desktop at 1280×720. The class board on a projector: the "
            "<code>*-board.png</code> pictures.</p><nav>" + nav + "</nav>\n" + "\n".join(parts)
            + "</main></body>\n</html>\n")


def _title(p: Played) -> str:
    return f"{pick(p.lang, *p.scenario.title)} · {pick(p.lang, '中文', 'English')}"


def _section(p: Played) -> str:
    doc = (p.scenario.play.__doc__ or "").strip()
    bot_frames = [f for f in p.frames if f.from_bot]
    steps = []
    for n, frame in enumerate(p.frames, 1):
        if frame.from_bot:
            first = next(f for f in bot_frames if f.message_id == frame.message_id) is frame
            what = "sent" if first else "deleted" if frame.deleted else "edited"
        else:
            what = "asked"
        bubble = "" if frame.deleted else _bubble(frame)
        steps.append(f"<figure><figcaption>{n}/{len(p.frames)} · {what} · message "
                     f"{frame.message_id}</figcaption>{bubble}</figure>")
    final = final_state(p.frames)
    chat = "".join(_bubble(frame) for frame in final)
    phone = (f'<div class="screen phone" id="phone-{p.scenario.key}-{p.lang}">'
             f'<div class="bar"><b>{_e(p.group_title)}</b><small>Glassbox</small></div>'
             f'<div class="scroll">{chat}</div><div class="input">Message</div></div>')
    side = "".join(f'<div class="{"on" if n == 0 else ""}">{_e(name)}</div>'
                   for n, name in enumerate([p.group_title, "Class 3B", "Staff room"]))
    desktop = (f'<div class="screen desktop" id="desktop-{p.scenario.key}-{p.lang}">'
                 f'<div class="side">{side}</div><div class="desk"><div class="bar">'
                 f"<b>{_e(p.group_title)}</b><small>31 members</small></div>"
                 f'<div class="scroll">{chat}</div><div class="input">Write a message…</div>'
                 "</div></div>")
    export = "".join(
        f'<iframe class="export" title="export" srcdoc="{_e(f.document.content.decode())}">'
        "</iframe>" for f in final if f.document is not None)
    return (f'<p class="about">{_e(doc)}</p><div class="row"><div class="timeline">'
            f'{"".join(steps)}</div>{phone}</div>{desktop}{export}')


def final_state(frames: list[Frame]) -> list[Frame]:
    """Each message's last state, in the order the messages appeared (a deleted one gone)."""
    last: dict[int, Frame] = {}
    for frame in frames:
        last[frame.message_id] = frame
    return sorted((f for f in last.values() if not f.deleted), key=lambda f: f.message_id)


def _bubble(frame: Frame) -> str:
    if frame.poll is not None:
        body = _poll(frame.poll)
    elif frame.photo is not None:  # inline, so the page still fetches nothing
        data = base64.b64encode(frame.photo.content).decode()
        body = f'<img class="photo" alt="" src="data:image/png;base64,{data}">{_text(frame)}'
    elif frame.sound is not None:
        body = _voice(frame.sound) + _text(frame)
    elif frame.document is not None:
        size = f"{len(frame.document.content) / 1024:,.1f} KB"
        body = (f'<div class="file"><i>📄</i><span><b>{_e(frame.document.file_name)}</b>'
                f"{size}</span></div>{_text(frame)}")
    else:
        body = _text(frame)
    sender = "" if frame.from_bot else f'<div class="sender">{_e(frame.sender_name)}</div>'
    rows = "".join("<div>" + "".join(f"<span>{_e(b)}</span>" for b in row) + "</div>"
                   for row in frame.buttons)
    buttons = f'<div class="buttons">{rows}</div>' if rows else ""
    mine = "" if frame.from_bot else " mine"
    return f'<div class="msg{mine}"><div class="bubble">{sender}{body}</div>{buttons}</div>'


def _voice(sound: Sound) -> str:
    """A voice note as Telegram draws it: a play button, the loudness of its sound over time
    as bars, and its length."""
    samples = decode(sound.content, sound.duration + 1)
    loud = [float(np.sqrt(np.mean(part ** 2))) if part.size else 0.0
            for part in np.array_split(samples, VOICE_BARS)]
    top = max(loud) or 1.0
    bars = "".join(f'<i style="height:{3 + round(17 * level / top)}px"></i>' for level in loud)
    return (f'<div class="voice"><b>▶</b><span>{bars}</span>'
            f"<small>{sound.duration // 60}:{sound.duration % 60:02d}</small></div>")


def _poll(poll: dict[str, Any]) -> str:
    """A poll as Telegram draws it: open, its options to tap; closed, each option's share
    with a bar, and the number of voters."""
    total = poll["total_voter_count"]
    kind = "Final results" if poll["is_closed"] else (
        "Anonymous poll" if poll["is_anonymous"] else "Public poll")
    rows = []
    for option in poll["options"]:
        if poll["is_closed"]:
            share = round(100 * option["voter_count"] / total) if total else 0
            rows.append(f'<div class="option"><b>{share}%</b> {_e(option["text"])}'
                        f'<i style="width:{share}%"></i></div>')
        else:
            rows.append(f'<div class="option">○ {_e(option["text"])}</div>')
    votes = f"{total} vote{'' if total == 1 else 's'}"
    return (f'<div class="poll"><b>{_e(poll["question"])}</b><small>{kind}</small>'
            f'{"".join(rows)}<small class="votes">{votes}</small></div>')


def _text(frame: Frame) -> str:
    """The message's text as Telegram draws it: the bot's Telegram HTML is HTML already
    (checked by the fake Bot API); anything else is text."""
    if frame.parse_mode.upper() == "HTML":
        return _BLOCK_END.sub(r"\1", _EXPANDABLE.sub('<blockquote class="expandable">',
                                                      frame.raw))
    return _e(frame.raw)


def _e(text: str) -> str:
    return html.escape(text, quote=True)

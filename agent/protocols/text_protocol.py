"""The classic ReAct text protocol: the system prompt, and a parser tolerant of how real
models break the format.

A reply is read as one of: an action to run (`Act`), the answer (`Final`), or `Unparsed`.
Everything from a model-written `Observation:` on is discarded first: a model never
observes for itself. Every regex here reads model text, so each is linear: quantifiers that
meet a neighbour of the same characters are possessive (`*+`), never free to backtrack.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agent.prompts import language_tail, react_instructions
from agent.tool import Tool
from agent.words import say

STOP = ["\nObservation"]
"""Where a server stops the model: at an Observation line the model starts writing itself.
Not at every "Observation:": an answer that quotes it ('cut the text at the "Observation:"
line') was cut there by a real server, mid-sentence."""

_LABELS = {
    "thought": ("thought", "思考", "想法"),
    "input": (r"action\s++input", "行动输入", "动作输入"),
    "action": ("action", "行动", "动作"),
    "observation": ("observation", "观察"),
    "answer": (r"final\s++answer", "answer", "最终答案", "最终回答", "答案"),
}
_KIND_OF = {word.replace(r"\s++", " "): kind for kind, words in _LABELS.items() for word in words}
# At a line start, maybe under Markdown (`**Thought 2:**`), numbered, with `:` or `：`.
_LABEL = re.compile(
    r"^[ \t>*#_`-]*+(?P<word>" + "|".join(
        word for words in _LABELS.values() for word in words) + r")"
    r"[ \t]*+(?:#?\d++)?+[ \t]*+[*_]*+[ \t]*+[:：][*_]*+[ \t]*+",
    re.IGNORECASE | re.MULTILINE,
)
_CALL = re.compile(r"(?P<name>[\w.\-]++)\s*+(?P<open>[\[(])", re.DOTALL)
_NAME = re.compile(r"[\w.\-]+")
_CALL_AT_ONCE = re.compile(r"[\w.\-]++[\[(]")
"""A call as the format writes it, the bracket right after the name ("calls (a tool)" is
prose)."""
_FENCE = re.compile(r"^```[\w-]*+[ \t]*+\n?+(?P<body>.*?)\n?```$", re.DOTALL)
_NONE = {"none", "null", "n/a", "no action", "nothing", "无", "不需要"}
_FINISH = {"finish", "final answer", "answer"}


@dataclass(frozen=True, slots=True)
class Act:
    thought: str
    tool: str
    input: str
    """The tool input as written, fences and quotes stripped (JSON or plain text)."""


@dataclass(frozen=True, slots=True)
class Final:
    thought: str
    answer: str


@dataclass(frozen=True, slots=True)
class Unparsed:
    problem: str


ParsedReply = Act | Final | Unparsed


def _kind(match: re.Match[str]) -> str:
    return _KIND_OF[" ".join(match.group("word").lower().split())]


def cut_observation(text: str) -> str:
    """The text before a model-written `Observation:` (servers may ignore `stop`)."""
    for match in _LABEL.finditer(text):
        if _kind(match) == "observation":
            return text[: match.start()]
    return text


_MARKUP = re.compile(r"</?+(?:tools|tool_call|tool_response)>|<\|(?:im_start|im_end|endoftext)\|>")
"""The chat template's own tags. Qwen's template tells the model its tools are "within
<tools></tools> XML tags", and a small model copies that empty pair as its thought."""


def protocol_free(text: str) -> str:
    """`text` without what belongs to the protocol rather than to the conversation: the
    chat template's tags, a Thought label with nothing after it, and each Action line that
    is a call (`Action: tool[input]`,
    `Action: tool(input)`, or a name followed by its `Action Input:`) with that input.
    An Action line in prose ("Action: the tool the model calls") stays: it is no call."""
    text = _MARKUP.sub("", text)
    labels = list(_LABEL.finditer(text))
    cut: list[tuple[int, int]] = []
    for i, match in enumerate(labels):
        kind = _kind(match)
        if kind == "input" and cut and cut[-1][1] == match.start():
            cut[-1] = (cut[-1][0], _end(text, labels, i))
        elif (kind == "action" and _is_call(text, labels, i)) or (
                kind == "thought" and not _section(text, labels, i)):
            cut.append((match.start(), _end(text, labels, i)))
    kept, last = [], 0
    for start, end in cut:
        kept.append(text[last:start])
        last = end
    kept.append(text[last:])
    return "".join(kept).strip()


def unlabelled(text: str) -> str:
    """`text` without the Thought label it opens with: a reply that starts "Thought: ..."
    where an answer was asked for (a forced last round) is the model's words under the
    protocol's label, and the label is no part of them."""
    match = _LABEL.match(text)
    if match is None or _kind(match) != "thought":
        return text
    return text[match.end():].strip()


def _end(text: str, labels: list[re.Match[str]], i: int) -> int:
    return labels[i + 1].start() if i + 1 < len(labels) else len(text)


def _is_call(text: str, labels: list[re.Match[str]], i: int) -> bool:
    """Whether the action label `labels[i]` starts a call rather than prose."""
    body = _section(text, labels, i).strip("`").strip()
    if _CALL_AT_ONCE.match(body):
        return True
    following = labels[i + 1] if i + 1 < len(labels) else None
    return bool(_NAME.fullmatch(body)) and following is not None and _kind(following) == "input"


def answer_start(text: str) -> tuple[str, int] | None:
    """(thought, index where the answer begins) once an answer label comes before any
    action label in `text`; used to stream the answer while it is written."""
    for match in _LABEL.finditer(text):
        kind = _kind(match)
        if kind in ("action", "input"):
            return None
        if kind == "answer":
            head = text[: match.start()]
            return _thought(head, _LABEL.finditer(head)), match.end()
    return None


def _thought(text: str, labels: Iterable[re.Match[str]]) -> str:
    """The thought of a reply: free text before any label, and its Thought sections."""
    found = list(labels)
    parts = [text[: found[0].start()].strip()] if found else [text.strip()]
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        if _kind(match) == "thought":
            parts.append(text[match.end(): end].strip())
    return "\n".join(p for p in parts if p)


def parse_reply(text: str) -> ParsedReply:
    """Read one reply of the text protocol."""
    text = cut_observation(text).strip()
    if not text:
        return Unparsed("empty reply")
    labels = list(_LABEL.finditer(text))
    if not labels:
        return Final("", text)  # plain text with no labels is the answer
    for i, match in enumerate(labels):
        kind = _kind(match)
        if kind == "answer":
            answer = text[match.end():].strip()
            thought = _thought(text[: match.start()], labels[:i])
            return Final(thought, answer) if answer else Unparsed("empty Final Answer")
        if kind == "action":
            reading = _action(text, labels, i)
            if reading is not None:
                return reading
    return Unparsed("no Action and no Final Answer")


def _section(text: str, labels: list[re.Match[str]], i: int) -> str:
    end = labels[i + 1].start() if i + 1 < len(labels) else len(text)
    return text[labels[i].end(): end].strip()


def _action(text: str, labels: list[re.Match[str]], i: int) -> ParsedReply | None:
    """The reading of the action label at `labels[i]`; None for `Action: None`."""
    thought = _thought(text[: labels[i].start()], labels[:i])
    body = _section(text, labels, i).strip("`").strip()
    if body.lower().rstrip(".") in _NONE:
        return None
    call = _CALL.match(body)
    if call:
        close = "]" if call.group("open") == "[" else ")"
        end = body.rfind(close)
        if end < call.end():
            return Unparsed(f"unclosed {call.group('open')} in Action")
        name, raw = call.group("name"), body[call.end(): end]
    elif _NAME.fullmatch(body):
        following = labels[i + 1] if i + 1 < len(labels) else None
        given = following is not None and _kind(following) == "input"
        name, raw = body, _section(text, labels, i + 1) if given else ""
    else:
        return Unparsed("cannot read the Action")
    if name.lower().replace("_", " ") in _FINISH:
        return Final(thought, _unquote(clean_input(raw)))
    return Act(thought, name, clean_input(raw))


def clean_input(raw: str) -> str:
    """Tool input without code fences or surrounding whitespace."""
    raw = raw.strip()
    fenced = _FENCE.match(raw)
    return fenced.group("body").strip() if fenced else raw


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        try:
            value = json.loads(text) if text[0] == '"' else text[1:-1]
        except json.JSONDecodeError:
            return text[1:-1]
        return value if isinstance(value, str) else text
    return text


def arguments_for(raw: str, tool: Tool | None) -> dict[str, Any] | str:
    """The arguments dict an `Act` input means for `tool`: a JSON object, the arguments of
    a call (`100, "USD", "CNY"` or `amount=100, to_currency=CNY`; positional ones fill the
    tool's fields in their order), `key: value` lines naming the tool's fields, or, for a
    tool with one required (or one string) field, the plain value of that field. Anything
    else is returned as text, for `mend` to explain."""
    if not raw:
        return {}
    try:
        value: Any = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep
        value = _call_args(raw, tool)
        if value is None:
            value = _fields(raw, tool) or _unquote(raw)
    if isinstance(value, dict):
        return value
    field = _single_field(tool)
    return {field: value} if field else raw


def _call_args(raw: str, tool: Tool | None) -> dict[str, Any] | None:
    """What `raw` means as the inside of a Python call, or None: `city="Paris", days=2`,
    and, for a known tool, positional values (a bare word is its text: `100, USD, CNY`)
    filling its fields in order, when there are several and the tool accepts them."""
    try:
        call = ast.parse(f"f({raw})", mode="eval").body
        if not isinstance(call, ast.Call) or not (call.keywords or len(call.args) > 1):
            return None
        names = list(tool.fields()) if tool is not None else []
        if len(call.args) > len(names):
            return None
        args = {name: _literal(node) for name, node in zip(names, call.args, strict=False)}
        args.update({kw.arg: _literal(kw.value) for kw in call.keywords if kw.arg})
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None  # MemoryError, RecursionError: the parser's answer to deep nesting
    if call.args and tool is not None:
        try:
            tool.Args.model_validate(args)
        except ValidationError:
            return None  # not these fields in this order: read it another way
    return args


def _literal(node: ast.expr) -> Any:
    """A literal's value; a bare word (`USD`, `London`) is its text."""
    return node.id if isinstance(node, ast.Name) else ast.literal_eval(node)


_PAIR = re.compile(r"[ \t]*+[\"']?+(?P<key>\w++)[\"']?+[ \t]*+[:=][ \t]*+(?P<value>.*)")
_PIECES = re.compile(r"[,\n]")


def _fields(raw: str, tool: Tool | None) -> dict[str, Any] | None:
    """`key: value` lines (or `key=value, key=value` unquoted) whose keys are all fields
    of `tool`, as a dict; a piece that names no field continues the previous value (a
    comma inside an expression). None when the first piece names no field."""
    if tool is None:
        return None
    names = tool.fields()
    found: dict[str, list[str]] = {}
    key = ""
    for piece, sep in _split_kept(raw):
        pair = _PAIR.fullmatch(piece)
        if pair and pair.group("key") in names:
            key = pair.group("key")
            found[key] = [pair.group("value")]
        elif key:
            found[key] += (sep, piece)
        elif piece.strip():
            return None
    return {k: _value("".join(v)) for k, v in found.items()} or None


def _split_kept(raw: str) -> list[tuple[str, str]]:
    """The pieces of `raw` between commas and newlines, each with the separator before it."""
    pieces, last, sep = [], 0, ""
    for match in _PIECES.finditer(raw):
        pieces.append((raw[last: match.start()], sep))
        last, sep = match.end(), match.group()
    pieces.append((raw[last:], sep))
    return pieces


def _value(text: str) -> Any:
    text = text.strip()
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return _unquote(text)


def _single_field(tool: Tool | None) -> str | None:
    """The field a plain input fills: the one required field, else the one string field."""
    if tool is None:
        return None
    fields = tool.fields()
    if len(fields) == 1:
        return next(iter(fields))
    required = [name for name, info in fields.items() if info.is_required()]
    if len(required) == 1:
        return required[0]
    strings = [name for name, info in fields.items() if info.annotation is str]
    return strings[0] if len(strings) == 1 and not required else None


def mend(tool: Tool, raw: str, problem: str, lang: str) -> str:
    """The observation for an input `tool` cannot use: what went wrong, the tool's
    arguments (required first), and the exact line to write instead, with every argument
    the tool takes: what the input said where it can be read, else a placeholder."""
    fields = tool.fields()
    order = sorted(fields, key=lambda name: not fields[name].is_required())
    props = tool.schema()["function"]["parameters"].get("properties", {})
    listing = "; ".join(
        f"{name} ({_type_of(props.get(name, {}))}"
        + ("" if fields[name].is_required() else say(lang, "mend_optional")) + ")"
        for name in order)
    given = arguments_for(raw, tool)
    known = given if isinstance(given, dict) else {}
    example = {name: known.get(name, "...") for name in order}
    line = f"Action: {tool.name}[{json.dumps(example, ensure_ascii=False)}]"
    return say(lang, "mend", tool=tool.name, problem=problem, listing=listing, line=line)


def _type_of(schema: dict[str, Any]) -> str:
    """A field's JSON type for a person: `number`, `string`, `string/null`."""
    if "type" in schema:
        return str(schema["type"])
    return "/".join(str(t.get("type", "?")) for t in schema.get("anyOf", ())) or "?"


# One format for every language, so that every question's prompt starts the same (see
# agent.prompts.react_instructions). Its worked examples differ by language: a small model
# copies an example's figures into an answer about the same kind of thing, so the English
# example looks up something no weather question resembles (Hamlet); the Chinese one keeps
# a weather lookup, which shows a small model to report the current weather rather than
# the day's summary.
_FORMAT = """You can use these tools:

{tools}

Use exactly this format (the labels stay in English in every language):

Thought: one short sentence: what you need and why (or that no tool is needed)
Action: tool_name[input]
Observation: the tool's result (the system writes this, never you)
... (Thought, Action and Observation may repeat)
Thought: I have what I need.
Final Answer: the answer to the question, in the conversation's language

The input of a tool with one argument is its plain value; for a tool with several
arguments it is a JSON object, e.g. tool_name[{{"a": 1, "b": "x"}}]. Write one Action,
then stop and wait for the Observation. A question about two places or things takes one
Action for each, one after the other. A greeting, thanks or a question about you (who
you are, what you can do) needs no tool: write the Thought and the Final Answer at once.

Example (the tool in it is only an illustration):
Question: Who wrote Hamlet?
Thought: I need to look up Hamlet.
Action: search_wikipedia[Hamlet]
Observation: Hamlet: a tragedy by William Shakespeare, written around 1600.
Thought: I have what I need.
Final Answer: Hamlet was written by William Shakespeare, around 1600.

Example in Chinese:
Question: 巴黎现在多热？
Thought: 我需要巴黎现在的天气。
Action: get_weather[巴黎]
Observation: 巴黎：21°C，晴
Thought: 我已经有了需要的信息。
Final Answer: 巴黎现在 21°C，天气晴朗。

Example without a tool:
Question: Hello! Who are you and what can you do?
Thought: A greeting needs no tool.
Final Answer: Hello! I am Glassbox, the class's assistant. Ask me about the weather, the
time, exchange rates, calculations or the course notes.

Example without a tool, in Chinese:
Question: 你好！你是谁？能做什么？
Thought: 问候不需要工具。
Final Answer: 你好！我是 Glassbox，课堂的助教。可以问我天气、时间、汇率、计算或课程笔记。"""


_NATIVE = ("Here the tools are also offered to you as functions: call one with a function "
           "call, not an Action line, and write your answer as plain text, without the "
           "labels.")


def shared_prefix(tools: Sequence[Tool]) -> str:
    """Who we are, the tools with their argument schemas, the format and its worked
    examples: the same for every question and both protocols of auto mode, so that after
    a switch to the text format a local server reads only what follows it (llama.cpp keeps
    the longest prefix it has read)."""
    listing = "\n".join(_describe(tool) for tool in tools) or "(none)"
    return react_instructions([tool.name for tool in tools]) + "\n\n" + _FORMAT.format(
        tools=listing)


def text_system(tools: Sequence[Tool], lang: str = "en") -> str:
    """The text protocol's system prompt: the shared prefix, then the question's
    language."""
    return shared_prefix(tools) + "\n\n" + language_tail(lang)


def native_system(tools: Sequence[Tool], lang: str = "en") -> str:
    """The system prompt of auto mode's native rounds: the text format's prefix, then
    that the tools are functions here, then the language. The format costs a native run
    its tokens, but a model that writes its calls as text switches without a second full
    prompt read."""
    return shared_prefix(tools) + "\n\n" + _NATIVE + "\n\n" + language_tail(lang)


def _describe(tool: Tool) -> str:
    params = tool.schema()["function"]["parameters"]
    return (f"- {tool.name}: {tool.description}\n"
            f"  arguments: {json.dumps(params, ensure_ascii=False)}")


def correction(lang: str) -> str:
    """The one corrective message after a reply that could not be read."""
    return say(lang, "correction")

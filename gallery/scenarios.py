"""The scenarios a class sees, each run in its own chat, in the stage's language.

Each returns the chat whose frames it drew and the visible pieces its final state must hold
(tests/test_gallery.py checks them): words the model or a tool wrote, tool names and marks,
so that wording changes in the bot's own labels do not break the gallery.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.store.records import Scope
from bot.voice.audio import RATE, decode
from gallery.class_stage import GROUP, READ_S, TEACHER, Stage, routed
from testkit.fakes.model import error
from testkit.fakes.telegram import Message
from testkit.fakes.telegram_objects import Sound, SoundKind
from testkit.photokit import PAGES, sample
from testkit.voicekit import speech


@dataclass(frozen=True)
class Shot:
    chat: int
    expect: tuple[str, ...]
    since: int = 0
    """The first frame that belongs to the scenario (earlier ones set the scene)."""


@dataclass(frozen=True)
class Scenario:
    key: str
    title: tuple[str, str]
    """(zh, en)"""
    play: Callable[[Stage], Awaitable[Shot]]
    board: bool = False
    """A run of the teacher's in the class group, which the projector's board shows too."""
    course: bool = False
    """The class group's course page (1280×720) is pictured after it."""
    board_top: bool = False
    """The board is pictured at the run's top (what was read or heard from what the student
    sent, above the first round), not at its newest step."""


def berlin(s: Stage) -> str:
    """The model's three rounds for "how warm is it in Berlin, in °F?" (the weather looked
    up, then a conversion calculated, then the answer), queued; the question."""
    s.model.push(
        s.called(("get_weather", {"city": "Berlin"}), content=s.t(
            "我需要先查一下柏林现在的天气。", "I need the current weather in Berlin.")),
        s.called(("calculate", {"expression": "2.3 * 9 / 5 + 32"}), content=s.t(
            "现在把 2.3 °C 换算成华氏度。", "Now I convert 2.3 °C to Fahrenheit.")),
        s.said(s.t("柏林现在 **2.3 °C**，约合 **36.1 °F**，风速 10.7 km/h。",
                   "It is **2.3 °C** in Berlin right now, about **36.1 °F**, with a wind of "
                   "10.7 km/h.")))
    return s.t("柏林现在多少度？换算成华氏度是多少？",
               "How warm is it in Berlin now, and what is that in °F?")


async def ask(s: Stage) -> Shot:
    """A 3-round /ask: the weather looked up, then a conversion calculated."""
    question = berlin(s)
    user = s.user("ask")
    await s.ask(user, user, question)
    return Shot(user, ("get_weather", "calculate", "36.1 °F"))


async def mixed(s: Stage) -> Shot:
    """A student whose Telegram speaks one language asks in the other."""
    other = "en" if s.lang == "zh" else "zh"
    city = "Osaka" if s.lang == "zh" else "北京"
    s.model.push(s.called(("get_weather", {"city": city})),
                 s.said("Osaka is overcast at 27.3 °C." if other == "en"
                        else "北京现在小雨，气温 21.4 °C。"))
    user = s.user("mixed", ui=s.lang)
    await s.ask(user, user, "What is the weather in Osaka?" if other == "en"
                else "北京现在天气怎么样？")
    return Shot(user, ("get_weather", "27.3 °C" if other == "en" else "21.4 °C"))


async def compare(s: Stage) -> Shot:
    """/compare in the class group, by the teacher: the model alone guesses a product; with
    tools it calculates it."""
    s.model.default = routed(
        s.said(s.t("123456789 × 987654321 约等于 **121,932,631,137,021,795**。",
                   "123456789 × 987654321 = **121,932,631,137,021,795**.")),
        s.called(("calculate", {"expression": "123456789 * 987654321"}),
                 content=s.t("大数乘法容易算错，我用计算器。",
                             "Big products are easy to get wrong by hand; I will use the "
                             "calculator.")),
        s.said(s.t("123456789 × 987654321 = **121,932,631,112,635,269**。",
                   "123456789 × 987654321 = **121,932,631,112,635,269**.")))
    since = _mark(s)
    try:
        await s.ask(GROUP, TEACHER, "/compare " + s.t(
            "123456789 乘以 987654321 等于多少？", "What is 123456789 × 987654321?"))
    finally:
        s.model.default = None
    return Shot(GROUP, ("121,932,631,137,021,795", "121,932,631,112,635,269", "⚖️", "📊"),
                since=since)


async def plain(s: Stage) -> Shot:
    """/plain: the model alone, no tools."""
    s.model.push(s.said(s.t(
        "ReAct 让模型**交替**地思考和行动：先想需要什么，再调用工具，看到结果后继续想。",
        "ReAct has a model **alternate** between reasoning and acting: it thinks about what it "
        "needs, calls a tool, reads the result and thinks again.")))
    user = s.user("plain")
    await s.ask(user, user, "/plain " + s.t("什么是 ReAct？", "What is ReAct?"))
    return Shot(user, ("ReAct",))


async def model_error(s: Stage) -> Shot:
    """The model's service refuses the key: a polite reason, no trace."""
    s.model.push(error("openai/error_401_invalid_api_key.json", 401))
    user = s.user("error")
    await s.ask(user, user, s.t("明天会下雨吗？", "Will it rain tomorrow?"))
    return Shot(user, ("❌",))


async def round_cap(s: Stage) -> Shot:
    """A model that keeps calling tools until the round cap, then answers without them."""
    s.model.push(*(s.called(("calculate", {"expression": f"2 ** {n * 8}"}), content=s.t(
        f"再算一次 2 的 {n * 8} 次方。", f"Let me try 2 ** {n * 8}.")) for n in range(1, 7)),
                 s.said(s.t("2 的 48 次方是 **281,474,976,710,656**。",
                            "2 ** 48 is **281,474,976,710,656**.")))
    user = s.user("cap")
    await s.ask(user, user, s.t("2 的 48 次方是多少？一步一步算。",
                                "What is 2 to the 48th? Work up to it step by step."))
    return Shot(user, ("281,474,976,710,656", "⚠️"))


async def tool_failure(s: Stage) -> Shot:
    """A tool that fails (no such place), and a model that says so: the teacher's question
    in the class group."""
    s.model.push(s.called(("get_weather", {"city": "Atlantis"})),
                 s.said(s.t("我找不到叫 Atlantis 的地方，它可能只是传说。",
                            "I could not find a place called Atlantis; it may be a legend.")))
    since = _mark(s)
    await s.ask(GROUP, TEACHER, "/ask " + s.t("Atlantis 现在天气怎么样？",
                                             "What is the weather in Atlantis?"))
    return Shot(GROUP, ("Atlantis", "⚠️"), since=since)


async def two_places(s: Stage) -> Shot:
    """A comparison in one lookup: get_weather takes both cities, and its observation says
    which is colder; the teacher's question in the class group."""
    s.model.push(
        s.called(("get_weather", {"city": "Berlin, Paris"}), content=s.t(
            "我需要柏林和巴黎现在的天气。", "I need the weather in Berlin and in Paris now.")),
        s.said(s.t("柏林更冷：现在 **2.3 °C**，巴黎 **21.4 °C**。",
                   "Berlin is colder: **2.3 °C** right now, against **21.4 °C** in Paris.")))
    since = _mark(s)
    await s.ask(GROUP, TEACHER, "/ask " + s.t("现在柏林和巴黎哪里更冷？",
                                             "Is it colder in Berlin or in Paris right now?"))
    return Shot(GROUP, ("Berlin, Paris", "2.3 °C", "21.4 °C"), since=since)


async def thinking(s: Stage) -> Shot:
    """A thinking model: its reasoning streams before each step."""
    s.model.push(
        s.called(("get_weather", {"city": "Osaka"}), reasoning=s.t(
            "用户问大阪要不要带伞。我不知道今天的天气，需要查一下大阪的实时天气和降水。",
            "The user asks whether to take an umbrella in Osaka. I do not know today's "
            "weather, so I should look up Osaka's current conditions and rain.")),
        s.said(s.t("大阪现在阴天，今天降水概率 55%，最好带伞。",
                   "Osaka is overcast with a 55% chance of rain today: take an umbrella."),
               reasoning=s.t("观察显示阴天，降水概率 55%。",
                             "The observation says overcast, 55% chance of rain.")))
    user = s.user("thinking")
    await s.ask(user, user, s.t("今天在大阪要带伞吗？", "Do I need an umbrella in Osaka today?"))
    return Shot(user, ("get_weather", "Osaka"))


async def no_reasoning(s: Stage) -> Shot:
    """A model that calls a tool without a word: Glassbox's note says so, as Glassbox's."""
    s.model.push(s.called(("get_weather", {"city": "Paris"})),
                 s.said(s.t("巴黎现在下着小雨，21.4 °C。",
                            "It is raining lightly in Paris right now, 21.4 °C.")))
    user = s.user("silent")
    await s.ask(user, user, s.t("巴黎现在天气如何？", "How is the weather in Paris?"))
    return Shot(user, ("get_weather", "Paris"))


def long_text(s: Stage) -> str:
    """An answer of about 6,000 characters in sections, as a model writes a long one."""
    part = s.t(
        "ReAct 把推理和行动交织在一起：模型每一轮先写下它的想法，再决定是否调用工具。"
        "工具的结果作为观察回到模型，模型据此修正计划，直到可以回答。", "ReAct interleaves "
        "reasoning and acting: each round the model writes down what it thinks, then decides "
        "whether to call a tool. The tool's result comes back as an observation, and the "
        "model adjusts its plan until it can answer.")
    sections = []
    for n in range(1, 9):
        body = "\n\n".join([part] * (12 if s.lang == "zh" else 3))
        sections.append(s.t(f"## 第 {n} 部分\n\n", f"## Part {n}\n\n") + body)
    return "\n\n".join(sections)


async def long_answer(s: Stage) -> Shot:
    """A long answer: pages that break between paragraphs, marked (1/2)."""
    s.model.push(s.said(long_text(s)))
    user = s.user("long")
    await s.ask(user, user, s.t("详细讲讲 ReAct。", "Explain ReAct in detail."))
    return Shot(user, ("ReAct",))


async def table(s: Stage) -> Shot:
    """An answer with a Markdown table: an aligned monospace block, CJK counted double."""
    s.model.push(s.said(s.t(
        "| 方法 | 用工具 | 特点 |\n|---|:---:|---|\n| 思维链 | 否 | 只推理 |\n"
        "| ReAct | 是 | 推理 + 行动 |\n| Plan-and-Solve | 否 | 先计划后求解 |",
        "| Method | Tools | In short |\n|---|:---:|---|\n| Chain-of-thought | no | reasons "
        "only |\n| ReAct | yes | reasons + acts |\n| 计划求解 | no | plans first |")))
    user = s.user("table")
    await s.ask(user, user, s.t("用表格比较思维链和 ReAct。",
                                "Compare chain-of-thought and ReAct in a table."))
    return Shot(user, ("|", "ReAct"))


async def history(s: Stage) -> Shot:
    """/history in the class group (after the /compare run there, and one more)."""
    s.model.push(s.said(s.t("光速约为每秒 **299,792 公里**。",
                            "Light travels about **299,792 km** a second.")))
    await s.ask(GROUP, s.user("history", name=s.t("小红", "Sam")),
                "/ask " + s.t("光速是多少？", "How fast is light?"))
    since = _mark(s)
    await s.command(GROUP, TEACHER, "/history")
    return Shot(GROUP, ("#1", "#2"), since=since)


async def show(s: Stage) -> Shot:
    """/show: a stored run replayed with its chain open."""
    since = _mark(s)
    await s.command(GROUP, TEACHER, "/show 1")
    return Shot(GROUP, ("📜 #1", "⚖️"), since=since)


async def export(s: Stage) -> Shot:
    """/export: the run as an HTML file (drawn below its message)."""
    since = _mark(s)
    await s.command(GROUP, TEACHER, "/export 1")
    return Shot(GROUP, ("glassbox-1.html",), since=since)


async def quiz(s: Stage) -> Shot:
    """/quiz in the class group, by the teacher: before each round the class votes in a poll
    on what the model does next; the teacher taps 👁 Reveal, the poll closes, the round runs,
    and the votes stay beside what the model did."""
    question = berlin(s)
    names = s.t("小林 小红 小明 小芳 小刚 小丽", "Alex Sam Kim Lee Max Ana").split()
    students = [s.user(f"quiz-{name}", name=name) for name in names]
    weather, calc, answer = "get_weather", "calculate", s.t("直接回答（不调用工具）",
                                                            "answer directly (no tool)")
    votes = ((weather, weather, weather, weather, calc, answer),
             (calc, calc, calc, answer, answer, weather),
             (answer, answer, answer, answer, answer, calc))
    """By round, each student's choice (a poll's option)."""
    since = _mark(s)
    polled = len(_polls(s))
    asked = s.tg.send(GROUP, TEACHER, "/quiz " + question)
    for n, chosen in enumerate(votes, polled + 1):
        await s.tg.wait(lambda n=n: len(_polls(s)) >= n and _reveal(s, asked) != "", 30)
        poll = _polls(s)[n - 1]
        for student, choice in zip(students, chosen, strict=True):
            s.tg.vote(GROUP, student, poll.message_id, [poll.poll.options.index(choice)])
        await s.tg.wait(lambda p=poll: _counted(s, p) == len(students), 30)
        s.tg.tap(GROUP, TEACHER, s.gb.replies_to(GROUP, asked)[0].message_id,
                 _reveal(s, asked))
        await s.tg.wait(lambda p=poll: p.poll.closed, 30)
    await s.gb.answer_to(GROUP, asked, 60)
    return Shot(GROUP, ("get_weather", "calculate", "36.1 °F", "🗳", "✅"), since=since)


def _polls(s: Stage) -> list[Message]:
    """The bot's polls in the group, in order (those taken out of the chat too)."""
    return [m for (chat, _), m in sorted(s.tg.messages.items())
            if chat == GROUP and m.poll is not None]


def _counted(s: Stage, poll: Message) -> int:
    """Votes the bot has counted for `poll` (0 until it knows the poll)."""
    vote = s.gb.services.runs.votes.of_poll(poll.poll.poll_id)
    return 0 if vote is None else sum(vote.counts())


def _reveal(s: Stage, asked: int) -> str:
    """The 👁 Reveal button's data on the run's message ("" while there is none)."""
    replies = s.gb.replies_to(GROUP, asked)
    rows = (replies[0].reply_markup or {}).get("inline_keyboard", []) if replies else []
    return next((b["callback_data"] for row in rows for b in row
                 if b["callback_data"].startswith("quiz:")), "")


async def compare_models(s: Stage) -> Shot:
    """/compare local qwen-plus in the class group, by the teacher: the school's small local
    model guesses a percentage (and guesses the same again when sent back to calculate it);
    the cloud model calculates it; both answers side by side, then the judgement."""
    assert s.local is not None
    guess = s.said(s.t("2,480 的 17% 大约是 **400**。", "17% of 2,480 is roughly **400**."))
    s.local.push(guess, guess)
    s.model.push(s.called(("calculate", {"expression": "2480 * 0.17"}), content=s.t(
        "百分比我用计算器算。", "I will work the percentage out with the calculator.")),
        s.said(s.t("2,480 的 17% 正好是 **421.6**。", "17% of 2,480 is exactly **421.6**.")))
    since = _mark(s)
    await s.ask(GROUP, TEACHER, "/compare local qwen-plus " + s.t(
        "2,480 的 17% 是多少？", "What is 17% of 2,480?"))
    return Shot(GROUP, ("local", "qwen-plus", "421.6", "400", "⚖️", "📊"), since=since)


async def compare_runs(s: Stage) -> Shot:
    """/compare N M in the class group, by the teacher: a student's run beside the teacher's
    on one question, not asked again (one call judges them); the student's model guessed
    (and, sent back once to calculate it, guessed the same again), the teacher's calculated."""
    question = "/ask " + s.t("2,480 的 17% 是多少？", "What is 17% of 2,480?")
    s.model.push(s.called(("calculate", {"expression": "2480 * 0.17"}), content=s.t(
        "百分比我用计算器算。", "I will work the percentage out with the calculator.")),
        s.said(s.t("2,480 的 17% 正好是 **421.6**。", "17% of 2,480 is exactly **421.6**.")))
    await s.ask(GROUP, TEACHER, question)
    teachers = await _newest(s)
    guess = s.said(s.t("2,480 的 17% 大约是 **400**。", "17% of 2,480 is roughly **400**."))
    s.model.push(guess, guess)
    await s.ask(GROUP, s.user("compare-runs", name=s.t("小明", "Kim")), question)
    students = await _newest(s)
    since = _mark(s)
    await s.command(GROUP, TEACHER, f"/compare {students} {teachers}")
    return Shot(GROUP, ("421.6", "400", "calculate", "⚡", "📊"), since=since)


async def rerun(s: Stage) -> Shot:
    """/rerun N in the class group, by the teacher: an earlier question asked again with
    today's settings; this time the model answers from memory (the same again when sent back
    to calculate it), and the first action where the two chains part is marked."""
    s.model.push(s.called(("calculate", {"expression": "2 ** 20"}), content=s.t(
        "我用计算器算 2 的 20 次方。", "I will calculate 2 ** 20.")),
        s.said(s.t("2 的 20 次方是 **1,048,576**。", "2 to the 20th is **1,048,576**.")))
    await s.ask(GROUP, TEACHER, "/ask " + s.t("2 的 20 次方是多少？", "What is 2 to the 20th?"))
    earlier = await _newest(s)
    guess = s.said(s.t("2 的 20 次方大约是 **1,000,000**。",
                       "2 to the 20th is about **1,000,000**."))
    s.model.push(guess, guess)
    since = _mark(s)
    await s.command(GROUP, TEACHER, f"/rerun {earlier}", replies=2)
    return Shot(GROUP, ("1,048,576", "1,000,000", "⚡", "📊"), since=since)


async def _newest(s: Stage) -> int:
    """The number of the class group's newest run."""
    page = await s.gb.services.store.history(Scope(GROUP), per_page=1)
    return page.runs[0].n


def _mark(s: Stage) -> int:
    """Frame number from which on what happens belongs to the scenario being played."""
    return len(s.tg.frames)


async def local_model(s: Stage) -> Shot:
    """A small local model that writes its tool call into its text: Glassbox goes on in the
    classic Thought/Action/Observation format and says so once, and a figure in the answer
    that no observation holds gets the quiet ⁱ mark. Last: the model client remembers the
    format for every later run of the stage."""
    s.model.push(
        s.said('```json\n{"name": "get_weather", "arguments": {"city": "Osaka"}}\n```'),
        s.said(s.t("Thought: 我已经查到大阪的天气。\n"
                   "Final Answer: 大阪现在阴天，27.3 °C，湿度 82%。",
                   "Thought: I have the weather in Osaka.\nFinal Answer: Osaka is overcast "
                   "at 27.3 °C, humidity 82%.")))
    user = s.user("local")
    await s.ask(user, user, s.t("大阪现在天气怎么样？", "What is the weather in Osaka?"))
    return Shot(user, ("get_weather", "27.3 °C", "82%ⁱ"))


async def stats(s: Stage) -> Shot:
    """/stats in the class group, by the teacher, after the lecture's examples: the course so
    far as one picture, its caption the headline figures (the course page has the same
    charts, larger)."""
    since = _mark(s)
    [picture] = await s.command(GROUP, TEACHER, "/stats")
    assert picture.photo is not None
    return Shot(GROUP, ("📊", "/compare", "/quiz"), since=since)


async def photo(s: Stage) -> Shot:
    """A phone photo of the exercise in the book, sent by the teacher to the class group with
    /ask as its caption: what Glassbox read from it is the chain's first step, its own and
    not the model's, before the model's first round (on the board beside the photo)."""
    page = next(p for p in PAGES if p.name == s.t("exercise-zh", "exercise-en"))
    s.model.push(
        s.called(("calculate", {"expression": "240 / 3"}), content=s.t(
            "平均速度等于路程除以时间。", "Average speed is the distance over the time.")),
        s.said(s.t("平均速度是 **80 千米每小时**（240 千米 ÷ 3 小时）。",
                   "Its average speed is **80 km/h** (240 km ÷ 3 h).")))
    since = _mark(s)
    asked = s.tg.send_photo(GROUP, TEACHER, sample(page, "photographed").data,
                            caption="/ask " + s.t("请解这道题。", "Solve this one, please."))
    await s.gb.answer_to(GROUP, asked, READ_S)
    return Shot(GROUP, ("📷", "240", "calculate", s.t("80 千米每小时", "80 km/h")),
                since=since)


async def voice(s: Stage) -> Shot:
    """A student's voice message in the class group (spoken by espeak-ng, sent as Telegram
    sends a voice note), and the teacher's /ask replying to it: what the embedded Whisper
    heard is the chain's first step, marked as heard by Glassbox."""
    said = s.t("上海明天会下雨吗", "Is it raining in Shanghai right now?")
    s.model.push(
        s.called(("get_weather", {"city": s.t("上海", "Shanghai")}), content=s.t(
            "我先查一下上海的天气。", "I will look up the weather in Shanghai.")),
        s.said(s.t("上海现在下着小雨，21.4 °C，今天降水概率 70%，明天出门最好带伞。",
                   "Yes: light rain in Shanghai right now, 21.4 °C, with a 70% chance of "
                   "rain today.")))
    clip = speech(said, s.lang)
    seconds = -(-decode(clip, 60).size // RATE)
    student = s.user("voice", name=s.t("小红", "Sam"))
    since = _mark(s)
    sent = s.tg.send_sound(GROUP, student, Sound(SoundKind.VOICE, clip, seconds))
    asked = s.tg.send(GROUP, TEACHER, "/ask", reply_to=sent)
    await s.gb.answer_to(GROUP, asked, READ_S)
    return Shot(GROUP, ("🎤", "Whisper", said[:6], "get_weather", "21.4 °C"), since=since)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("ask", ("/ask：三轮", "/ask in 3 rounds"), ask),
    Scenario("mixed", ("界面是中文，问题是英文", "English Telegram, Chinese question"), mixed),
    Scenario("compare", ("/compare", "/compare"), compare, board=True),
    Scenario("plain", ("/plain", "/plain"), plain),
    Scenario("error", ("模型出错", "A model error"), model_error),
    Scenario("round-cap", ("达到轮数上限", "The round cap"), round_cap),
    Scenario("tool-failure", ("工具失败", "A failed tool"), tool_failure, board=True),
    Scenario("two-places", ("一次查询比较两地", "Two places in one lookup"), two_places,
             board=True),
    Scenario("thinking", ("思考型模型", "A thinking model"), thinking),
    Scenario("no-reasoning", ("模型不写推理", "No reasoning given"), no_reasoning),
    Scenario("long", ("长回答，分页", "A long answer in pages"), long_answer),
    Scenario("table", ("表格", "A table"), table),
    Scenario("history", ("/history", "/history"), history),
    Scenario("show", ("/show", "/show"), show),
    Scenario("export", ("/export", "/export"), export),
    Scenario("quiz", ("/quiz：全班先预测", "/quiz: the class predicts"), quiz, board=True),
    Scenario("local-model", ("本地小模型", "A small local model"), local_model),
    Scenario("stats", ("/stats：课程概览", "/stats: the course"), stats, course=True),
    Scenario("compare-runs", ("/compare 3 5：两条记录并排", "/compare 3 5: two stored runs"),
             compare_runs, board=True),
    Scenario("rerun", ("/rerun：再问一次", "/rerun: asked again"), rerun, board=True),
    Scenario("compare-models", ("/compare local qwen-plus：两个模型并排",
                                "/compare local qwen-plus: two models"), compare_models,
             board=True),
    Scenario("photo", ("拍照提问", "A photo of the exercise"), photo, board=True,
             board_top=True),
    Scenario("voice", ("语音提问", "A voice question"), voice, board=True, board_top=True),
)

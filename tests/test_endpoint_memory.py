"""What auto mode learns about an endpoint is one named memory (agent/model/endpoint_memory.py),
kept in the store: after a restart, a model known to write its calls as text is asked in
the text format from the first question, and an endpoint that refused a photo gets the
next one read by Glassbox, on both backends."""

from __future__ import annotations

from PIL import Image

from agent.model.endpoint_memory import EndpointMemory, endpoint_key
from testkit.botkit import ADMIN, ALICE, Add, people, running
from testkit.dbkit import Target
from testkit.fakes.model import FakeModel, Sight, image_urls, text_reply
from testkit.fakes.telegram import FakeTelegram
from testkit.photokit import png

CALL_AS_TEXT = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 2}}\n</tool_call>'


async def test_a_model_that_writes_calls_as_text_starts_in_text_after_a_restart(
        fake_telegram: FakeTelegram, db_target: Target) -> None:
    """Three runs from two chats teach it (tests/faults/test_auto_mode_learning.py has the
    threshold); the lesson survives a restart."""
    people(fake_telegram)
    with FakeModel() as model:
        async with running(fake_telegram, model, db_target, tools=[Add()]) as gb:
            for chat in (ALICE, ADMIN, ALICE):
                model.push(text_reply(CALL_AS_TEXT),
                           text_reply("Thought: I have it.\nFinal Answer: 2 + 2 = 4."))
                first = await gb.answer_to(chat, gb.tg.send(chat, chat, "What is 2+2?"))
                assert "This model writes its tool calls as text" in first.text
                assert "2 + 2 = 4." in first.text
        assert ["tools" in body for body in model.bodies] == [True, False] * 3

        model.push(text_reply("Thought: I have it.\nFinal Answer: 3 + 3 = 6."))
        async with running(fake_telegram, model, db_target, tools=[Add()]) as gb:
            asked = gb.tg.send(ALICE, ALICE, "And 3+3?")
            again = await gb.answer_to(ALICE, asked)
            key = endpoint_key(model.base_url, gb.services.runs.client.model)
            kept = await gb.services.store.endpoints.get(key)
        restarted = model.bodies[6]
        assert "tools" not in restarted and "stop" in restarted  # no native round wasted
        assert "Action: tool_name[input]" in restarted["messages"][0]["content"]
        assert "did not use function calling properly before" in again.text
        assert "3 + 3 = 6." in again.text and len(model.bodies) == 7
        assert kept == EndpointMemory(key, calls_as_text=True,
                                      since_probe={"calls_as_text": 1})


async def test_an_endpoint_that_taught_nothing_leaves_no_row(
        fake_telegram: FakeTelegram, db_target: Target) -> None:
    people(fake_telegram)
    with FakeModel() as model:
        model.push(text_reply("Hello!"))
        async with running(fake_telegram, model, db_target, tools=[Add()]) as gb:
            asked = gb.tg.send(ALICE, ALICE, "Hi")
            await gb.answer_to(ALICE, asked)
            rows = list(await gb.services.store.db.fetch("SELECT endpoint FROM endpoint_memory"))
    assert rows == []


def test_the_key_keeps_no_secret_and_a_newer_versions_keys_are_left_out() -> None:
    key = endpoint_key("https://user:pw@llm.example:8443/v1/?key=sk-1#x", "qwen")
    assert key == "https://llm.example:8443/v1 qwen"
    memory = EndpointMemory.restored(key, {
        "calls_as_text": True, "usage_option": False, "thinks_twice": True,
        "tools_rejected": "yes", "seen": {"tools_rejected": ["a", 3, "b"], "other": ["c"]},
        "since_probe": {"calls_as_text": 4, "tools_rejected": -1, "other": 2}})
    assert memory == EndpointMemory(key, calls_as_text=True, usage_option=False,
                                    seen={"tools_rejected": ["a", "b"]},
                                    since_probe={"calls_as_text": 4})
    assert memory.learned() == {"calls_as_text": True, "usage_option": False,
                                "seen": {"tools_rejected": ["a", "b"]},
                                "since_probe": {"calls_as_text": 4}}


async def test_an_endpoint_that_refused_a_photo_reads_the_next_by_ocr_after_a_restart(
        fake_telegram: FakeTelegram, db_target: Target) -> None:
    """One refusal teaches it (a model does not learn to see); kept in the store, so the
    restarted bot sends the next photo to its OCR without an image request."""
    people(fake_telegram)
    blank = png(Image.new("RGB", (320, 240), "white"))
    with FakeModel(sight=Sight.DASHSCOPE) as model:
        model.default = lambda body: text_reply("There is nothing written on it.")
        async with running(fake_telegram, model, db_target, llm_model="qwen3.7-max",
                           ocr_timeout_s=600) as gb:
            first = await gb.answer_to(ALICE, gb.tg.send_photo(ALICE, ALICE, blank),
                                       timeout=600)
        assert "qwen3.7-max takes no images" in first.text
        assert [bool(image_urls(body)) for body in model.bodies] == [True, False]
        async with running(fake_telegram, model, db_target, llm_model="qwen3.7-max",
                           ocr_timeout_s=600) as gb:
            again = await gb.answer_to(ALICE, gb.tg.send_photo(ALICE, ALICE, blank),
                                       timeout=600)
            key = endpoint_key(model.base_url, "qwen3.7-max")
            kept = await gb.services.store.endpoints.get(key)
    assert "📷 Read from the photo (Glassbox, OCR)" in again.text
    assert "takes no images" not in again.text
    assert [bool(image_urls(body)) for body in model.bodies] == [True, False, False]
    assert kept == EndpointMemory(key, takes_images=False)

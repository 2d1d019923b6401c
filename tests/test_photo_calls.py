"""Photos given to the model as images, through the real model client and the fake model
server over HTTP: a model that sees gets OpenAI content parts it can decode; a server that
refuses them in its own words (OpenAI, DashScope, llama.cpp) gets the same call again with
the text Glassbox read, and its endpoint is remembered as taking no images, but only when
the text was accepted."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from agent import ModelClient, RunFinished
from agent.events import Answer, Plan
from agent.loop import run_plain
from agent.model.endpoint_memory import EndpointMemory
from agent.model.model_errors import ModelError, ModelErrorKind
from agent.model.photo_calls import IMAGE_TOKENS, GivenPhotos
from agent.model.photo_route import PhotoReading, known_text_only, model_reads
from agent.settings import AgentSettings
from testkit.agentkit import agent_settings
from testkit.fakes.model import DashScope, FakeModel, Sight, error, sse, text_reply
from tests.test_loop import events_of, of, react


def jpeg(colour: str = "white") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), colour).save(out, format="JPEG")
    return out.getvalue()


class Reading:
    """What the bot does when the endpoint refuses the photos: here, the text it would have
    read (the OCR is tested with the bot); counts how often it was asked."""

    def __init__(self, text: str = "Q\n\n[Text read from the photo by OCR]\n3x + 7 = 25") -> None:
        self.text, self.refusals = text, []

    async def __call__(self, refusal: ModelError) -> str:
        self.refusals.append(refusal)
        return self.text


def user_content(body: dict) -> object:
    return body["messages"][-1]["content"]


async def test_a_model_that_sees_gets_the_photo_as_an_image_part(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings) -> None:
    photo = jpeg()
    reading = Reading()
    fake_model.push(sse(DashScope("qwen-vl-max").text("It says 3x + 7 = 25, so x = 6.")))
    events = await events_of(run_plain("Q", client=client, settings=settings,
                                       photos=GivenPhotos([photo], reading)))
    assert of(events, Answer)[0].text == "It says 3x + 7 = 25, so x = 6."
    text, image = user_content(fake_model.bodies[0])
    assert text == {"type": "text",
                    "text": "Q\n\n[The student sent a photo with the question; it follows]"}
    assert image["type"] == "image_url"
    assert image["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert fake_model.images == [photo]  # decoded by the server as sent
    assert reading.refusals == [] and client.memory.takes_images


@pytest.mark.parametrize("sight", [Sight.OPENAI, Sight.DASHSCOPE, Sight.LLAMACPP])
async def test_a_refusal_asks_again_with_the_text_read_and_is_remembered(
        sight: Sight, settings: AgentSettings) -> None:
    with FakeModel(sight=sight) as model:
        client = ModelClient(agent_settings(model.base_url, llm_model="local"))
        reading = Reading()
        model.push(text_reply("x = 6"))
        try:
            events = await events_of(run_plain("Q", client=client, settings=settings,
                                               photos=GivenPhotos([jpeg()], reading)))
        finally:
            await client.close()
    assert of(events, Answer)[0].text == "x = 6"
    assert events[-1].status == "done"  # type: ignore[attr-defined]
    refused, asked = model.bodies
    assert isinstance(user_content(refused), list)
    assert user_content(asked) == reading.text
    [why] = reading.refusals
    assert why.kind is ModelErrorKind.IMAGES_REFUSED
    assert not client.memory.takes_images
    assert "takes_images" in client.memory.learned()


async def test_the_run_s_later_calls_carry_the_text_without_asking_again(
        fake_model: FakeModel, settings: AgentSettings) -> None:
    """The plan call is refused; the first round goes as text at once."""
    fake_model.sight = Sight.DASHSCOPE
    client = ModelClient(settings)
    reading = Reading()
    fake_model.push(text_reply(json.dumps({"steps": [{"tool": "finish", "why": "solve it"}]})),
                    text_reply("x = 6"))
    try:
        events = await events_of(react("Q", client, settings, [], planner=True,
                                       photos=GivenPhotos([jpeg()], reading)))
    finally:
        await client.close()
    assert of(events, Plan) and of(events, Answer)[0].text == "x = 6"
    refused, plan, round_one = fake_model.bodies
    assert isinstance(user_content(refused), list)
    assert user_content(plan) == user_content(round_one) == reading.text
    assert len(reading.refusals) == 1


async def test_a_400_the_text_gets_too_is_no_refusal_of_the_photos(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings) -> None:
    """A 400 of a request with images is tried as text once; when the text is refused
    too, the run ends with that error and nothing is learned."""
    bad = {"error": {"message": "Model id: x has no provider supported",
                     "type": "invalid_request_error", "param": None, "code": None}}
    fake_model.push(error(bad, 400), error(bad, 400))
    events = await events_of(run_plain("Q", client=client, settings=settings,
                                       photos=GivenPhotos([jpeg()], Reading())))
    end = events[-1]
    assert isinstance(end, RunFinished)
    assert (end.status, end.error_kind) == ("error", "bad_request")
    assert client.memory.takes_images and not client.memory.learned()


async def test_when_only_the_model_may_read_the_refusal_ends_the_run(
        settings: AgentSettings) -> None:
    """PHOTO_READING=model: the bot's fallback raises the refusal; the run says why."""
    async def forced(refusal: ModelError) -> str:
        raise ModelError(ModelErrorKind.IMAGES_REFUSED) from None

    with FakeModel(sight=Sight.OPENAI) as model:
        client = ModelClient(agent_settings(model.base_url))
        try:
            events = await events_of(run_plain("Q", client=client, settings=settings,
                                               photos=GivenPhotos([jpeg()], forced)))
        finally:
            await client.close()
    end = events[-1]
    assert isinstance(end, RunFinished)
    assert end.error_kind == "images_refused"
    assert "PHOTO_READING=model" in end.reason
    assert len(model.bodies) == 1 and client.memory.takes_images


async def test_an_image_counts_as_image_tokens_where_the_server_sends_no_usage(
        fake_model: FakeModel, client: ModelClient, settings: AgentSettings) -> None:
    chunks = DashScope("qwen-vl-max").text("x = 6")[:-1]  # no usage chunk
    fake_model.push(sse(chunks))
    big = io.BytesIO()
    Image.effect_noise((640, 480), 60).convert("RGB").save(big, format="JPEG", quality=95)
    events = await events_of(run_plain("Q", client=client, settings=settings,
                                       photos=GivenPhotos([big.getvalue()], Reading())))
    usage = events[-1].usage  # type: ignore[attr-defined]
    assert usage.estimated
    assert IMAGE_TOKENS < usage.prompt_tokens < IMAGE_TOKENS + 200  # not the base64's length
    assert len(big.getvalue()) > 40_000


def test_known_text_only_models() -> None:
    for name in ("qwen-plus", "qwen-max-latest", "qwen3-max", "deepseek-chat",
                 "openai/gpt-3.5-turbo"):
        assert known_text_only(name), name
    for name in ("qwen-vl-max", "qwen2.5-vl-7b-instruct", "qwen3-vl-plus", "qwen3-omni-flash",
                 "gpt-4o-mini", "llava", "local"):
        assert not known_text_only(name), name


def test_who_reads_the_photos() -> None:
    fresh, refused = EndpointMemory("x"), EndpointMemory("x")
    refused.refused_images()
    assert model_reads(PhotoReading.AUTO, fresh, "qwen-vl-max")
    assert not model_reads(PhotoReading.AUTO, refused, "qwen-vl-max")
    assert not model_reads(PhotoReading.AUTO, fresh, "qwen-plus")
    assert model_reads(PhotoReading.MODEL, refused, "qwen-plus")
    assert not model_reads(PhotoReading.OCR, fresh, "qwen-vl-max")
    assert EndpointMemory.restored("x", refused.learned()).takes_images is False


async def test_what_glassbox_read_after_a_refusal_backs_the_answer_s_figures(
        settings: AgentSettings) -> None:
    """As when Glassbox read the photo first: a figure of the text read is no unbacked one."""
    with FakeModel(sight=Sight.DASHSCOPE) as model:
        client = ModelClient(agent_settings(model.base_url, llm_model="local"))
        model.push(text_reply("The total is ¥16.50."))
        reading = Reading("total?\n\n[Text read from the photo by OCR]\nTotal ¥16.50")
        try:
            events = await events_of(run_plain("total?", client=client, settings=settings,
                                               photos=GivenPhotos([jpeg()], reading)))
        finally:
            await client.close()
    [answer] = of(events, Answer)
    assert answer.text == "The total is ¥16.50." and answer.unfounded == ()

"""Named model endpoints as an operator writes them in `.env` (LLM_MODELS__<NAME>__…): read,
resolved by name (LLM_MODEL and LLM_ANSWER_MODEL may be names), each checked at start with a
line naming the bad setting, and their keys never in a log line or that line."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.model.model_clients import ModelClients
from agent.settings import AgentSettings, SettingsError, load_settings
from bot.telegram.app import redaction
from testkit.agentkit import TEST_KEY
from testkit.bot_process import bot_process
from testkit.botkit import ALICE, bot_settings, people
from testkit.fakes.model import FakeModel, text_reply
from testkit.fakes.telegram import FakeTelegram

ROOT = Path(__file__).resolve().parent.parent
CLOUD_KEY = "sk-cloud-0123456789abcdef"
ENV = f"""\
OPENAI_API_KEY={TEST_KEY}
OPENAI_BASE_URL=http://127.0.0.1:9/v1
LLM_MODEL=local
LLM_ANSWER_MODEL=Cloud
LLM_MODELS__LOCAL__BASE_URL=http://127.0.0.1:8081/v1
LLM_MODELS__LOCAL__MODEL=qwen2.5-coder-1.5b
LLM_MODELS__CLOUD__BASE_URL=https://dashscope.aliyuncs.com/compatible-mode/v1
LLM_MODELS__CLOUD__MODEL=qwen-plus
LLM_MODELS__CLOUD__API_KEY={CLOUD_KEY}
LLM_MODELS__TINY__BASE_URL=http://127.0.0.1:8082/v1
"""


def test_named_models_are_read_from_a_dotenv_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(ENV, encoding="utf-8")
    settings = load_settings(AgentSettings, _env_file=tmp_path / ".env")
    assert (settings.default_model, settings.answer_model) == ("local", "cloud")
    points = settings.endpoints()
    assert list(points) == ["local", "cloud", "tiny"]  # LLM_MODEL is a name: not added again
    local, cloud, tiny = points.values()
    assert (local.base_url, local.model) == ("http://127.0.0.1:8081/v1", "qwen2.5-coder-1.5b")
    assert local.api_key.get_secret_value() == TEST_KEY  # none given: OPENAI_API_KEY
    assert (cloud.model, cloud.api_key.get_secret_value()) == ("qwen-plus", CLOUD_KEY)
    assert tiny.model == "tiny"  # no MODEL: the server knows it by its name
    clients = ModelClients(settings)
    assert clients.names == ["local", "cloud", "tiny"]
    assert clients.default.name == "local" and clients.default.model == "qwen2.5-coder-1.5b"
    assert clients.answer is not None and clients.answer.name == "cloud"
    assert clients.get("CLOUD") is clients.answer and clients.get("gpt-9") is None
    assert CLOUD_KEY not in repr(settings)


def test_without_names_llm_model_is_the_one_model_as_before(tmp_path: Path) -> None:
    settings = AgentSettings(_env_file=None, openai_api_key=TEST_KEY,  # type: ignore[call-arg]
                             llm_model="qwen-plus", llm_answer_model="qwen-max",
                             llm_answer_base_url="http://127.0.0.1:7/v1")
    points = settings.endpoints()
    assert list(points) == ["qwen-plus", "qwen-max"]
    assert points["qwen-max"].base_url == "http://127.0.0.1:7/v1"
    assert points["qwen-plus"].base_url == settings.openai_base_url


@pytest.mark.parametrize(("line", "named"), [
    ("LLM_MODELS__LOCAL__BASE_URL=ftp://127.0.0.1/v1",
     "invalid setting LLM_MODELS__LOCAL__BASE_URL: Value error, expected an http(s) URL"),
    ("LLM_MODELS__LOCAL__APIKEY=sk-typo", "invalid setting LLM_MODELS__LOCAL__APIKEY: Extra "),
    ('LLM_MODELS={"my model": {"model": "m"}}', "invalid setting LLM_MODELS: Value error, "
                                                "the name 'my model' is not 1 to 32 of"),
])
def test_a_bad_named_model_is_named_in_one_line(tmp_path: Path, line: str, named: str) -> None:
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={TEST_KEY}\n{line}\n", encoding="utf-8")
    with pytest.raises(SettingsError) as raised:
        load_settings(AgentSettings, _env_file=tmp_path / ".env")
    assert str(raised.value).startswith(named), str(raised.value)
    assert "sk-typo" not in str(raised.value)


def refused_start(folder: Path, dotenv: str) -> str:
    """`python -m bot` in `folder` with `dotenv` as its .env and nothing else set, which must
    end its start (exit code 2): what it wrote to stderr."""
    (folder / ".env").write_text(dotenv, encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    return done.stderr


def test_the_bot_does_not_start_with_a_bad_named_model(tmp_path: Path) -> None:
    said = refused_start(tmp_path, "TELEGRAM_BOT_TOKEN=1:abc\n"
                         + ENV.replace("http://127.0.0.1:8082/v1", "127.0.0.1:8082"))
    assert said.strip() == (
        "Glassbox cannot start: invalid setting LLM_MODELS__TINY__BASE_URL: Value error, "
        "expected an http(s) URL such as http://127.0.0.1:8080/v1.")
    assert CLOUD_KEY not in said


async def test_the_bot_starts_without_openai_api_key_when_its_models_have_their_own(
        tmp_path: Path) -> None:
    """LLM_MODEL names a model with a key of its own and no other model needs one: no
    OPENAI_API_KEY is asked for, and the model is called with its own key."""
    with FakeTelegram() as tg, FakeModel() as model:
        people(tg)
        with bot_process(tg, model, tmp_path, without=("OPENAI_API_KEY",), LLM_MODEL="Cloud",
                         LLM_MODELS__CLOUD__BASE_URL=model.base_url,
                         LLM_MODELS__CLOUD__API_KEY=CLOUD_KEY) as bot:
            await bot.polling()
            model.push(text_reply("Answered on the cloud's own key."))
            asked = tg.send(ALICE, ALICE, "/ask which key?")
            await tg.wait(lambda: any(m.reply_to == asked and "cloud's own key" in m.text
                                      and not m.buttons for m in tg.bot_messages(ALICE)), 30)
            assert bot.terminate() == 0
        assert model.keys and set(model.keys) == {CLOUD_KEY}
        assert CLOUD_KEY not in bot.output()


@pytest.mark.parametrize(("lines", "missing"), [
    ("LLM_MODEL=cloud\nLLM_MODELS__LOCAL__BASE_URL=http://127.0.0.1:8081/v1\n",
     "LLM_MODELS__LOCAL__API_KEY (or OPENAI_API_KEY)"),
    ("LLM_MODEL=qwen-max\n", "OPENAI_API_KEY (or DASHSCOPE_API_KEY)"),
    ("LLM_MODEL=cloud\nLLM_ANSWER_MODEL=qwen-max\nLLM_ANSWER_BASE_URL=http://127.0.0.1:7/v1\n",
     "LLM_ANSWER_API_KEY (or OPENAI_API_KEY)"),
], ids=["a-named-model", "the-default-model", "the-answer-model"])
def test_without_openai_api_key_the_start_names_the_key_a_model_lacks(
        tmp_path: Path, lines: str, missing: str) -> None:
    """Without OPENAI_API_KEY, a model that has no key of its own stops the start with one
    line naming the setting that would give it one (and only that)."""
    said = refused_start(
        tmp_path, f"TELEGRAM_BOT_TOKEN=1:abc\nLLM_MODELS__CLOUD__BASE_URL=http://127.0.0.1:9/v1\n"
                  f"LLM_MODELS__CLOUD__API_KEY={CLOUD_KEY}\n{lines}")
    assert said.strip() == f"Glassbox cannot start: missing setting {missing}."
    assert CLOUD_KEY not in said


def test_every_named_key_is_blanked_in_the_log(fake_telegram: FakeTelegram,
                                              fake_model: FakeModel, tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    settings = bot_settings(fake_telegram, fake_model, tmp_path / "g.sqlite3",
                            llm_models={"cloud": {"model": "qwen-plus", "api_key": CLOUD_KEY}})
    caplog.handler.addFilter(redaction(settings))
    logging.getLogger("glassbox.test").warning("calling with %s", CLOUD_KEY)
    assert CLOUD_KEY not in caplog.text and "[secret]" in caplog.text

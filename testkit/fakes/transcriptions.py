"""A fake OpenAI-compatible transcription server (`POST /v1/audio/transcriptions`, a
multipart form: `file`, `model`, `response_format`), answering as OpenAI's API does with
verbose_json (tests/wire/openai/audio_transcription_verbose_json.json): the text it is told
to have heard, in the language it is told, the audio's duration as given. 401 without the
expected key."""

from __future__ import annotations

import json
from typing import Any

from testkit.fakes.server import FakeServer, Reply, Request, wire

KEY = "sk-transcribe-test-key"


class FakeTranscriptions(FakeServer):
    def __init__(self, text: str, language: str = "english") -> None:
        super().__init__(self._handle)
        self.text, self.language = text, language
        self.heard: list[dict[str, Any]] = []
        """Each request's form fields and the uploaded file's name and size."""

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def _handle(self, request: Request) -> Reply:
        if request.path != "/v1/audio/transcriptions" or request.method != "POST":
            return Reply.json({"error": {"message": "Not found", "type": "invalid_request_error",
                                         "param": None, "code": None}}, 404)
        if request.headers.get("authorization") != f"Bearer {KEY}":
            return Reply.json(json.loads(wire("openai/error_401_invalid_api_key.json")), 401)
        form, files = request.form(), request.files()
        name, data = files["file"]
        self.heard.append({**{k: v for k, v in form.items() if k != "file"},
                           "file_name": name, "bytes": len(data)})
        body = json.loads(wire("openai/audio_transcription_verbose_json.json"))
        body.update(text=self.text, language=self.language)
        body["segments"][0]["text"] = " " + self.text
        return Reply.json(body)

"""The HTTP API's OpenAPI schema (served at /openapi.json), its request body from the same
pydantic model that checks it."""

from __future__ import annotations

from typing import Any

from bot.web.bodies import ChatBody

_ERROR = {"type": "object", "properties": {"error": {"type": "object", "properties": {
    "status": {"type": "integer"}, "code": {"type": "string"},
    "message": {"type": "string"}}}}}
_STEP = {"type": "object", "properties": {
    "round": {"type": "integer"}, "thought": {"type": ["string", "null"]},
    "tool": {"type": ["string", "null"]}, "input": {},
    "output": {"type": ["string", "null"]}, "ok": {"type": ["boolean", "null"]},
    "durationMs": {"type": ["integer", "null"]}}}
_READ = {"type": "object", "description": (
    "What was read or heard from what the question came with, before round 1, as the chat "
    "shows it: by glassbox (its OCR, its transcription: the text, each segment's confidence, "
    "the unsure ones marked) or by the model (a photo given to it as an image: no text)"),
    "properties": {
        "kind": {"enum": ["photo", "voice"]}, "by": {"enum": ["glassbox", "model"]},
        "engine": {"type": "string"}, "number": {"type": "integer"},
        "of": {"type": "integer"}, "heading": {"type": "string"},
        "text": {"type": ["string", "null"]}, "note": {"type": ["string", "null"]},
        "segments": {"type": "array"}}}
_RUN = {"type": "object", "properties": {
    "sessionId": {"type": "string"}, "runId": {"type": "integer"},
    "question": {"type": "string"},
    "mode": {"enum": ["react", "plain", "compare", "runs", "models"],
             "description": "runs: two stored runs of the token's compared (body.runs); "
                            "models: two named models on one question (body.models)"},
    "answer": {"type": "string"}, "status": {"type": "string"},
    "durationMs": {"type": ["integer", "null"]}, "model": {"type": "string"},
    "usage": {"type": "object", "properties": {
        "promptTokens": {"type": "integer"}, "completionTokens": {"type": "integer"},
        "totalTokens": {"type": "integer"}, "estimated": {"type": "boolean"}}},
    "plan": {"type": ["array", "null"]},
    "reads": {"type": "array", "items": {"$ref": "#/components/schemas/Read"}},
    "steps": {"type": ["array", "null"], "items": {"$ref": "#/components/schemas/Step"}},
    "answers": {"type": "object",
                "description": "compare: plain and react; runs: left and right; models: "
                               "each model's name"},
    "difference": {"type": "object", "description": "compare only: judgement and figures"},
    "sides": {"type": "array", "description": "runs: each side's run (n, asker, when); "
                                              "models: each side's model, status, error "
                                              "and (with showSteps) steps"},
    "firstDifference": {"type": ["object", "null"], "description": (
        "runs only: the round where the chains first chose differently, and each side's "
        "move there; null when they made the same moves")},
}}


def _errors(*statuses: int) -> dict[str, Any]:
    why = {400: "bad body", 401: "no or a wrong token", 404: "not found, or no API",
           413: "too long, or too many or too large images", 429: "too soon (see Retry-After)",
           503: "model unavailable"}
    return {str(s): {"description": why[s], "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Error"}}}} for s in statuses}


_JSON_BODY = {"required": True, "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/ChatBody"}}}}
_RUN_ANSWER = {"description": "the run", "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/Run"}}}}

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Glassbox HTTP API", "version": "1",
             "description": "Ask Glassbox over HTTP: the answer, and the ReAct steps."},
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        "schemas": {"ChatBody": ChatBody.model_json_schema(), "Run": _RUN, "Step": _STEP,
                    "Read": _READ, "Error": _ERROR},
    },
    "security": [{"bearer": []}],
    "paths": {
        "/api/v1/chat": {"post": {
            "summary": "Run a question to its end", "requestBody": _JSON_BODY,
            "responses": {"200": _RUN_ANSWER, **_errors(400, 401, 404, 413, 429, 503)}}},
        "/api/v1/chat/stream": {"post": {
            "summary": "The same run as server-sent events, one per step, then run_finished",
            "requestBody": _JSON_BODY,
            "responses": {"200": {"description": "text/event-stream"},
                          **_errors(400, 401, 404, 413, 429)}}},
        "/api/v1/runs/{runId}": {"get": {
            "summary": "A stored run of this token, with its steps",
            "parameters": [{"name": "runId", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": _RUN_ANSWER, **_errors(401, 404)}}},
        "/api/v1/runs": {"get": {
            "summary": "This token's runs, newest first (one session's with sessionId)",
            "parameters": [{"name": "sessionId", "in": "query", "schema": {"type": "string"}},
                           {"name": "page", "in": "query", "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "a page of runs"}, **_errors(401, 404)}}},
        "/api/v1/stats": {"get": {
            "summary": "The course's figures of this token's runs over a period (default: "
                       "the last 30 days; at most 366)",
            "parameters": [{"name": name, "in": "query",
                            "schema": {"type": "string", "format": "date"}}
                           for name in ("from", "to")],
            "responses": {"200": {"description": "runs per day and mode, tools and their "
                                                 "failures, endings, /compare, /quiz, tokens"},
                          **_errors(400, 401, 404)}}},
    },
}

#!/usr/bin/env python3
"""A scripted model server for driving real coding agents in tests.

Speaks enough of three wire protocols for an agent to call its shell tool
with the commands of a script, one per turn, and then finish with a text
answer:

  Anthropic Messages   POST .../v1/messages (SSE when "stream": true)
  OpenAI Responses     POST .../responses (SSE when "stream": true)
  Gemini               POST .../models/M:streamGenerateContent?alt=sse,
                       .../models/M:generateContent, :countTokens

The server keeps no conversation state: the turn is the number of tool
results the request carries (every agent sends the whole conversation each
time), so retries and side requests (titles, classifiers, quota probes)
cannot move the script on. A request with no shell tool is a side request
and gets a short text (or JSON, when the request asks for JSON).

Script (JSON): {"steps": [{"command": "...", "timeout_ms": N?,
                           "background": true?}, ...],
                "final": "text of the last answer"}
("background": the agent's own background option: Claude Code's
run_in_background, Gemini CLI's is_background; Codex has none.)

Log (JSON lines, one per request): method, path, the body, the agent, the
turn, what was answered, and the tool results found in the request (the
last one is the result of the previous step). Requests the server does
not know are logged with "unhandled": true and answered 404.

Usage: modelserver.py SCRIPT LOG PORTFILE  (listens on 127.0.0.1, port 0;
writes the port to PORTFILE once listening; stops on SIGTERM).
Python standard library only.
"""

import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

SHELL_TOOLS = {
    "anthropic": ["Bash"],
    # Codex offers one of these, depending on version and model family.
    "openai": ["shell_command", "shell", "exec_command", "local_shell"],
    "gemini": ["run_shell_command"],
}


class State:
    def __init__(self, script, log):
        self.script = script
        self.log = open(log, "a", encoding="utf-8")
        self.lock = threading.Lock()
        self.serial = 0

    def next_id(self):
        with self.lock:
            self.serial += 1
            return self.serial

    def record(self, entry):
        with self.lock:
            self.log.write(json.dumps(entry, ensure_ascii=False) + "\n")
            self.log.flush()


def sse(events):
    """events: list of (name or None, obj) -> bytes of an SSE stream."""
    out = []
    for name, obj in events:
        if name:
            out.append("event: %s\n" % name)
        out.append("data: %s\n\n" % json.dumps(obj))
    return "".join(out).encode()


def text_of(content):
    """The text of an Anthropic/OpenAI/Gemini content value (str or parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        for k in ("text", "output", "content", "error"):
            if content.get(k) is not None:
                return text_of(content[k])
        return json.dumps(content)
    if isinstance(content, list):
        return "".join(text_of(c) for c in content)
    return str(content)


# ---- the script ------------------------------------------------------------

def step_for(state, results):
    """The step to answer with after len(results) tool results, or None."""
    steps = state.script.get("steps", [])
    n = len(results)
    return steps[n] if n < len(steps) else None


def final_text(state):
    return state.script.get("final", "scripted: done")


# ---- Anthropic Messages ------------------------------------------------------

def anthropic_results(body):
    res = []
    for m in body.get("messages", []):
        if isinstance(m.get("content"), list):
            for b in m["content"]:
                if b.get("type") == "tool_result":
                    res.append({"id": b.get("tool_use_id"),
                                "is_error": b.get("is_error", False),
                                "text": text_of(b.get("content"))})
    return res


def anthropic(state, body):
    tools = [t.get("name") for t in body.get("tools", []) or []]
    model = body.get("model", "claude")
    results = anthropic_results(body)
    shell = next((t for t in SHELL_TOOLS["anthropic"] if t in tools), None)
    step = step_for(state, results) if shell else None
    mid = "msg_%d" % state.next_id()
    if step is not None:
        inp = {"command": step["command"],
               "description": step.get("description", "scripted step")}
        if "timeout_ms" in step:
            inp["timeout"] = step["timeout_ms"]
        if step.get("background"):
            inp["run_in_background"] = True
        block = {"type": "tool_use", "id": "toolu_%d_%d" % (len(results),
                 state.next_id()), "name": shell, "input": inp}
        stop = "tool_use"
        answer = {"tool": shell, "input": inp}
    else:
        block = {"type": "text", "text": final_text(state) if shell
                 else "scripted"}
        stop = "end_turn"
        answer = {"text": block["text"]}
    usage = {"input_tokens": 10, "output_tokens": 5,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    msg = {"id": mid, "type": "message", "role": "assistant", "model": model,
           "content": [block], "stop_reason": stop, "stop_sequence": None,
           "usage": usage}
    if not body.get("stream"):
        return 200, "application/json", json.dumps(msg).encode(), results, \
            answer
    start = dict(msg, content=[], stop_reason=None)
    if block["type"] == "tool_use":
        b0 = dict(block, input={})
        delta = {"type": "input_json_delta",
                 "partial_json": json.dumps(block["input"])}
    else:
        b0 = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    ev = [("message_start", {"type": "message_start", "message": start}),
          ("content_block_start", {"type": "content_block_start",
                                   "index": 0, "content_block": b0}),
          ("content_block_delta", {"type": "content_block_delta",
                                   "index": 0, "delta": delta}),
          ("content_block_stop", {"type": "content_block_stop", "index": 0}),
          ("message_delta", {"type": "message_delta",
                             "delta": {"stop_reason": stop,
                                       "stop_sequence": None},
                             "usage": {"output_tokens": 5}}),
          ("message_stop", {"type": "message_stop"})]
    return 200, "text/event-stream", sse(ev), results, answer


# ---- OpenAI Responses --------------------------------------------------------

def openai_results(body):
    res = []
    inp = body.get("input")
    for it in inp if isinstance(inp, list) else []:
        t = it.get("type", "")
        if t.endswith("_call_output"):
            res.append({"id": it.get("call_id"), "type": t,
                        "text": text_of(it.get("output"))})
    return res


def openai_args(tool, step):
    cmd = step["command"]
    if tool == "shell":
        a = {"command": ["bash", "-lc", cmd]}
    elif tool == "exec_command":
        a = {"cmd": cmd}
        # Unified exec has no timeout: past yield_time_ms the call returns
        # a session id and the process goes on.
        if "timeout_ms" in step:
            a["yield_time_ms"] = step["timeout_ms"]
        return a
    else:
        a = {"command": cmd}
    if "timeout_ms" in step:
        a["timeout_ms"] = step["timeout_ms"]
    return a


def openai(state, body):
    tools = []
    for t in body.get("tools", []) or []:
        tools.append(t.get("name") or t.get("type"))
    results = openai_results(body)
    shell = next((t for t in SHELL_TOOLS["openai"] if t in tools), None)
    step = step_for(state, results) if shell else None
    n = state.next_id()
    if step is not None:
        args = openai_args(shell, step)
        if shell == "local_shell":
            item = {"type": "local_shell_call", "id": "lsh_%d" % n,
                    "call_id": "call_%d" % n, "status": "completed",
                    "action": {"type": "exec",
                               "command": ["bash", "-lc", step["command"]]}}
        else:
            item = {"type": "function_call", "id": "fc_%d" % n,
                    "call_id": "call_%d" % n, "name": shell,
                    "arguments": json.dumps(args), "status": "completed"}
        answer = {"tool": shell, "input": args}
    else:
        txt = final_text(state) if shell else "scripted"
        item = {"type": "message", "id": "msg_%d" % n, "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": txt,
                             "annotations": []}]}
        answer = {"text": txt}
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
             "input_tokens_details": {"cached_tokens": 0},
             "output_tokens_details": {"reasoning_tokens": 0}}
    resp = {"id": "resp_%d" % n, "object": "response", "created_at": 0,
            "status": "completed", "model": body.get("model", "gpt"),
            "output": [item], "usage": usage}
    if not body.get("stream"):
        return 200, "application/json", json.dumps(resp).encode(), results, \
            answer
    created = dict(resp, status="in_progress", output=[])
    ev = [("response.created", {"type": "response.created",
                                "response": created}),
          ("response.output_item.added", {"type": "response.output_item.added",
                                          "output_index": 0, "item": item}),
          ("response.output_item.done", {"type": "response.output_item.done",
                                         "output_index": 0, "item": item}),
          ("response.completed", {"type": "response.completed",
                                  "response": resp})]
    return 200, "text/event-stream", sse(ev), results, answer


# ---- Gemini ------------------------------------------------------------------

def gemini_results(body):
    res = []
    for c in body.get("contents", []) or []:
        for p in c.get("parts", []) or []:
            fr = p.get("functionResponse")
            if fr:
                res.append({"id": fr.get("id"), "name": fr.get("name"),
                            "text": text_of(fr.get("response"))})
    return res


def gemini_tools(body):
    names = []
    for t in body.get("tools", []) or []:
        for f in t.get("functionDeclarations", []) or []:
            names.append(f.get("name"))
    return names


KNOWN_JSON = {"next_speaker": "user", "model_choice": "flash",
              "complexity_score": 10}


def fill_schema(schema):
    """A value that fits a JSON schema (enough for the CLIs' side calls)."""
    t = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if t == "object":
        out = {}
        for k, sub in (schema.get("properties") or {}).items():
            out[k] = KNOWN_JSON.get(k, fill_schema(sub or {}))
        return out
    if t in ("number", "integer"):
        return 10
    if t == "boolean":
        return False
    if t == "array":
        return []
    return "scripted"


def gemini_json(body):
    """A side request that wants JSON (next-speaker check, model router)."""
    cfg = body.get("generationConfig", {}) or {}
    schema = cfg.get("responseJsonSchema") or cfg.get("responseSchema")
    if schema:
        return json.dumps(fill_schema(schema))
    if cfg.get("responseMimeType") == "application/json":
        return json.dumps(dict(KNOWN_JSON, reasoning="scripted"))
    return None


def gemini(state, body, stream):
    tools = gemini_tools(body)
    results = gemini_results(body)
    shell = next((t for t in SHELL_TOOLS["gemini"] if t in tools), None)
    step = step_for(state, results) if shell else None
    if step is not None:
        args = {"command": step["command"],
                "description": step.get("description", "scripted step")}
        if step.get("background"):
            args["is_background"] = True
        part = {"functionCall": {"name": shell, "args": args}}
        answer = {"tool": shell, "input": args}
    else:
        txt = final_text(state) if shell else (gemini_json(body) or
                                               "scripted")
        part = {"text": txt}
        answer = {"text": txt}
    resp = {"candidates": [{"content": {"role": "model", "parts": [part]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10,
                              "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": "scripted"}
    if stream:
        return 200, "text/event-stream", sse([(None, resp)]), results, answer
    return 200, "application/json", json.dumps(resp).encode(), results, answer


# ---- HTTP --------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "scripted-model/1"

    def log_message(self, fmt, *args):  # quiet: the JSON log is the record
        pass

    def reply(self, code, ctype, data):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def route(self, body):
        path = urlsplit(self.path).path
        if self.command != "POST":
            return None
        if path.endswith("/messages/count_tokens"):
            return (200, "application/json", b'{"input_tokens": 10}', [],
                    {"count_tokens": True})
        if path.endswith("/messages"):
            return anthropic(STATE, body)
        if path.endswith("/responses"):
            return openai(STATE, body)
        if ":streamGenerateContent" in path:
            return gemini(STATE, body, True)
        if ":generateContent" in path:
            return gemini(STATE, body, False)
        if ":countTokens" in path:
            return (200, "application/json", b'{"totalTokens": 10}', [],
                    {"count_tokens": True})
        return None

    def handle_any(self):
        t_recv = time.time()
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        hdrs = {k.lower(): v for k, v in self.headers.items()
                if k.lower() in ("user-agent", "anthropic-version",
                                 "anthropic-beta", "x-goog-api-client")}
        auth = {k.lower(): v for k, v in self.headers.items()
                if k.lower() in ("authorization", "x-api-key",
                                 "x-goog-api-key")}
        entry = {"method": self.command, "path": self.path, "headers": hdrs,
                 "auth": auth, "body": body}
        try:
            r = self.route(body)
        except Exception as e:  # a bug here must show in the log
            entry["error"] = repr(e)
            r = None
        if r is None:
            entry["unhandled"] = True
            STATE.record(entry)
            self.reply(404, "application/json",
                       b'{"error": {"message": "not scripted"}}')
            return
        code, ctype, data, results, answer = r
        entry.update(turn=len(results), results=results, answer=answer,
                     t_recv=t_recv)
        self.reply(code, ctype, data)
        entry["t_sent"] = time.time()
        STATE.record(entry)

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = handle_any


STATE = None


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client closing its keep-alive connection is not news


def main():
    global STATE
    script, log, portfile = sys.argv[1:4]
    with open(script, encoding="utf-8") as f:
        STATE = State(json.load(f), log)
    srv = Server(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *a: threading.Thread(
        target=srv.shutdown).start())
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(portfile + ".tmp", portfile)
    srv.serve_forever()


if __name__ == "__main__":
    main()

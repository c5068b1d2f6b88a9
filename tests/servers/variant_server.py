"""The reference fixture with protocol variants, for the runner's protocol tests (stdlib only).

Each ``--mode`` changes one thing about how the fixture speaks; everything else is the
fixture's own behaviour (four tools, both eras, stdio or ``--http PORT``).

    mrtr-once         2026-07-28: search_text first answers input_required with a requestState
                      only, and the document once that exact state is echoed
    mrtr-never        2026-07-28: search_text answers input_required every time (a new state each)
    mrtr-ask          2026-07-28: search_text answers input_required with an elicitation request
    mrtr-bare         2026-07-28: search_text answers input_required with neither inputRequests
                      nor requestState, then the document
    no-discover       2026-07-28 is served, but server/discover is not (-32601)
    paged-resources   resources/list has two pages; the link's resource is on the second
    array-structured  2026-07-28: search_structured's outputSchema is an array and its
                      structuredContent the hits array (2025-11-25 keeps the object)
    strict-cursor     tools/list refuses a cursor it never handed out with -32602
    unknown-result    an unknown method gets an empty result instead of an error
    unknown-code      an unknown method gets error -32600 instead of -32601
"""

from __future__ import annotations

import argparse
import copy
import sys

from mcp_accept.fixture import (INVALID_PARAMS, INVALID_REQUEST, LINK_URI, METHOD_NOT_FOUND, MIME_JSON, Fixture, RpcError, compact, serve_http, serve_stdio)

MODES = ("mrtr-once", "mrtr-never", "mrtr-ask", "mrtr-bare", "no-discover", "paged-resources", "array-structured",
         "strict-cursor", "unknown-result", "unknown-code")
STATE = "opaque state: echo me exactly"
PAGE_TWO = ""  # an empty string is a cursor like any other (pagination.mdx)


class Variant(Fixture):
    def __init__(self, modes, **kwargs):
        super().__init__(**kwargs)
        self.modes = frozenset(modes)
        self.rounds = 0

    def _modern(self, msg_id, method, params):
        if method == "server/discover" and "no-discover" in self.modes:
            raise RpcError(METHOD_NOT_FOUND, "Method not found: server/discover", None, 404)
        return super()._modern(msg_id, method, params)

    def _common(self, method, params, modern):
        if modern and method == "tools/call" and params.get("name") == "search_text":
            asked = self._input_required(params)
            if asked is not None:
                return asked, None
        if method == "tools/list" and "strict-cursor" in self.modes and "cursor" in params:
            raise RpcError(INVALID_PARAMS, "Invalid cursor")
        if method == "resources/list" and "paged-resources" in self.modes:
            return self._resource_page(params.get("cursor", None)), None
        try:
            result, action = super()._common(method, params, modern)
        except RpcError as exc:
            if exc.code == METHOD_NOT_FOUND and "unknown-result" in self.modes:
                return {}, None
            if exc.code == METHOD_NOT_FOUND and "unknown-code" in self.modes:
                raise RpcError(INVALID_REQUEST, "No such method", None, exc.status)
            raise
        if modern and "array-structured" in self.modes:
            result = self._as_array(method, params, result)
        return result, action

    def _input_required(self, params):
        state = params.get("requestState")
        if "mrtr-once" in self.modes and state != STATE:
            return {"resultType": "input_required", "requestState": STATE}
        if "mrtr-never" in self.modes:
            self.rounds += 1
            return {"resultType": "input_required", "requestState": "round %d" % self.rounds}
        if "mrtr-bare" in self.modes and not self.rounds:
            self.rounds += 1
            return {"resultType": "input_required"}
        if "mrtr-ask" in self.modes:
            return {"resultType": "input_required", "inputRequests": {"login": {
                "method": "elicitation/create",
                "params": {"mode": "form", "message": "Your name?",
                           "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}}
        return None

    def _resource_page(self, cursor):
        if cursor is None:
            other = {"uri": "search://results/other", "name": "other.json", "mimeType": MIME_JSON}
            return {"resources": [other], "nextCursor": PAGE_TWO}
        if cursor == PAGE_TWO:
            return {"resources": [{"uri": LINK_URI, "name": "search-demo-v1.json", "mimeType": MIME_JSON}]}
        raise RpcError(INVALID_PARAMS, "Invalid cursor")

    @staticmethod
    def _as_array(method, params, result):
        if method == "tools/list":
            for tool in result["tools"]:
                if tool["name"] == "search_structured":
                    tool["outputSchema"] = {"type": "array", "items": copy.deepcopy(
                        tool["outputSchema"]["properties"]["hits"]["items"])}
        if method == "tools/call" and params.get("name") == "search_structured":
            hits = result["structuredContent"]["hits"]
            result = {"content": [{"type": "text", "text": compact(hits)}], "structuredContent": hits}
        return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="variant_server.py")
    parser.add_argument("--mode", action="append", default=[], choices=MODES)
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--protocol", default="auto")
    args = parser.parse_args(argv)
    fixture = Variant(args.mode, protocol=args.protocol)
    if args.http is not None:
        return serve_http(fixture, "127.0.0.1", args.http, None, None)
    return serve_stdio(fixture)


if __name__ == "__main__":
    sys.exit(main())

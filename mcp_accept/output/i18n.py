"""Reasons in Japanese: a catalog of the runner's fixed reason texts.

A row's reason is built from parts joined by ``"; "``; a part may start with
``"<layer> [<rule>]: "``. Each part is matched against the catalog, whose English
patterns hold placeholders (``{tool}``, ``{n}`` ...); the Japanese template puts the
same values back. What a server supplied (a tool name, an error message, a JSON path)
is carried over as it is, never translated; a part no pattern matches stays in English,
so a reason is never lost, only partly translated. A wording changed in the code simply
stops matching until its entry here is updated (tests/test_output.py shows which).
"""

from __future__ import annotations

import functools
import re

from mcp_accept.protocol import MODERN

LAYERS_JA = {"wire": "wire", "type": "型", "meaning": "意味", "sdk": "SDK"}

# (English pattern, Japanese template). Placeholders match lazily, so order longer, more
# specific patterns first. Numbers and units read naturally: 「、」「：」, 「版」 for a version.
CATALOG: list[tuple[str, str]] = [
    # the run as a whole
    ("see run: the server could not be started", "実行全体を参照：サーバーを起動できなかった"),
    ("see run: the server could not be spoken to", "実行全体を参照：サーバーと通信できなかった"),
    ("interrupted while the server started", "サーバーの起動中に中断された"),
    ("interrupted while judging", "判定中に中断された"),
    ("interrupted", "中断された"),
    # W01
    ("{n} checks over {m} messages valid against {version}",
     "{m}件のメッセージに対する{n}件の検査がすべて{version}版に適合"),
    ("no protocol violations on the wire", "通信上のプロトコル違反なし"),
    ("{n} resource URIs are RFC 3986 URIs, and every blob is base64",
     "resourceのURI {n}件はRFC 3986に適合し、blobはすべてbase64"),
    ("no resource, link or contents item was received", "resource・リンク・contentsの要素は受信されなかった"),
    ("{n} items: every URI is an RFC 3986 URI, and every blob and image or audio data is base64",
     "{n}件の要素：URIはすべてRFC 3986に適合し、blobと画像・音声のdataはすべてbase64"),
    ("no resource, link, contents, image or audio item was received",
     "resource・リンク・contents・画像・音声の要素は受信されなかった"),
    ("{n} _meta keys, each a valid key name", "_metaのキー{n}件はすべて有効なキー名"),
    ("the server sent no _meta key", "サーバーは_metaのキーを送らなかった"),
    ("{n} error answer(s), none with a code " + MODERN + " forbids",
     "エラー応答{n}件のいずれも" + MODERN + "版が禁じるコードではない"),
    ("{version} reserves no error code range (" + MODERN + " does)",
     "{version}版には予約されたエラーコードの範囲が無い（" + MODERN + "版にはある）"),
    # W01: the session as a whole
    ("{n} progress notification(s), each for a token of a request in flight",
     "進捗通知{n}件はすべて処理中のリクエストのトークンに対するもの"),
    ("no progress notification was received", "進捗通知は受信されなかった"),
    ("{n} log message(s), each one the version allows", "ログメッセージ{n}件はすべてこの版で許されるもの"),
    ("no log message was received", "ログメッセージは受信されなかった"),
    (MODERN + " negotiates no session capabilities ({n} request(s) from the server)",
     MODERN + "版はセッションの機能を取り決めない（サーバーからのリクエスト{n}件）"),
    ("{n} request(s) from the server, none for an undeclared client capability",
     "サーバーからのリクエスト{n}件のいずれもクライアントが宣言していない機能を使わない"),
    ("the server sent no request", "サーバーはリクエストを送らなかった"),
    ("{n} cancellation(s), each of a request in flight", "取消し{n}件はすべて処理中のリクエストに対するもの"),
    ("the server cancelled nothing", "サーバーは何も取り消さなかった"),
    ("every feature served was declared: {features}", "提供された機能はすべて宣言済み：{features}"),
    ("no capability declaration was recorded, so none is held against what the server served",
     "機能の宣言が記録されていないため、提供されたものを宣言と照らし合わせていない"),
    ("#{seq} received {what} ({version}): {detail}", "#{seq} 受信した{what}（{version}版）：{detail}"),
    ("#{seq} not JSON ({detail})", "#{seq} JSONではない（{detail}）"),
    # W02
    ("server/discover lists {version}", "server/discoverが{version}版を挙げる"),
    ("{n} results carry resultType and their caching hints",
     "{n}件の結果がresultTypeとキャッシュ指示を持つ"),
    # W03
    ("{request} answered a result instead of error {code} ({why})",
     "{request}はエラー{code}ではなく結果を返した（{why}）"),
    ("{request}: no answer ({why})", "{request}：応答なし（{why}）"),
    ("{request} gave error {code}", "{request}はエラー{code}を返した"),
    ("a cursor the server never handed out is invalid", "サーバーが渡していないcursorは不正"),
    # T01
    ("content holds {n} text item(s)", "contentにテキスト要素が{n}件ある"),
    ("the text item equals the reference document ({how})", "テキスト要素が参照文書と等しい（{how}）"),
    # S01
    ("{tool} declares an outputSchema", "{tool}がoutputSchemaを宣言している"),
    ("structuredContent validates against outputSchema", "structuredContentがoutputSchemaに適合する"),
    ("structuredContent does not match outputSchema at {path}: {detail}",
     "structuredContentが{path}でoutputSchemaに適合しない：{detail}"),
    ("structuredContent is absent although an outputSchema is declared",
     "outputSchemaが宣言されているのにstructuredContentが無い"),
    ("structuredContent is absent", "structuredContentが無い"),
    ("outputSchema refers outside itself ({ref})", "outputSchemaが外部（{ref}）を参照している"),
    ("refused, nothing was fetched", "拒否し、何も取得していない"),
    # S02
    ("the text twin's JSON equals structuredContent", "互換用textのJSONがstructuredContentと等しい"),
    ("the text twin differs at {path}: {detail}", "互換用textが{path}で異なる：{detail}"),
    ("content holds no text twin of structuredContent", "contentにstructuredContentの互換用textが無い"),
    ("no structuredContent, so no text twin is due", "structuredContentが無いので互換用textは求められない"),
    # S03
    ("{expr} could not be evaluated: {detail}", "{expr}を評価できなかった：{detail}"),
    ("{expr} gave {got}, not true", "{expr}がtrueではなく{got}になった"),
    ("{expr} holds", "{expr}が成り立つ"),
    # E01
    ("resource item {uri} with a text body", "本文がテキストのresource要素 {uri}"),
    ("resource item {uri} with a blob body", "本文がblobのresource要素 {uri}"),
    ("embedded resource {uri} equals the reference document ({how})",
     "埋め込みリソース {uri} が参照文書と等しい（{how}）"),
    ("embedded resource {uri} differs from the reference document ({how}): {detail}",
     "埋め込みリソース {uri} が参照文書と異なる（{how}）：{detail}"),
    ("the body came with the call: no resources/read needed",
     "本文は呼出しの結果に含まれていた：resources/readは不要"),
    # L01
    ("resource_link {uri} with no body", "本文を持たないresource_link {uri}"),
    ("size {size} equals the body's byte length", "size {size}が本文のバイト長と等しい"),
    ("size {size} but the body read is {n} bytes", "sizeは{size}だが、読んだ本文は{n}バイト"),
    # L02
    ("the link's body equals the reference document ({how})", "リンク先の本文が参照文書と等しい（{how}）"),
    ("read {uri} once", "{uri}を1回読んだ"),
    ("it is not listed in resources/list", "resources/listには載っていない"),
    ("it is listed in resources/list", "resources/listに載っている"),
    # L03
    ("resources/read {uri} gave error {code}", "resources/read {uri}はエラー{code}を返した"),
    ("resources/read {uri} answered an empty contents array instead of an error, which {version} forbids "
     "({version2}: servers MUST return {code})",
     "resources/read {uri}がエラーではなく空のcontents配列を返した。{version}版はこれを禁じている"
     "（{version2}版：サーバーは{code}を返さなければならない）"),
    # X01
    ("{forms} carry the same document", "{forms}が同じ文書を運ぶ"),
    ("{a} differs from {b} ({what}): {detail} (compared: {forms})",
     "{a}が{b}と異なる（{what}）：{detail}（比較：{forms}）"),
    ("the forms obtained agree ({agree}), but not every form could be had: {missing}",
     "得られた形式（{agree}）は一致したが、得られない形式があった：{missing}"),
    # tools/call failures (the server's own words stay as they are)
    ("tools/call {tool}: {why}", "tools/call {tool}：{why}"),
    ("resources/read {uri}: {why}", "resources/read {uri}：{why}"),
    ("the server closed its stdout (server exited with code {code})",
     "サーバーが標準出力を閉じた（終了コード{code}）"),
    ("cannot write to the server's stdin (server exited with code {code})",
     "サーバーの標準入力に書けない（終了コード{code}）"),
    ("no answer within {seconds}s: a message of at least {size} bytes exceeds --max-bytes {limit} and was "
     "dropped unread", "{seconds}秒以内に応答なし：{size}バイト以上のメッセージが--max-bytes {limit}を超えたため、"
     "読まずに捨てた"),
    ("a message of at least {size} bytes exceeds --max-bytes {limit}",
     "{size}バイト以上のメッセージが--max-bytes {limit}を超えた"),
    ("the answer exceeds --max-bytes {limit}", "応答が--max-bytes {limit}を超えた"),
    ("no answer within {seconds}s", "{seconds}秒以内に応答なし"),
    # W03's last probe
    ("tools/list still answers after the probes ({n} tools)", "プローブの後もtools/listに応答する（ツール{n}件）"),
    ("tools/list after the probes: {why}", "プローブの後のtools/list：{why}"),
    ("{request} gave error {got}, expected {code}", "{request}はエラー{got}を返した（期待は{code}）"),
    # forms the server or the profile does not offer
    ("content holds no text item", "contentにテキスト要素が無い"),
    ("content holds no resource_link item", "contentにresource_link要素が無い"),
    ("no resource_link item", "resource_link要素が無い"),
    ("the profile names no {form} tool", "プロファイルが{form}用のツールを指定していない"),
    ("the profile names no link tool", "プロファイルがリンク用のツールを指定していない"),
    ("the profile names no structured tool", "プロファイルが構造化ツールを指定していない"),
    ("the profile has no assertions", "プロファイルに意味の検査が無い"),
    ("tools/list does not list {tool}", "tools/listに{tool}が無い"),
    ("the link declares no size", "リンクがsizeを宣言していない"),
    ("the text-twin check is off (mode: off)", "互換用textの検査は無効（mode: off）"),
    ("a text item is byte-equal to the compact JSON", "テキスト要素がコンパクトなJSONとバイト単位で等しい"),
    ("the result holds no embedded resource with a body", "結果に本文付きの埋め込みリソースが無い"),
    ("no message was recorded", "メッセージが記録されていない"),
    ("no " + MODERN + " result was recorded", MODERN + "版の結果が記録されていない"),
    ("server/discover was not sent", "server/discoverを送っていない"),
    ("read {uri} {times}; it is {where} in resources/list", "{uri}を{times}読んだ。resources/listでは{where}"),
    # counts of parts left off
    ("and {n} more", "ほか{n}件"),
]

PREFIX = re.compile(r"^(?P<layer>wire|type|meaning|sdk)(?: \[(?P<rule>must|should|app)\])?: ")
TAIL_MORE = re.compile(r" \(\+(?P<n>\d+) more\)$")


@functools.cache
def _compiled() -> list[tuple[re.Pattern, str]]:
    out = []
    for english, japanese in CATALOG:
        parts = re.split(r"\{(\w+)\}", english)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
        out.append((re.compile(f"^{regex}$", re.S), japanese))
    return out


def _part(text: str) -> str:
    """One part of a reason in Japanese, or as it is when no entry matches."""
    for pattern, japanese in _compiled():
        found = pattern.match(text)
        if found:
            values = {k: _part(v) if k in ("why",) else v for k, v in found.groupdict().items()}
            return japanese.format(**values)
    return text


def _with_prefix(text: str) -> str:
    head = PREFIX.match(text)
    if not head:
        return _part(text)
    layer = LAYERS_JA.get(head["layer"], head["layer"])
    rule = f"［{head['rule']}］" if head["rule"] else ""
    return f"{layer}{rule}：{_part(text[head.end():])}"


def translate_reason(reason: str | None, lang: str) -> str | None:
    """``reason`` in ``lang``: English is returned as it is."""
    if not reason or lang == "en":
        return reason
    more = TAIL_MORE.search(reason)
    body = reason[:more.start()] if more else reason
    text = "、".join(_with_prefix(part) for part in body.split("; "))
    if more:
        text += f"（ほか{more['n']}件）"
    return text


def untranslated_parts(reason: str) -> list[str]:
    """The parts of ``reason`` the catalog has no entry for (to keep the catalog complete)."""
    left = []
    for part in reason.split("; "):
        head = PREFIX.match(part)
        rest = part[head.end():] if head else part
        rest = TAIL_MORE.sub("", rest)
        if not any(p.match(rest) for p, _ in _compiled()):
            left.append(rest)
    return left

"""What mcp-accept writes, and how: run-folder files that are whole or absent and never written
through a planted link (:mod:`.files`), ``wire.jsonl`` written and read back (:mod:`.wirelog`), masking of secrets
(:mod:`.redaction`), the heuristics that refuse credentials in user input (:mod:`.credentials`),
strict JSON out (no NaN, no lone surrogate: :mod:`.finite`), the limits on costly work
(:mod:`.bounded`, which also says whether a process still runs), and the bytes a run may write
into its folder, all its writers together (:mod:`.budget`); a value one thread sets for a
block (:mod:`.scoped`).

May import: the standard library, and ``mcp_accept.errors`` / ``mcp_accept.data`` /
``mcp_accept.reasons`` (an event's detail may be a reason as data). Nothing here knows the
protocol, the sheet or the checks.
"""

"""Hosts: what a host (Claude Code, Codex, ...) does with a server's results. Every host known,
each once, with what it supports (:mod:`.registry`). The recording
proxy between a real host and a real server (:mod:`.proxy`), the snippets that make a host
launch it (:mod:`.config`), rows filled by a person or from a host's debug transcript
(:mod:`.observe`, :mod:`.transcripts`, searched in bounded memory by :mod:`.streamed`).
``host test`` (:mod:`.harness`) runs a real host headless against the stand-in model
(:mod:`mcp_accept.model`), one adapter per host (:mod:`.adapters`; a framework's through a driver program of
:mod:`.drivers`), or the user's own program
(``--client``, :mod:`.own_client`), kept on loopback and in a
PID namespace by :mod:`.netguard` (a server at ``--url`` outside that namespace reached by the proxy
alone, through :mod:`.upstream_relay`, a socket of :mod:`.run_socket`; the ``--env`` values a user's server needs served to it
alone by :mod:`.server_env`, through the gate :mod:`.env_gate`), its options and the job it hands the re-executed harness in
:mod:`.job`, stopped by a signal where it waits (:mod:`.stop_signals`); :mod:`.model_view` judges H01-H03 from what the model was handed
(a server's body looked for there by :mod:`.body_search`, read from the proxy's wire log by
:mod:`.server_bodies`), and
:mod:`.cost` counts what each form cost it (characters, tokens, turns);
:mod:`.threshold` finds, while the host runs, the size where it stops handing a large result whole;
:mod:`.host_results` writes the host rows and ``host-run.json``, and
:mod:`.matrix` runs every installed host side by side (``host matrix``) and one host's published
versions (``host history``), each such version installed into the host cache by :mod:`.versions`
(``HOST@VERSION``).

May import every earlier stage (``running`` included: a proxy folder is completed like a run's).
Nothing earlier imports hosts.
"""

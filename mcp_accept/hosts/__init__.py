"""Hosts: what a host (Claude Code, Codex, ...) does with a server's results. The recording
proxy between a real host and a real server (:mod:`.proxy`), the snippets that make a host
launch it (:mod:`.config`), rows filled by a person or from a host's debug transcript
(:mod:`.observe`, :mod:`.transcripts`).

May import every earlier stage (``running`` included: a proxy folder is completed like a run's).
Nothing earlier imports hosts.
"""

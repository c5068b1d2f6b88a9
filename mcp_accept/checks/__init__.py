"""Checks: small functions that judge recorded messages and return verdicts.

A check takes a :class:`~.base.Context` (what was recorded, the profile, the schema store,
the row's options) and returns one or more :class:`~.base.Verdict`. Nothing here talks to a
server or knows which transport carried a message. Checks register themselves by name
(:func:`.base.check`); sheets name them; :func:`.registry.run_check` runs one.

* :mod:`.wire`: messages against the official schema; :mod:`.types`: ``structuredContent``
  against ``outputSchema``; :mod:`.meaning`: what no schema says; :mod:`.errors`: the
  error-hygiene probes; :mod:`.session`: what holds across a whole recording (what was
  negotiated, what the client asked for, what the server declared); :mod:`.sdk`: what the
  official SDK did with the answers when the run replayed them to it (the replay itself is
  the running stage's, :mod:`mcp_accept.running.sdk_replay`). ``coverage.yaml`` maps every
  normative sentence in scope to the check that enforces it (or says why none
  does); :mod:`.places` reads it so a verdict cites only places its version has.

What a version requires (its error codes, the fields of its results) is read from
:mod:`mcp_accept.protocol`, never written here again.

May import: ``mcp_accept.errors``, ``data``, ``protocol``, ``evidence``, ``schemas`` and ``transport``
(for the recorded message types and the session's constants); never inputs, running,
output or hosts.
"""

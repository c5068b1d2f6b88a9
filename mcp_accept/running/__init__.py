"""A run's orchestration: :mod:`.execute` takes the options of ``mcp-accept run`` to a filled
run folder; :mod:`.runner` drives the sheet's steps over a session and has the checks judge the
recording; :mod:`.eras` runs the sheet once per protocol version (``--protocol all``);
:mod:`.fleet` and :mod:`.shard` run many servers; :mod:`.invocation` records what a run was
asked to do and :mod:`.rerun` repeats it from that record; :mod:`.sdk_replay` replays the
recorded answers through the official MCP Python SDK for the sdk layer's checks, in the run's
own process or in one of :mod:`.sdk_worker`, which ends with the run.

May import every earlier stage: ``errors``, ``data``, ``untrusted``, ``protocol``, ``evidence``, ``schemas``,
``transport``, ``checks``, ``inputs`` and ``output`` (a run writes its ``sheet.md`` and prints
its table). Never hosts.
"""

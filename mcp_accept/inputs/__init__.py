"""What a user hands over, loaded and checked before anything runs: the sheet (:mod:`.sheet`),
profiles (:mod:`.profile`) and ``profile init`` (:mod:`.profile_init`), execution conditions
and ``--set`` (:mod:`.conditions`), a baseline of expected failures (:mod:`.baseline`), ``results.json`` and fleet folders read back
(:mod:`.results`), all through the YAML/JSON loading with line-numbered errors of
:mod:`.files`.

May import: ``errors``, ``data``, ``untrusted``, ``protocol``, ``evidence``, ``schemas``, ``transport``
(``profile init`` talks to a server) and ``checks`` (a row option is checked against the check
that reads it). Never running, output or hosts.
"""

"""What people and CI read: the console table (:mod:`.console`), ``results.json`` and
``rows/<ID>.json`` assembled and written by the one writer every command uses
(:mod:`.results_writer`), the exit status of a run or host test (:mod:`.exit_status`), one
filled sheet (:mod:`.render`: ``sheet.md``, Jinja, labels), reports over many runs (:mod:`.runs` loads
them, :mod:`.report` renders them through the reporter classes of :mod:`.reporters`),
``mcp-accept diff`` (:mod:`.diff`), a row's reason in another language (:mod:`.i18n`) and the
outputs' fixed words, translated by the message catalog (:mod:`.words`); what ``host test``
prints (:mod:`.host_run`), the cross-host table of ``host matrix`` (:mod:`.host_matrix`), and
``host diff`` and ``host history``'s table (:mod:`.host_diff`), all read from finished host-test
folders.

May import: ``errors``, ``data``, ``untrusted``, ``protocol``, ``evidence``, ``checks`` (statuses and rule
kinds) and ``inputs`` (to read run folders back). Never transport, running or hosts.
"""

"""One match, below the store: its spec, id and seeds (:mod:`arena.matches.scheduler`),
the tournament's deal secret and the check of its deals (:mod:`arena.matches.secrecy`), and
the record a worker returns for it (:mod:`arena.matches.record`)."""

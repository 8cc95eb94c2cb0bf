"""What the commands and the site show as text: the terminal's tables and JSON
documents (:mod:`arena.views.terminal`), the duplicate reports (:mod:`arena.views.reports`),
one look for every table (:mod:`arena.views.tables`) and plain-text hands
(:mod:`arena.views.transcript`)."""

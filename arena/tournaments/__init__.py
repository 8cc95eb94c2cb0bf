"""Running tournaments, above the store: the entrants and their owners, the worker
processes and the check of what they return, the schedules, planning and running a
tournament, and comparisons (``arena compare``)."""

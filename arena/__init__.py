"""Euchre Arena: Three-Handed (Cutthroat) Euchre for bots.

The modules at the top are the authors' API (``cards``, ``rules``, ``game``, ``solver``,
``worlds``, ``engine``), the shared leaves (``errors``, ``untrusted``) and ``api``; the folders
are the layers above the game, imported one way, down: ``sandbox`` <- ``matches`` <-
``stats`` <- ``store`` <- ``tournaments`` <- ``cluster`` <- ``views`` <- ``site`` <- ``cli``
(docs/architecture.md).
"""

__version__ = "0.1.0"

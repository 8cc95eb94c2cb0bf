"""Euchre Arena: Three-Handed (Cutthroat) Euchre for bots.

Layers, one direction: ``cards`` <- ``engine`` <- ``sandbox`` / ``tournament`` <- ``store``,
``ratings``, ``site`` <- ``cli``.
"""

__version__ = "0.1.0"

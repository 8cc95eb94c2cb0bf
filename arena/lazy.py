"""Third-party modules loaded on first use, so that a command that never computes with them
does not pay for importing them (numpy and scipy cost most of a read command's time).

``np = lazy_module("numpy")`` returns the module object at once and runs its code when an
attribute is first read: the recipe of the standard library's
:class:`importlib.util.LazyLoader` (docs.python.org, "Implementing lazy imports"). A module
names its type for mypy under ``if TYPE_CHECKING: import numpy as np``.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module ``name`` (for example ``"numpy"`` or ``"scipy.special"``), loaded when one of
    its attributes is first read; the module itself if it is already loaded."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module

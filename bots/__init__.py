"""The reference bots, one file each (shipped inside the package as ``arena.bundled_bots``)."""

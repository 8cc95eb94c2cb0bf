"""``arena web``: the arena as a web service (docs/web.md).

An ASGI application (Starlette, served by uvicorn) over one arena database: authors upload
their bots with a token, everyone watches the standings live, and people play the bots in the
browser. It reads the database and writes only through :class:`arena.api.Arena`; the pages are
the static site's templates.
"""

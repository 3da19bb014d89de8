"""``ofc serve``: the lake live in the browser, on this machine."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import typer

from ofc.pipeline.cli.console import EXIT_USAGE, err, fail, heard, out, print_json
from ofc.pipeline.cli.options import existing_lake, json_option, lake_option

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
DEFAULT_PORT = 8050


def serve(
    lake: Path | None = lake_option(),
    port: int = typer.Option(DEFAULT_PORT, "--port", metavar="N", min=0, max=65535, help="Port to listen on."),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        metavar="H",
        help="Interface to listen on. The default, 127.0.0.1, answers this machine only; any other lets the "
        "network read the lake (a warning says so).",
    ),
    as_json: bool = json_option(lines=True),
) -> None:
    """Serve the report over the whole lake in the browser, with filters in the address, every hand's page and
    the hands behind each figure.

    Each page reads the lake as committed when it was asked for: open pages offer the new figures when another
    command commits. The server never writes the lake. Ctrl-C stops it.
    """
    import asyncio

    import uvicorn

    from ofc.pipeline.config import load_config
    from ofc.reports.serve import Site, make_app

    if not host.strip():
        fail("--host takes an interface (127.0.0.1 for this machine only)", EXIT_USAGE)
    store = existing_lake(lake)
    config = load_config()
    site = Site(
        store.root,
        aliases=config.alias_map(),
        featured=config.canonical(config.player) if config.player else None,
    )
    if host not in LOCAL_HOSTS:
        err.print(
            f"[bold yellow]warning:[/] listening on {host}: anyone who reaches this machine on port {port} can read "
            "the lake (there is no login)",
            markup=True,
        )
    site.warm()  # the first connection, before the address is said
    server = uvicorn.Server(
        uvicorn.Config(make_app(site), host=host, port=port, log_level="critical", access_log=False)
    )
    shown = f"[{host}]" if ":" in host else host

    async def say_where() -> None:  # once the socket listens: its port (the one asked for, or the one given)
        while not server.started:
            await asyncio.sleep(0.02)
        bound = server.servers[0].sockets[0].getsockname()[1] if server.servers else port
        url = f"http://{shown}:{bound}/"
        if as_json:
            print_json({"serving": str(store.root), "url": url})
            sys.stdout.flush()  # at once, for whatever reads the pipe
        else:
            out.print(f"serving {store.root} at {url} (Ctrl-C stops)", markup=False)

    async def run() -> None:
        telling = asyncio.ensure_future(say_where())
        try:
            await server.serve()
        finally:
            telling.cancel()

    # uvicorn stops on Ctrl-C, then raises it again; it leaves by SystemExit when it cannot listen
    with contextlib.suppress(KeyboardInterrupt, SystemExit):
        asyncio.run(run())
    site.close()
    heard()  # Ctrl-C is how a server stops
    if not server.started:
        fail(
            f"could not listen on {host}:{port}: the port is in use, or {host} is not an address of this machine "
            "(--port N chooses another port)"
        )
    if as_json:
        print_json({"stopped": True})
    else:
        out.print("stopped; the lake is as it was", markup=False)

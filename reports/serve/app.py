"""The web application of ``ofc serve``: Starlette routes over one lake, each request on one committed state.

Starlette (with uvicorn serving it) is the small, well-kept ASGI toolkit FastAPI is built on: routing, query
strings, responses and exception handlers, nothing more. The pages are made on the server, as the static report
is, so that both share the section code, the named queries and the page script; the served report only loads
plotly.js and the script from this server instead of carrying them inline.

Read-only: a request takes a snapshot of the lake (a read lease while any request runs, so a vacuum waits for at
most the requests in flight) and never writes. Every value from a URL reaches SQL as a bound parameter or a name
checked against a fixed list; what cannot be read is a 4xx page saying why.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlencode

import duckdb
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ofc.pipeline import __version__, suggest
from ofc.pipeline.errors import InputError, OfcError
from ofc.pipeline.lake.leases import READ_LEASES
from ofc.pipeline.lake.snapshot import Snapshot, later
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query import named
from ofc.pipeline.query.db import Narrowing, connect
from ofc.pipeline.query.players import Found, LakeFilters
from ofc.reports.figures import KIND_WORDS, POSITION_WORDS
from ofc.reports.hands import hand_id, load
from ofc.reports.html import PAGE_CSS, Served, asset, plotly_js, render
from ofc.reports.queries import QueryRunner, RowsKept, Scope
from ofc.reports.report import Options, build, shown

__all__ = ["LIMITS", "Limits", "RequestError", "Site", "make_app"]

log = logging.getLogger(__name__)


class RequestError(InputError):
    """A URL the server cannot answer as asked: a 400 page saying why."""


@dataclass(frozen=True)
class Limits:
    """Bounds on what a URL may ask for."""

    per_page: int = 50
    most_per_page: int = 500
    last_page: int = 1_000_000
    poll_seconds: float = 3.0
    """How often an open page asks whether the lake has changed."""
    builds: int = 2
    """Reports made at once: each reads with every core, and more at once only share them and add memory (ten at
    once held 1.9 GB over 10 M hands)."""
    pages: int = 32
    """Pages kept, by address and state of the lake: the same view asked again is sent as it was made."""


LIMITS = Limits()
SORTS = ("date", "points", "royalties", "ev_lost")
ORDERS = ("desc", "asc")
ASSETS = {"plotly.js": "plotly", "report.js": "report.js", "serve.js": "serve.js"}
"""The scripts a page loads, by the only names the server answers to."""


@dataclass(frozen=True)
class Filters:
    """The filters a URL carries: every page reads them, and every link keeps them."""

    player: str | None = None
    variant: str | None = None
    since: date | None = None
    until: date | None = None
    rules: str | None = None
    """A rule set (name or key) every hand is read under; None: each hand as played."""
    min_hands: int | None = None
    narrowing: Narrowing = field(default_factory=Narrowing)
    """The boards every figure reads: of a table size, a seat (``position``), a session, an opponent's hands, in
    Fantasyland (``in``) or not (``out``)."""

    @classmethod
    def parse(cls, query: Mapping[str, str]) -> Filters:
        rules = _text(query, "rules")
        return cls(
            player=_text(query, "player"),
            variant=_text(query, "variant"),
            since=_day(query, "since"),
            until=_day(query, "until"),
            rules=None if rules in (None, "as played") else rules,
            min_hands=_whole(query, "min_hands", None, 1, 10**9),
            narrowing=Narrowing(
                table_size=_whole(query, "table_size", None, 2, 4),
                position=_whole(query, "position", None, 0, 3),
                session=_text(query, "session"),
                opponent=_text(query, "opponent"),
                fantasyland=_in_or_out(query, "fantasyland"),
            ),
        )

    def query(self, **more: Any) -> str:
        """The URL query of these filters with ``more``, empty values left out."""
        values = {
            "player": self.player,
            "variant": self.variant,
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "rules": self.rules,
            "min_hands": self.min_hands,
            **_narrowing_query(self.narrowing),
            **more,
        }
        kept = {k: v for k, v in values.items() if v not in (None, "")}
        return "?" + urlencode(kept) if kept else ""


OUTCOMES = ("fouled", "entered", "stayed", "changed")
DECISION_KINDS = tuple(KIND_WORDS)
ROYALTY_ROWS = ("top", "middle", "bottom")


@dataclass(frozen=True)
class Outcome:
    """Which of the boards the filters keep a list of hands shows: what one bar or cell of a chart counts (the
    fouled boards, those dead after a street, a row's royalty hand, Fantasyland earned or kept, the hands whose
    winner a rule set changes, the Fantasyland boards of a card count). The list's address only: every figure
    reads every board the filters keep."""

    outcome: str | None = None
    dead_street: str | None = None
    row: str | None = None
    made: str | None = None
    fantasyland_cards: int | None = None
    street: int | None = None
    kind: str | None = None
    cause: str | None = None
    """What fouled boards' fouls are put down to (the causes of fouls): a street, a kind of decision, or cards."""

    @classmethod
    def parse(cls, query: Mapping[str, str], rules: str | None) -> Outcome:
        outcome = _one_of(query, "outcome", OUTCOMES)
        if outcome == "changed" and rules is None:
            raise RequestError(
                "outcome: a hand's winner changes under a rule set against the hand as played: choose the rule "
                "set (rules=NAME)"
            )
        dead = _text(query, "dead_street")
        if dead is not None and not (dead == "none" or _street(dead)):
            raise RequestError(f"dead_street: {dead[:40]!r} is neither a street (1 to 9) nor none")
        if dead is not None and outcome not in (None, "fouled"):
            raise RequestError(f"dead_street: only fouled boards went dead, not those the outcome {outcome} keeps")
        row, made = _one_of(query, "row", ROYALTY_ROWS), _text(query, "made")
        if (row is None) != (made is None):
            raise RequestError("row and made go together: the row (top, middle or bottom) and the hand it made")
        cards = _whole(query, "fantasyland_cards", None, 0, 52)  # 0: not recorded
        street = _whole(query, "street", None, 1, 9)
        kind = _one_of(query, "kind", DECISION_KINDS)
        cause = _text(query, "cause")
        if cause is not None and not (cause in (*DECISION_KINDS, "cards") or _street(cause)):
            raise RequestError(
                f"cause: {cause[:40]!r} is neither a street (1 to 9), a kind of decision ({', '.join(DECISION_KINDS)}) "
                "nor cards"
            )
        if cause is not None and outcome not in (None, "fouled"):
            raise RequestError(f"cause: only fouled boards have a cause, not those the outcome {outcome} keeps")
        return cls("fouled" if dead is not None else outcome, dead, row, made, cards, street, kind, cause)

    def __bool__(self) -> bool:
        return any(v is not None for v in asdict(self).values())

    def values(self) -> dict[str, Any]:
        """The named query ``hand_list``'s parameters, and the address's."""
        return asdict(self)

    def said(self) -> str:
        """The boards kept, in words: "fouled boards, dead after street 3"."""
        said = {
            None: [],
            "fouled": ["fouled boards"],
            "entered": ["boards that earned Fantasyland"],
            "stayed": ["Fantasyland boards that stayed"],
            "changed": ["hands whose winner changes against the hands as played"],
        }[self.outcome]
        if self.dead_street == "none":
            said.append("without placements (no dead street)")
        elif self.dead_street is not None:
            said.append(f"the foul certain after street {self.dead_street}")
        if self.made is not None:
            where = {"top": "on top", "middle": "in the middle"}.get(self.row or "", "on the bottom")
            said.append(f"{self.made} {where}")
        if self.fantasyland_cards is not None:
            said.append(f"in Fantasyland with {self.fantasyland_cards} cards")
        boards = "" if said else "boards "
        if self.street is not None:
            said.append(f"{boards}with a decision weighed at street {self.street}")
        if self.kind is not None:
            said.append(f"{boards}with a {KIND_WORDS.get(self.kind, self.kind)} weighed")
        if self.cause == "cards":
            said.append("boards fouled as played, the foul put down to the cards (no decision made it likely)")
        elif self.cause is not None:
            which = f"street {self.cause}" if self.cause.isdigit() else f"a {KIND_WORDS.get(self.cause, self.cause)}"
            said.append(f"boards fouled as played, the foul put down to {which}")
        return ", ".join(said)


def _narrowing_query(narrowing: Narrowing) -> dict[str, Any]:
    """A narrowing as the URL spells it (its variant is the game filter's)."""
    values = {k: v for k, v in asdict(narrowing).items() if k != "variant"}
    if narrowing.fantasyland is not None:
        values["fantasyland"] = "in" if narrowing.fantasyland else "out"
    return values


def _street(text: str) -> bool:
    """Whether a value of the URL is a street of a hand, 1 to 9 (ASCII digits: "³" is a digit to Python)."""
    return text.isascii() and text.isdigit() and 1 <= int(text) <= 9


def _text(query: Mapping[str, str], name: str) -> str | None:
    """A text value of the URL, trimmed (and cut to 200 characters); None when empty."""
    return (query.get(name) or "").strip()[:200] or None


def _day(query: Mapping[str, str], name: str) -> date | None:
    """A day of the URL (YYYY-MM-DD), one hands may have been played on; None when empty."""
    text = _text(query, name)
    try:
        day = date.fromisoformat(text) if text else None
    except ValueError:
        raise RequestError(f"{name}: not a day (YYYY-MM-DD): {text!r}") from None
    if day is not None and not date(1990, 1, 1) <= day <= date(2200, 1, 1):
        raise RequestError(f"{name}: {text} is not a day hands were played")
    return day


def _whole(query: Mapping[str, str], name: str, default: int | None, low: int, high: int) -> int | None:
    raw = (query.get(name) or "").strip()
    if not raw:
        return default
    if not raw.isdigit() or len(raw) > 12:
        raise RequestError(f"{name}: not a whole number from {low:,} to {high:,}: {raw[:40]!r}")
    value = int(raw)
    if not low <= value <= high:
        raise RequestError(f"{name}: {value:,} is not from {low:,} to {high:,}")
    return value


def _hand_key(raw: str) -> int | None:
    """``raw`` as a hand's key (a whole number below 2**64), or None: an id, or nothing a key can be."""
    return int(raw) if raw.isdigit() and len(raw) <= 20 and int(raw) < 2**64 else None


def _in_or_out(query: Mapping[str, str], name: str) -> bool | None:
    value = _text(query, name)
    if value is not None and value not in ("in", "out"):
        raise RequestError(f"{name}: {value[:40]!r} is neither in nor out")
    return None if value is None else value == "in"


def _one_of(query: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str | None:
    """A value of the URL that must be one of ``allowed``; None when empty."""
    value = _text(query, name)
    if value is not None and value not in allowed:
        raise RequestError(f"{name}: {value[:40]!r} is not one of {', '.join(allowed)}")
    return value


def _choice(query: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str:
    """One of ``allowed``, the first when the URL gives none."""
    return _one_of(query, name, allowed) or allowed[0]


@dataclass(frozen=True)
class Choices:
    """What the filter bar offers."""

    variants: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    rule_sets: tuple[str, ...] = ()


def _close(con: duckdb.DuckDBPyConnection) -> None:
    """Close a connection no request reads by any more: one that cannot be closed is left to be collected."""
    with contextlib.suppress(duckdb.Error):
        con.close()


@dataclass
class _Shared:
    """A connection over one state of the lake and how many requests are reading by its cursors."""

    state: tuple[str, ...]
    con: duckdb.DuckDBPyConnection
    users: int = 0
    counted: LakeFilters | None = None
    """What was counted over the state (the players of each game), which its requests share."""


class Site:
    """The lake the server reads, its settings, and the read lease its requests share."""

    def __init__(
        self,
        root: Path,
        aliases: Mapping[str, str] | None = None,
        featured: str | None = None,
        limits: Limits = LIMITS,
    ) -> None:
        self.lake = Lake(root)
        self.aliases = dict(aliases or {})
        self.featured = featured
        self.limits = limits
        self._reading = 0
        self._lock = threading.Lock()
        self.building = threading.BoundedSemaphore(limits.builds)
        self._pages: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._choices: tuple[tuple[str, ...], Choices] | None = None
        self._kept_snapshot: tuple[tuple[str, ...], Snapshot] | None = None
        self._shared: _Shared | None = None
        """The connection over the newest state of the lake, whose cursors its requests read by."""
        self._connecting = threading.Lock()
        self._closed = False
        self.rows = RowsKept()
        """The rows of the named queries pages ran over the newest state of the lake, for the pages after."""

    @contextmanager
    def reading(self) -> Iterator[Snapshot]:
        """The lake as committed now, for one request. The read lease is given up when no request is reading, so
        that ``ofc lake vacuum`` waits for the requests in flight and no longer."""
        with self._lock:
            self._reading += 1
        try:
            yield self._snapshot()
        finally:
            with self._lock:
                self._reading -= 1
                if self._reading == 0:
                    self.lake.release()

    def state(self) -> str:
        """Which committed state the lake is in: it changes with every commit (and only then)."""
        return hashlib.blake2b("\n".join(self._manifests()).encode(), digest_size=8).hexdigest()

    def _manifests(self) -> tuple[str, ...]:
        return tuple(sorted(p.name for p in self.lake.manifest_dir.glob("*.json"))) if self.lake.exists() else ()

    def _snapshot(self) -> Snapshot:
        """A snapshot of the lake as committed now, under this process's read lease: the one taken for an earlier
        request while no manifest has come or gone since (a manifest is written once, under a name of its own), so
        that each request does not read every manifest again and work out the files anew."""
        names = self._manifests()
        with self._lock:
            kept = self._kept_snapshot
        if kept is not None and kept[0] == names:
            READ_LEASES.take(self.lake.root)
            return kept[1]
        snapshot = self.lake.snapshot()
        if self._manifests() == names:  # no commit between the listing and the reading
            with self._lock:
                self._kept_snapshot = (names, snapshot)
        return snapshot

    @contextmanager
    def connection(self, snapshot: Snapshot, narrowing: Narrowing | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection over ``snapshot`` with the settings' aliases, for one request: a cursor of the one kept over
        that state of the lake, which defines every view and macro once (a new connection took 0.29 s of processor
        time over 10 M hands, a cursor 0.3 ms) and reads each file's footer once for every request. A narrowed one
        (a narrowing given), or one over a state older than the newest seen, is made for the request and closed
        after."""
        if narrowing:
            # the summaries are summed again: as many at once as reports are made (each bounds its memory)
            with self.building, contextlib.closing(connect(snapshot, narrowing, self.aliases)) as con:
                yield con
            return
        shared = self._share(snapshot)
        if shared is None:  # a request over an older state, finishing late (or the server is stopping)
            with contextlib.closing(connect(snapshot, None, self.aliases)) as con:
                yield con
            return
        try:
            with contextlib.closing(shared.con.cursor()) as cursor:
                yield cursor
        finally:
            with self._lock:
                shared.users -= 1
                done = shared.users == 0 and shared is not self._shared
            if done:
                _close(shared.con)

    def _share(self, snapshot: Snapshot) -> _Shared | None:
        """The connection kept over ``snapshot``'s state, made if none is, with one more request using it; None
        when a newer state has been seen, or the server is stopping."""
        state = snapshot.batches
        kept = self._kept(state)
        if kept is not False:
            return kept
        with self._connecting:  # one request makes it; the others asking at once wait for it
            kept = self._kept(state)
            if kept is not False:
                return kept
            made = _Shared(state, connect(snapshot, None, self.aliases), users=1)
            with self._lock:
                if self._closed:
                    unused, made_kept = made, None
                else:
                    old, self._shared, made_kept = self._shared, made, made
                    unused = old if old is not None and old.users == 0 else None  # else its last request closes it
            if unused is not None:
                _close(unused.con)  # the lake moved on, and no request reads the state it was over
            return made_kept

    def _kept(self, state: tuple[str, ...]) -> _Shared | Literal[False] | None:
        """The connection kept over ``state``, with one more request using it; None when a newer state has been
        seen, or the server is stopping; False when none is kept yet."""
        with self._lock:
            current = self._shared
            if current is not None and current.state == state:
                current.users += 1
                return current
            if self._closed or (current is not None and not later(state, current.state)):
                return None
            return False

    def counted(self, con: duckdb.DuckDBPyConnection, snapshot: Snapshot) -> LakeFilters:
        """The filters' counts over ``snapshot`` read on ``con``: each page of a state of the lake asks the players
        of each game, a scan of every board (0.2 s over 10 M hands, 0.45 s of processor time), counted once for
        every request over the newest state (requests asking at once, before any has counted, may each count)."""
        with self._lock:
            shared = self._shared if self._shared is not None and self._shared.state == snapshot.batches else None
            counted = LakeFilters(con, like=None if shared is None else shared.counted)
            if shared is not None and shared.counted is None:
                shared.counted = counted
        return counted

    def warm(self) -> None:
        """Open a connection over the lake as it stands and read the filter bar's choices, both kept: what the
        first page would otherwise wait for, done before the server says its address."""
        with self.reading() as snapshot:
            self.choices(snapshot)

    def close(self) -> None:
        """Close the connection kept between requests (the server stops): now, or when the last request reading
        by it ends."""
        with self._lock:
            shared, self._shared, self._closed = self._shared, None, True
            unused = shared if shared is not None and shared.users == 0 else None
        if unused is not None:
            _close(unused.con)

    def choices(self, snapshot: Snapshot) -> Choices:
        """The games, players and rule sets the filter bar offers: read once for each state of the lake (the
        players are every board's, read again on every page they took a tenth of a second over 10 M hands). They
        are counted as a report counts them, kept with the connection: the first page counts none again."""
        state = snapshot.batches
        with self._lock:
            if self._choices is not None and self._choices[0] == state:
                return self._choices[1]
        with self.connection(snapshot) as con:
            counted = self.counted(con, snapshot)
            variants = sorted(counted.hands_by_variant())
            players = counted.players(None, None, None)[:5000]
        rule_sets = sorted({r.name for r in snapshot.rule_sets.values()})
        found = Choices(tuple(variants), tuple(players), tuple(rule_sets))
        with self._lock:
            self._choices = (state, found)
        return found

    def kept(self, key: tuple[str, str]) -> str | None:
        """A page made before for this address in this state of the lake."""
        with self._lock:
            page = self._pages.get(key)
            if page is not None:
                self._pages.move_to_end(key)
            return page

    def keep(self, key: tuple[str, str], page: str) -> str:
        with self._lock:
            self._pages[key] = page
            while len(self._pages) > self.limits.pages:
                self._pages.popitem(last=False)
        return page

    def options(self, filters: Filters) -> Options:
        return Options(
            player=filters.player,
            variant=filters.variant,
            rules=(filters.rules,) if filters.rules else (),
            since=filters.since,
            until=filters.until,
            min_hands=filters.min_hands,
            aliases=self.aliases,
            featured=self.featured,
            carry_hands=False,  # each listed hand opens on its own page: /hand/KEY
            narrowing=filters.narrowing,
            one_game=True,  # each other game is a tab away, a page of its own
        )


# ---------------------------------------------------------------------------------------------------- pages

_CSS = """
.serve-bar { background: #fff; margin: 0; padding: .7rem 2rem; border-bottom: 1px solid #dde3ea; display: flex;
  flex-wrap: wrap; gap: .5rem 1rem; align-items: end; font-size: .85rem; }
.serve-bar label { display: flex; flex-direction: column; gap: .15rem; color: #445; }
.serve-bar input[type=number] { width: 6rem; }
.serve-bar input, .serve-bar select { font: inherit; padding: .2rem .4rem; border: 1px solid #b8c4d2;
  border-radius: 4px; }
.serve-bar button, .serve-live button { font: inherit; padding: .25rem .9rem; cursor: pointer; color: #fff;
  background: #1f3a5f; border: 0; border-radius: 4px; }
.serve-bar a { color: #1f3a5f; }
.serve-live { background: #fff6d6; border-bottom: 1px solid #e7d28a; padding: .5rem 2rem; }
.serve-live[hidden] { display: none; }
.serve-error { color: #8a1f1f; font-weight: 600; }
.pager { display: flex; gap: 1rem; align-items: center; margin: .6rem 0; }
section.replayer { width: auto; max-width: none; max-height: none; overflow: visible; padding: 1rem 1.5rem;
  box-shadow: 0 1px 3px rgba(0,0,0,.08); }
.replay-bar { display: flex; gap: .4rem; margin: .3rem 0 .6rem; }
.replay-bar button { font: inherit; padding: .3rem .8rem; cursor: pointer; color: #fff; background: #1f3a5f; border: 0;
  border-radius: 4px; }
.replay-bar button:disabled { background: #b8c4d2; cursor: default; }
.replay-say { font-weight: 600; }
.hand-viewer .board.replay-now { border-left-color: #1f3a5f; box-shadow: 0 0 0 2px #1f3a5f inset; }
.replay-decision { color: #1f3a5f; }
.trainer { background: #fff6d6; border-radius: 6px; padding: .5rem 1rem; margin: .4rem 0 .8rem; }
.trainer-answer { font-weight: 600; }
table.hand-list td a { color: #1f3a5f; }
"""


def _options_html(values: list[tuple[str, str]], chosen: str | None) -> str:
    return "".join(
        f'<option value="{html.escape(v)}"{" selected" if v == chosen else ""}>{html.escape(label)}</option>'
        for v, label in values
    )


def _hidden(values: Mapping[str, Any]) -> str:
    return "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(str(v))}">'
        for k, v in values.items()
        if v is not None
    )


def _bar(
    site: Site, snapshot: Snapshot | None, filters: Filters, action: str, kept: Mapping[str, Any] | None = None
) -> str:
    """The filters as a form: submitting it loads the same page with them in its address, and with ``kept`` (what
    the page shows of them: the outcome a list keeps, its order)."""
    offered = Choices()
    if snapshot is not None:
        with contextlib.suppress(duckdb.Error, OfcError):  # the form still works without its lists
            offered = site.choices(snapshot)
    variants, players = offered.variants, offered.players
    rule_sets = [("", "as played"), *((r, r) for r in offered.rule_sets)]
    if filters.rules and filters.rules not in offered.rule_sets:  # a rule set's key (a chart leads to one)
        name, _, digest = filters.rules.partition("@")
        rule_sets.append((filters.rules, f"{name} ({digest[:6]})" if digest else name))
    player = html.escape(filters.player or "")
    since = filters.since.isoformat() if filters.since else ""
    until = filters.until.isoformat() if filters.until else ""
    games = _options_html([("", "every game"), *((v, v) for v in variants)], filters.variant or "")
    rules = _options_html(rule_sets, filters.rules or "")
    known = "".join(f'<option value="{html.escape(p)}">' for p in players)
    least = filters.min_hands or ""
    return f"""<form class="serve-bar" method="get" action="{html.escape(action)}" aria-label="Filters">
<label>Player<input name="player" value="{player}" list="serve-players" placeholder="every player"></label>
<datalist id="serve-players">{known}</datalist>
<label>Game<select name="variant">{games}</select></label>
<label>Since<input type="date" name="since" value="{since}"></label>
<label>Until<input type="date" name="until" value="{until}"></label>
<label>Rules<select name="rules">{rules}</select></label>
<label>Min. hands<input type="number" name="min_hands" min="1" value="{least}" placeholder="auto"></label>
{_narrowing_fields(filters)}{_hidden(kept or {})}<button type="submit">Show</button>
<a href="/hands{html.escape(filters.query())}">the hands behind these figures</a>
<a href="/train{html.escape(filters.query())}">trainer</a>
<a href="/{html.escape(filters.query())}">report</a>
</form>"""


def _narrowing_fields(filters: Filters) -> str:
    n = filters.narrowing
    sizes = _options_html([("", "any"), ("2", "2"), ("3", "3"), ("4", "4")], str(n.table_size or ""))
    places = [("", "any"), *((str(i), name) for i, name in enumerate(POSITION_WORDS))]
    position = _options_html(places, "" if n.position is None else str(n.position))
    session = html.escape(n.session or "")
    opponent = html.escape(n.opponent or "")
    spelt = _narrowing_query(n).get("fantasyland") or ""
    fantasyland = _options_html([("", "any"), ("in", "in Fantasyland"), ("out", "normal hands")], spelt)
    return (
        f'<label>Players<select name="table_size">{sizes}</select></label>'
        f'<label>Seat<select name="position">{position}</select></label>'
        f'<label>Session<input name="session" value="{session}" placeholder="any session"></label>'
        f'<label>Opponent<input name="opponent" value="{opponent}" list="serve-players" placeholder="anyone">'
        "</label>"
        f'<label>Fantasyland<select name="fantasyland">{fantasyland}</select></label>'
    )


def _live(state: str, poll: float) -> str:
    return (
        f'<div class="serve-live" id="serve-live" hidden data-state="{html.escape(state)}" '
        f'data-poll-ms="{int(poll * 1000)}">New hands were committed to the lake since this page was made. '
        '<button type="button" id="serve-reload">Show them</button></div>'
    )


def _shell(title: str, body: str, scripts: tuple[str, ...] = ("/assets/serve.js",), head: str = "") -> str:
    """A page of the server's own (not the report): the report's styles, the server's script."""
    tags = "".join(f'<script src="{html.escape(s)}"></script>' for s in scripts)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{PAGE_CSS}{asset("report.css")}{_CSS}</style>
{head}{tags}
</head>
<body>
<header><h1>{html.escape(title)}</h1><div>ofc-analytics {html.escape(__version__)}, served from the lake</div></header>
{body}
</body>
</html>
"""


def _error_page(
    site: Site, filters: Filters, status: int, message: str, action: str = "/", kept: Mapping[str, Any] | None = None
) -> HTMLResponse:
    try:
        with site.reading() as snapshot:
            bar = _bar(site, snapshot, filters, action, kept)
    except OfcError:
        bar = ""
    title = {400: "Not as asked", 404: "Not found"}.get(status, "Not available")
    body = (
        f'{bar}<section><p class="serve-error">{html.escape(message)}</p><p><a href="/">Start again</a></p></section>'
    )
    return HTMLResponse(_shell(title, body), status_code=status)


# ---------------------------------------------------------------------------------------------------- routes


def make_app(site: Site) -> Starlette:
    """The application over ``site``'s lake."""

    def report_page(request: Request) -> Response:
        filters = Filters.parse(request.query_params)
        state = site.state()
        key = (state, str(request.url.path) + "?" + str(request.url.query))
        if (page := site.kept(key)) is not None:
            return HTMLResponse(page)
        with site.building, site.reading() as snapshot:
            try:
                options = site.options(filters)
                if options.narrowing:
                    report = build(snapshot, options)
                else:
                    with site.connection(snapshot) as con:
                        report = build(snapshot, options, con, site.counted(con, snapshot), site.rows)
            except OfcError as exc:
                return _error_page(site, filters, 400, str(exc))
            top = _bar(site, snapshot, filters, "/") + _live(state, site.limits.poll_seconds)
        scripts = ("/assets/plotly.js", "/assets/serve.js", "/assets/report.js")
        served = Served(scripts, top, _CSS, lambda variant: "/" + replace(filters, variant=variant).query())
        return HTMLResponse(site.keep(key, render(report, served)))

    def hands_page(request: Request) -> Response:
        query = request.query_params
        filters = Filters.parse(query)
        outcome = Outcome.parse(query, filters.rules)
        sort, order = _choice(query, "sort", SORTS), _choice(query, "order", ORDERS)
        page = _whole(query, "page", 1, 1, site.limits.last_page) or 1
        per_page = _whole(query, "per_page", site.limits.per_page, 1, site.limits.most_per_page) or 1
        state = site.state()
        with site.reading() as snapshot:
            kept = {**outcome.values(), "sort": sort, "order": order}  # what the bar keeps of the list
            try:
                rows, player = _hand_list(site, snapshot, filters, outcome, sort, order, page, per_page)
            except OfcError as exc:
                return _error_page(site, filters, 400, str(exc), "/hands", kept)
            bar = _bar(site, snapshot, filters, "/hands", kept)
        filters = replace(filters, player=player)
        table = _hand_table(filters, outcome, rows, sort, order, page, per_page)
        body = bar + _live(state, site.limits.poll_seconds) + table
        return HTMLResponse(_shell("Hands" + (f": {player}" if player else ""), body))

    def hand_page(request: Request) -> Response:
        filters = Filters.parse(request.query_params)
        raw = request.path_params["key"]

        def by_id() -> Response:
            """The hand whose id, as its history names it, is ``raw`` (an id may be a number that is no key)."""
            with site.reading() as snapshot:
                keys = _keys_of(site, snapshot, raw[:200])
            if len(keys) == 1:
                return RedirectResponse(f"/hand/{keys[0]}{filters.query()}", status_code=303)
            if not keys:
                raise HTTPException(404, f"no hand has the key or id {raw[:40]!r}")
            listed = ", ".join(str(k) for k in keys[:10])
            raise RequestError(f"{len(keys)} hands have the id {raw[:40]!r} (in different sources): keys {listed}")

        key = _hand_key(raw)
        if key is None:
            return by_id()
        with site.reading() as snapshot:
            try:
                viewer = _hand(site, snapshot, key, filters)
            except OfcError as exc:
                return _error_page(site, filters, 400, str(exc))
            if viewer is None:
                return by_id()
            bar = _bar(site, snapshot, filters, "/")
        ident = hand_id(key)
        data = json.dumps({"hands": viewer}, ensure_ascii=True, default=str)
        data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        head = f'<script type="application/json" id="report-hands">{data}</script>'
        hand = viewer[ident]
        said = " \u00b7 ".join(
            str(x) for x in (hand["hand_id"], hand["variant"], hand["played_at"], f"scored under {hand['rules']}") if x
        )
        link = (
            f'<a class="hand-link" href="#hand-{html.escape(ident)}" data-hand="{html.escape(ident)}">'
            "the boards with every row, the pairs and the hand under each rule set</a>"
        )
        body = (
            f"{bar}<section><p>{html.escape(said)}. Open {link}.</p></section>"
            f'<section class="hand-viewer replayer" id="replayer" data-hand="{html.escape(ident)}">'
            "<h2>Replay</h2></section>"
        )
        return HTMLResponse(_shell(f"Hand {ident}", body, ("/assets/serve.js", "/assets/report.js"), head))

    def train_page(request: Request) -> Response:
        filters = Filters.parse(request.query_params)
        state = site.state()
        with site.reading() as snapshot:
            try:
                rows, player = _costly(site, snapshot, filters)
            except OfcError as exc:
                return _error_page(site, filters, 400, str(exc), "/train")
            bar = _bar(site, snapshot, filters, "/train")
        filters = replace(filters, player=player)
        body = bar + _live(state, site.limits.poll_seconds) + _train_table(filters, rows)
        return HTMLResponse(_shell("Trainer" + (f": {player}" if player else ""), body))

    def weigh_page(request: Request) -> Response:
        """A move of the user's own at a weighed decision, rolled out on the spot (JSON): what the trainer asks."""
        query = request.query_params
        try:
            raw = (query.get("hand") or "").strip()
            hand = _hand_key(raw)
            if raw and hand is None:
                raise RequestError(f"hand: not a hand's key (a whole number below 2**64): {raw[:40]!r}")
            street = _whole(query, "street", None, 1, 13)
            player = (query.get("player") or "").strip()[:200]
            move = (query.get("move") or "").strip()[:20]
            if hand is None or street is None or not player or not move:
                raise RequestError("give hand, player, street and move (a letter a card dealt: t, m, b or x)")
            # lazy: 0.9 s of compiled simulator, loaded by the trainer's first question, not at the start
            from ofc.pipeline.analyse.choice import weigh_choice

            with site.building, site.reading() as snapshot, site.connection(snapshot) as con:
                choice = weigh_choice(con, snapshot, hand, player, street, move)
        except OfcError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400, headers={"Cache-Control": "no-store"})
        return JSONResponse(asdict(choice), headers={"Cache-Control": "no-store"})

    def state_page(request: Request) -> Response:
        return JSONResponse({"state": site.state()}, headers={"Cache-Control": "no-store"})

    def asset_page(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            raise HTTPException(404, "no such file")
        text = plotly_js() if ASSETS[name] == "plotly" else asset(ASSETS[name])
        return Response(
            text,
            media_type="text/javascript; charset=utf-8",
            headers={"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"},
        )

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        message = getattr(exc, "detail", None) or "Not Found"
        if message == "Not Found":  # the router's word for an address no page has
            message = f"no page at {request.url.path[:80]}: the pages are /, /hands and /hand/KEY"
        if status == 405:
            message = "this page is read with GET only"
        return _error_page(site, Filters(), status if 400 <= status < 500 else 404, str(message))

    async def bad_request(request: Request, exc: Exception) -> Response:
        return _error_page(site, Filters(), 400, str(exc))

    async def failed(request: Request, exc: Exception) -> Response:  # a fault of ours: said, never a traceback
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        body = f'<section><p class="serve-error">internal error: {html.escape(type(exc).__name__)}</p></section>'
        return HTMLResponse(_shell("Not available", body), status_code=500)

    return Starlette(
        routes=[
            Route("/", report_page),
            Route("/hands", hands_page),
            Route("/hand/{key}", hand_page),
            Route("/train", train_page),
            Route("/train/weigh", weigh_page),
            Route("/state", state_page),
            Route("/assets/{name}", asset_page),
        ],
        exception_handlers={
            HTTPException: not_found,
            RequestError: bad_request,
            OfcError: bad_request,
            Exception: failed,
        },
    )


def _checked(lake_filters: LakeFilters, filters: Filters) -> tuple[Found, Narrowing]:
    """The filters' matches in the lake, and the narrowing with its opponent as the lake spells them."""
    found = lake_filters.check(filters.player, filters.variant, filters.since, filters.until)
    opponent = lake_filters.check_narrowing(filters.narrowing.session, filters.narrowing.opponent)
    return found, replace(filters.narrowing, opponent=opponent, variant=filters.variant)


def _hand_list(
    site: Site,
    snapshot: Snapshot,
    filters: Filters,
    outcome: Outcome,
    sort: str,
    order: str,
    page: int,
    per_page: int,
) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the boards the filters keep (of the outcome asked for), and the player as the lake spells them.
    Narrowed, the connection keeps the boards (a place after the button too); otherwise the query narrows the hands
    itself."""
    with site.connection(snapshot) as con:
        in_lake = named.RuleSetsInLake(snapshot)
        in_lake.check_current()
        found, narrowing = _checked(site.counted(con, snapshot), filters)
        rules = in_lake.resolve(filters.rules) if filters.rules else None
        if rules is not None and (problem := in_lake.problem(rules, filters.variant)) is not None:
            raise named.NamedQueryError(problem)
        if outcome.made is not None:
            found_hands = con.execute(
                "SELECT category FROM royalty_hands WHERE row = $row UNION SELECT hand FROM royalty_hands "
                "WHERE row = $row ORDER BY 1",
                {"row": outcome.row},
            ).fetchall()
            hands = [c for (c,) in found_hands]
            if outcome.made not in hands:
                raise RequestError(suggest.no_such(f"{outcome.row} hand", outcome.made, hands))
    values = {
        **outcome.values(),
        "rules": rules,
        "player": found.player,
        "variant": filters.variant,
        "since": filters.since,
        "until": filters.until,
        "sort": sort,
        "order": order,
        "page": page,
        "per_page": per_page,
        "table_size": None,
        "session": None,
        "opponent": None,
    }
    if narrowing.position is None and narrowing.fantasyland is None:  # the query narrows by the rest itself
        values |= {"table_size": narrowing.table_size, "session": narrowing.session, "opponent": narrowing.opponent}
        narrowing = Narrowing()
    with site.connection(snapshot, narrowing) as con:
        return named.run(con, snapshot, "hand_list", values, check_filters=False).to_pylist(), found.player


def _hand_table(
    filters: Filters, outcome: Outcome, rows: list[dict[str, Any]], sort: str, order: str, page: int, per_page: int
) -> str:
    total = rows[0]["total"] if rows else 0
    first = (page - 1) * per_page
    kept = outcome.values()

    def heading(label: str, by: str | None) -> str:
        if by is None:
            return f'<th class="text">{label}</th>'
        again = "asc" if sort == by and order == "desc" else "desc"
        mark = (" ▼" if order == "desc" else " ▲") if sort == by else ""
        href = html.escape(filters.query(sort=by, order=again, **kept))
        return f'<th><a href="/hands{href}" data-sort="{by}">{label}{mark}</a></th>'

    head = "".join(
        [
            heading("Hand", None),
            heading("Played", "date"),
            heading("Game", None),
            heading("Player", None),
            heading("Rules", None),
            heading("Points", "points"),
            heading("Royalties", "royalties"),
            heading("Fouled", None),
            heading("Points lost", "ev_lost"),
        ]
    )
    body = []
    for r in rows:
        key = r["hand_key"]
        played = r["played_at"].strftime("%Y-%m-%d %H:%M") if r["played_at"] is not None else ""
        href = html.escape(f"/hand/{key}{filters.query()}")
        body.append(
            f'<tr><td class="text"><a href="{href}">{html.escape(str(r["hand_id"]))}</a></td>'
            f"<td>{played}</td><td class='text'>{html.escape(r['variant'])}</td>"
            f"<td class='text'>{html.escape(r['player'])}</td><td class='text'>{html.escape(r['rules'])}</td>"
            f"<td>{r['points']:+d}</td><td>{r['royalties']}</td><td>{'yes' if r['fouled'] else ''}</td>"
            f"<td>{'' if r['ev_lost'] is None else format(r['ev_lost'], '.2f')}</td></tr>"
        )
    last = max((total + per_page - 1) // per_page, 1)
    hands = rows[0]["hands"] if rows else None
    of = f" ({html.escape(outcome.said())})" if outcome else ""
    in_hands = f", in {hands:,} hand{'s' if hands != 1 else ''}" if hands is not None else ""
    pager = [f"<span>boards {first + 1 if rows else 0:,} to {first + len(rows):,} of {total:,}{in_hands}</span>{of}"]
    if page > 1:
        pager.append(
            f'<a href="/hands{html.escape(filters.query(sort=sort, order=order, page=page - 1, **kept))}">previous</a>'
        )
    if page < last:
        pager.append(
            f'<a href="/hands{html.escape(filters.query(sort=sort, order=order, page=page + 1, **kept))}" '
            'rel="next">next</a>'
        )
    if not rows and page > 1:  # past the last page: the count is of the pages' rows, none here
        back = html.escape(filters.query(sort=sort, order=order, **kept))
        said = (
            f"<p class='serve-error'>Page {page:,} is past the last page of these boards: "
            f'<a href="/hands{back}">the first page</a>.</p>'
        )
        return f"<section>{said}</section>"
    said = ""
    if not total:
        what = f": no {outcome.said()} among them" if outcome else ""
        said = f"<p class='serve-empty'>No board: the filters keep none{html.escape(what)}.</p>"
        return f'<section><div class="pager">{"".join(pager)}</div>{said}</section>'
    table = f'<table class="hand-list"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    return f'<section><div class="pager">{"".join(pager)}</div>{said}{table}</section>'


TRAIN_DECISIONS = 50
"""Decisions the trainer lists, the costliest first."""


def _costly(site: Site, snapshot: Snapshot, filters: Filters) -> tuple[list[dict[str, Any]], str | None]:
    """The costliest decisions the filters keep (as ``ofc analyse`` weighed them), and the player as the lake
    spells them."""
    with site.connection(snapshot) as con:
        found, narrowing = _checked(site.counted(con, snapshot), filters)
    values = {
        "player": found.player,
        "variant": filters.variant,
        "since": filters.since,
        "until": filters.until,
        "decisions": TRAIN_DECISIONS,
    }
    with site.connection(snapshot, narrowing) as con:
        return named.run(con, snapshot, "costly_decisions", values, check_filters=False).to_pylist(), found.player


def _train_table(filters: Filters, rows: list[dict[str, Any]]) -> str:
    if not rows:
        return (
            "<section><p>No decision of these hands is weighed yet: <code>ofc analyse</code> weighs every placement, "
            "discard and Fantasyland setting of played open-face hands, and the trainer asks about the costliest."
            "</p></section>"
        )
    lines = []
    for r in rows:
        which = f"{r['street']}:{r['player']}"
        href = html.escape(f"/hand/{r['hand_key']}{filters.query(train=which)}")
        lines.append(
            f"<tr><td class='text'><a href=\"{href}\">train</a></td><td class='text'>{html.escape(r['player'])}</td>"
            f"<td class='text'>{html.escape(str(r['hand_id']))}</td><td>{r['street']}</td>"
            f"<td class='text'>{html.escape(str(r['kind']))}</td><td class='text'>{html.escape(str(r['dealt']))}</td>"
            f"<td>{r['ev_lost']:.2f}</td><td>{r['se']:.2f}</td></tr>"
        )
    head = "".join(
        f"<th class='{'text' if i < 6 else ''}'>{h}</th>"
        for i, h in enumerate(("", "Player", "Hand", "Street", "Kind", "Dealt", "Points lost", "\u00b1 s.e."))
    )
    intro = (
        "<p>The costliest decisions of these hands, as <code>ofc analyse</code> weighed them: each opens the position "
        "as the player saw it; choose a move, then see the expected points of your move, of the move played and of "
        "the best move found. Your score is kept in this browser only.</p>"
    )
    table = f'<table class="hand-list"><thead><tr>{head}</tr></thead><tbody>{"".join(lines)}</tbody></table>'
    return f"<section>{intro}{table}</section>"


def _keys_of(site: Site, snapshot: Snapshot, ident: str) -> list[int]:
    """The keys of the hands whose id is ``ident`` (an id can repeat across sources)."""
    with site.connection(snapshot) as con:
        found = con.execute("SELECT hand_key FROM hands WHERE hand_id = $id ORDER BY 1 LIMIT 20", {"id": ident})
        return [k for (k,) in found.fetchall()]


def _hand(site: Site, snapshot: Snapshot, key: int, filters: Filters) -> dict[str, dict[str, Any]] | None:
    """The viewer's JSON of one hand (None: the lake has no such hand), under the rules the filters read."""
    with site.connection(snapshot) as con:
        runner = QueryRunner(snapshot, con)
        try:
            # The hand's facts from every variant's files, shared with the queries below, which read its variant's.
            facts = runner.shared.rows("hands", [key], None, None, None)
            if facts.num_rows == 0:
                return None
            variant = facts.column("variant")[0].as_py()
            in_lake = named.RuleSetsInLake(snapshot)
            in_lake.check_current()
            lead = in_lake.resolve(filters.rules) if filters.rules else None
            compared = tuple(in_lake.compared(variant))
            ask = runner.game(Scope(variant, None, None, None, lead, compared))
            if lead is None:  # the rules it was played by, as its own results name them
                # Its results under its own rules and each compared, as the pairs will read them: read once.
                own = runner.shared.rows("board_results", [key], [None, *compared], None, {variant})
                own = own.filter(own.column("native"))
                under = own.column("rules")[0].as_py() if own.num_rows else "as played"
            else:
                under = snapshot.rule_sets[lead].name
            asked = {
                "hand_key": key,
                "variant": variant,
                "scored_under": under,
                "played_at": facts.column("played_at")[0].as_py(),
            }
            return load(ask, [], None, [], shown(snapshot, variant, lead), asked=[asked])
        finally:
            runner.close()

"""The sections of a report, one module each: the overview of the lake, then each game's own sections, all built
from named queries. The static report and any other view of the lake build their figures from these."""

from reports.sections.common import Game, Section
from reports.sections.decisions import decisions
from reports.sections.fantasyland import fantasyland
from reports.sections.fouls import fouls
from reports.sections.overview import game_headline, overview
from reports.sections.player import featured
from reports.sections.results import results
from reports.sections.royalties import royalties
from reports.sections.scoring import scoring

__all__ = [
    "Game",
    "Section",
    "decisions",
    "fantasyland",
    "featured",
    "fouls",
    "game_headline",
    "overview",
    "results",
    "royalties",
    "scoring",
]

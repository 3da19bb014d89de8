"""The sections of a report, one module each: the overview of the lake, then each game's own sections, all built
from named queries. The static report and any other view of the lake build their figures from these."""

from ofc.reports.sections.common import GameView, Section
from ofc.reports.sections.decisions import decisions
from ofc.reports.sections.fantasyland import fantasyland
from ofc.reports.sections.fouls import fouls
from ofc.reports.sections.overview import game_headline, overview
from ofc.reports.sections.player import featured
from ofc.reports.sections.results import results
from ofc.reports.sections.royalties import royalties
from ofc.reports.sections.scoring import scoring

__all__ = [
    "GameView",
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

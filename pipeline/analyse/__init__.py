"""Decision analysis of played hands: what each placement, discard and Fantasyland setting cost, by rollouts."""

from pipeline.analyse.run import AnalyseError, Filters, Settings, Summary, analyse

__all__ = ["AnalyseError", "Filters", "Settings", "Summary", "analyse"]

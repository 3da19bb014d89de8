"""How much work ``ofc analyse`` puts into a decision unless told otherwise (its command's help shows them)."""

__all__ = ["DEFAULT_MOVES", "DEFAULT_ROLLOUTS"]

DEFAULT_ROLLOUTS = 32
"""Rollouts of the move played against its rival in a round (``make bench``: with the defaults, Pineapple hands
are analysed at over 20 a second on two cores, with a median standard error of the loss under half a point)."""
DEFAULT_MOVES = 5
"""Moves the planner rates best that are weighed beside the move played."""

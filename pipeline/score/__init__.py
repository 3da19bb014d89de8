"""Scoring: rule sets compiled to tables, and every pairwise comparison of every hand, vectorised."""

"""Hand histories in: one module per source format, then validation, deduplication and the lake."""

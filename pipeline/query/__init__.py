"""DuckDB over the lake: views of the committed tables, the views in ``sql/``, and read-only queries."""

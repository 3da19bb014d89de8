"""The lake's keys: stable FNV-1a hashes, whichever way they are computed."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.lake.hashing import hash_joined, hash_rows, hash_strings


def test_known_values() -> None:
    # FNV-1a 64 of "" and "a", as published.
    assert hash_strings(pa.array(["", "a", None])).tolist() == [
        0xCBF29CE484222325,
        0xAF63DC4C8601EC8C,
        0xCBF29CE484222325,
    ]
    assert hash_rows(np.frombuffer(b"a", np.uint8).reshape(1, 1)).tolist() == [0xAF63DC4C8601EC8C]


def test_joined_columns_hash_as_the_joined_strings() -> None:
    """Hand keys are hashed from the columns themselves; they must equal the hash of the joined text."""
    rng = np.random.default_rng(3)
    alphabet = ["a", "b", "é", "漢", "\x1f", "", "xyz"]
    for _ in range(100):
        n = int(rng.integers(0, 40))
        columns = [
            pa.array(
                [
                    "".join(rng.choice(alphabet, int(rng.integers(0, 4)))) if rng.random() > 0.2 else None
                    for _ in range(n)
                ],
                pa.string(),
            )
            for _ in range(3)
        ]
        joined = pc.binary_join_element_wise(*(pc.fill_null(c, "") for c in columns), "\x1f")
        assert np.array_equal(hash_joined(columns, "\x1f"), hash_strings(joined))

"""The lake's keys: stable FNV-1a hashes, whichever way they are computed."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ofc.pipeline.lake.hashing import column_hash, fold, fold_columns, hash_joined, hash_rows, hash_strings


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


def test_column_hashes_do_not_depend_on_how_a_column_is_held() -> None:
    """Record hashes outlive the layout of a table in memory: a board's cards as 13 codes or as 13 bytes, text as
    strings, large strings, dictionary codes or a slice, hash alike."""
    rng = np.random.default_rng(4)
    cards = rng.integers(0, 52, (50, 13)).astype(np.uint8)
    as_list = pa.FixedSizeListArray.from_arrays(pa.array(cards.ravel()), 13)
    as_bytes = pa.FixedSizeBinaryArray.from_buffers(pa.binary(13), 50, [None, pa.py_buffer(cards.tobytes())])
    assert np.array_equal(column_hash(as_list), column_hash(as_bytes))
    assert np.array_equal(column_hash(as_list.slice(7, 20)), column_hash(as_bytes.slice(7, 20)))
    names = pa.array([None if i % 7 == 0 else f"bot{i % 3}" for i in range(50)])
    for held in (names.cast(pa.large_string()), names.dictionary_encode(), names.cast(pa.binary())):
        assert np.array_equal(column_hash(names), column_hash(held))
    assert np.array_equal(column_hash(names)[5:], column_hash(names.slice(5)))
    both = [names, as_list, pa.array(rng.integers(-3, 3, 50), pa.int8())]
    assert np.array_equal(fold_columns(both, 50), fold([column_hash(c) for c in both], 50))

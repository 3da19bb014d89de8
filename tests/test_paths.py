"""Where commands read and write when told nothing: the project's folders in a checkout, the current
directory's for an installed ``ofc`` (never the installation's own folder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ofc.pipeline import paths


def test_a_checkout_writes_in_the_project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OFC_LAKE", raising=False)
    monkeypatch.delenv("OFC_OUT", raising=False)
    monkeypatch.chdir(tmp_path)
    assert paths.default_lake() == paths.ROOT / "data" / "lake"
    assert paths.default_out() == paths.ROOT / "data" / "out"


def test_an_installed_ofc_writes_in_the_current_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Installed, the package's parent is site-packages: no pyproject.toml there.
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(paths, "ROOT", site)
    monkeypatch.setattr(paths, "DATA", site / "data")
    monkeypatch.setattr(paths, "CHECKOUT", False)
    monkeypatch.delenv("OFC_LAKE", raising=False)
    monkeypatch.delenv("OFC_OUT", raising=False)
    work = tmp_path / "club"
    work.mkdir()
    monkeypatch.chdir(work)
    assert paths.default_lake() == work / "data" / "lake"
    assert paths.default_out() == work / "data" / "out"
    monkeypatch.setenv("OFC_LAKE", str(tmp_path / "elsewhere"))
    assert paths.default_lake() == tmp_path / "elsewhere"

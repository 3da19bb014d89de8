"""The package as a user gets it: build the sdist and the wheel, install the wheel into a fresh virtual
environment outside the checkout, and run the main commands on the samples from there.

    python -m tests.wheel_check            # what CI runs after the suite (make wheel-check)

It checks what a checkout hides: that the wheel installs one import name, ``ofc``, with the rule presets and
the SQL inside it, that the sdist carries what a wheel is built from, and that an installed ``ofc`` keeps its
lake under the current directory. Each step prints what it ran; the first failure exits 1 with the
command's output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE_PYTHON = os.environ.get("PYTHON", "python3")
"""The interpreter the fresh environment is made from (the Makefile's ``PYTHON``)."""


class CheckFailedError(Exception):
    """A step that did not do what it should."""


def run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run one step, print it with its time, and return its standard output."""
    shown = " ".join(str(a) for a in args)
    start = time.perf_counter()
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    print(f"  {time.perf_counter() - start:6.1f} s  {shown}", flush=True)
    if proc.returncode != 0:
        raise CheckFailedError(f"{shown}\nexited {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc.stdout


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise CheckFailedError(what)


def build(dist: Path) -> tuple[Path, Path]:
    """The sdist, and the wheel built from it (``python -m build`` builds the wheel from the unpacked sdist, so
    a file the sdist forgets fails here)."""
    run([sys.executable, "-m", "build", "--outdir", dist, ROOT], ROOT)
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    return sdist, wheel


def check_contents(sdist: Path, wheel: Path) -> None:
    presets = sorted(p.name for p in (ROOT / "data" / "rules").glob("*.toml"))
    queries = sorted(p.name for p in (ROOT / "sql" / "queries").glob("*.sql"))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    for folder, files in (("data/rules", presets), ("sql/queries", queries)):
        missing = [f for f in files if f"ofc/{folder}/{f}" not in names]
        expect(not missing, f"{wheel.name} lacks ofc/{folder}: {missing}")
    top = sorted({n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")})
    expect(top == ["ofc"], f"{wheel.name} installs the top-level names {top}, not ofc alone")
    samples = [n for n in names if n.startswith(("ofc/tests/", "ofc/data/samples/", "ofc/data/lake/"))]
    expect(not samples, f"{wheel.name} carries tests or data: {samples[:3]}")
    with tarfile.open(sdist) as tf:
        members = {m.split("/", 1)[1] for m in tf.getnames() if "/" in m}
    for needed in ("pyproject.toml", "README.md", "sql/views.sql", *(f"data/rules/{p}" for p in presets)):
        expect(needed in members, f"{sdist.name} lacks {needed}")
    print(f"  wheel: one top-level name, ofc; {len(presets)} presets and {len(queries)} named queries; sdist complete")


def install(wheel: Path, venv: Path) -> Path:
    run([BASE_PYTHON, "-m", "venv", venv], venv.parent)
    pip = venv / "bin" / "pip"
    run([pip, "install", "--quiet", "--disable-pip-version-check", wheel], venv.parent)
    return venv / "bin"


def use(bin_dir: Path, work: Path) -> None:
    """The commands a user runs first, from a folder that is not the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OFC_", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    ofc = bin_dir / "ofc"
    where = run([bin_dir / "python", "-c", "import ofc.pipeline; print(ofc.pipeline.__file__)"], work, env).strip()
    expect(not Path(where).is_relative_to(ROOT), f"ofc.pipeline imported from the checkout: {where}")
    bare = "import importlib.util as u; print([n for n in ('pipeline', 'schemas', 'reports') if u.find_spec(n)])"
    found = run([bin_dir / "python", "-c", bare], work, env).strip()
    expect(found == "[]", f"the install offers generic top-level names: {found}")
    helped = run([bin_dir / "python", "-m", "ofc", "--help"], work, env)
    expect("Usage" in helped, "python -m ofc --help printed no usage")
    print(f"  import ofc.pipeline from {Path(where).parent}; no pipeline, schemas or reports; python -m ofc runs")
    probe = "import importlib.util as u; print(u.find_spec('ray') is not None)"
    found = run([bin_dir / "python", "-c", probe], work, env)
    expect(found.strip() == "False", "the base install pulled in Ray, which is the ray extra's")

    presets = json.loads(run([ofc, "rules", "list", "--json"], work, env))
    names = {p["name"] for p in presets} if isinstance(presets, list) else set(presets)
    wanted = {p.stem for p in (ROOT / "data" / "rules").glob("*.toml")}
    expect(names == wanted, f"ofc rules list: {sorted(names)} against the checkout's {sorted(wanted)}")
    queries = {q["name"] for q in json.loads(run([ofc, "sql", "--list", "--json"], work, env))}
    wanted = {p.stem for p in (ROOT / "sql" / "queries").glob("*.sql")}
    expect(queries == wanted, f"ofc sql --list: {sorted(queries)} against the checkout's {sorted(wanted)}")
    print(f"  ofc rules list: {len(names)} presets; ofc sql --list: {len(queries)} named queries")

    run([ofc, "ingest", ROOT / "data" / "samples"], work, env)
    expect((work / "data" / "lake").is_dir(), "ofc ingest did not make data/lake in the current directory")
    run([ofc, "rescore"], work, env)
    report = work / "report.html"
    run([ofc, "report", "--out", report], work, env)
    expect(report.is_file() and report.stat().st_size > 10_000, f"ofc report wrote no report at {report}")
    counted = run([ofc, "sql", "SELECT count(*) AS hands FROM hands", "--json"], work, env)
    hands = json.loads(counted.splitlines()[0])["hands"]
    expect(hands > 0, "the lake holds no hands after ofc ingest")
    print(f"  ingest, rescore and report from {work}: {hands} hands, report {report.stat().st_size:,} bytes")


def main() -> int:
    start = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="ofc-wheel-"))
    try:
        print(f"building the sdist and the wheel into {scratch / 'dist'}")
        sdist, wheel = build(scratch / "dist")
        check_contents(sdist, wheel)
        print(f"installing {wheel.name} into a fresh environment")
        bin_dir = install(wheel, scratch / "venv")
        work = scratch / "club"
        work.mkdir()
        use(bin_dir, work)
    except CheckFailedError as exc:
        print(f"wheel check failed: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"wheel check passed in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

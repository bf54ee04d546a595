"""Shared fixtures: a run made the Rust way, the Rust reader's view of its rows, and the
`tengu` binary that made them.

`bash scripts/cargo.sh test --test python` (tests/python.rs) makes them and sets
TENGU_PY_FIXTURES. A plain `pytest python/tests` in your own environment (with the wheel
and torch installed, docs/python.md) makes them itself, once per session, by running
tests/python.rs's `fixtures_for_pytest` with cargo (`cargo test --release --test python`:
it builds the `tengu` binary in release, sharing the target directory and the compiled
dependencies with `maturin build --release`). TENGU_BIN names another `tengu` binary for the
command-line tests.
"""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES_TEST = "fixtures_for_pytest"
BIN_FILE = "tengu-bin.txt"


def _cargo() -> str:
    found = shutil.which("cargo")
    if found:
        return found
    rustup_default = pathlib.Path.home() / ".cargo" / "bin" / "cargo"
    if rustup_default.exists():
        return str(rustup_default)
    pytest.exit("pytest python/tests makes its fixtures (a run, the tengu binary) with cargo, "
                "which is not on the PATH: install Rust (rustup, or `bash scripts/cargo.sh "
                "--version` from the repository), or run the tests through `bash "
                "scripts/cargo.sh test --test python`", returncode=4)


def _make_fixtures(folder: pathlib.Path, config) -> None:
    cmd = [_cargo(), "test", "--release", "--test", "python", "--", "--ignored", "--exact",
           FIXTURES_TEST]
    env = dict(os.environ, TENGU_PY_MAKE_FIXTURES=str(folder))
    capture = config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\nconftest: making the fixtures with `{' '.join(cmd[1:])}` (the first time "
              f"this builds the tengu binary in release: minutes)", flush=True)
        done = subprocess.run(cmd, cwd=ROOT, env=env)
    if done.returncode != 0 or not (folder / "golden.json").exists():
        pytest.fail(f"`{' '.join(cmd)}` failed (status {done.returncode}): its output is "
                    f"above", pytrace=False)


@pytest.fixture(scope="session")
def fixtures(tmp_path_factory, pytestconfig) -> pathlib.Path:
    given = os.environ.get("TENGU_PY_FIXTURES")
    if given:
        return pathlib.Path(given)
    folder = tmp_path_factory.mktemp("rust-fixtures")
    _make_fixtures(folder, pytestconfig)
    return folder


@pytest.fixture(scope="session")
def run(fixtures) -> pathlib.Path:
    return fixtures / "run"


@pytest.fixture(scope="session")
def golden(fixtures) -> list:
    return json.loads((fixtures / "golden.json").read_text())


@pytest.fixture(scope="session")
def tengu_exe(fixtures) -> str:
    """The `tengu` binary: $TENGU_BIN, else the one that made the fixtures."""
    given = os.environ.get("TENGU_BIN")
    if given:
        return given
    named = fixtures / BIN_FILE
    if not named.exists():
        pytest.fail(f"{fixtures} does not name the tengu binary ({BIN_FILE}) and TENGU_BIN "
                    f"is not set", pytrace=False)
    return named.read_text().strip()


@pytest.fixture(scope="session")
def tengu_bin(tengu_exe):
    def call(*args: str) -> str:
        return subprocess.run([tengu_exe, *args], check=True, capture_output=True,
                              text=True).stdout

    return call

"""Shared fixtures: the run the Rust side made (tests/python.rs sets TENGU_PY_FIXTURES and
TENGU_BIN before it runs scripts/python-test.sh)."""

import json
import os
import pathlib
import subprocess

import pytest


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run these tests through `bash scripts/cargo.sh test "
                    f"--test python`, which makes the Rust fixtures first")
    return value


@pytest.fixture(scope="session")
def fixtures() -> pathlib.Path:
    return pathlib.Path(_env("TENGU_PY_FIXTURES"))


@pytest.fixture(scope="session")
def run(fixtures) -> pathlib.Path:
    return fixtures / "run"


@pytest.fixture(scope="session")
def golden(fixtures) -> list:
    return json.loads((fixtures / "golden.json").read_text())


@pytest.fixture(scope="session")
def tengu_bin():
    exe = _env("TENGU_BIN")

    def call(*args: str) -> str:
        return subprocess.run([exe, *args], check=True, capture_output=True, text=True).stdout

    return call

"""docs/python-tour.ipynb runs: every code cell in order, on the fixture run, in one
namespace (as a kernel would), its printed output checked for what each cell shows."""

import contextlib
import io
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "python-tour.ipynb"


def test_the_example_notebook_runs(run, tengu_exe, monkeypatch):
    monkeypatch.setenv("TENGU_RUN", str(run))
    monkeypatch.setenv("TENGU_BIN", tengu_exe)
    monkeypatch.setenv("TENGU_REPO", str(ROOT))
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert len(code) >= 5
    namespace = {"__name__": "__main__"}
    out = io.StringIO()
    for i, source in enumerate(code):
        with contextlib.redirect_stdout(out):
            exec(compile(source, f"{NOTEBOOK.name} cell {i + 1}", "exec"), namespace)
    text = out.getvalue()
    assert "legal moves" in text
    assert "White to move" in text, text[:2000]
    assert "win/draw/loss" in text and "plies" in text and "rows;" in text, text
    assert "a torch batch" in text, text
    assert len(namespace["game"].move_stack) == 4

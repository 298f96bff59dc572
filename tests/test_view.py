"""`ember view`: the program page holds every op's kernel, note and source, a box per planned
buffer and the peak line, and each op's instructions from a bench report; headless Chromium
(Debian's chromium, tools/setup.sh) renders it to a screenshot."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

import ember
from ember.cli import main
from ember.models import kws

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.models  # a browser start and a compile: 11 s, over the unit tier's budget
def test_view_of_kws_renders_in_chromium(tmp_path):
    model, example_inputs, calibration = kws()
    program = ember.compile(model, example_inputs, calibration=calibration[:8], target="cortex-m55")
    program.save(tmp_path / "kws.emb")
    page = tmp_path / "view" / "kws.html"
    assert main(["view", str(tmp_path / "kws.emb"), "-o", str(page), "--bench", str(ROOT / "docs" / "results.json"),
                 "--model", "kws"]) == 0
    text = page.read_text()
    info = program.inspect()
    for op in info["ops"]:
        assert op["kernel"] in text and op["source"].replace("'", "&#x27;") in text
    buffers = [b for b in info["memory"]["buffers"] if b["view_of"] < 0 and b["bytes"] > 0]
    assert text.count('class="buffer"') == len(buffers)
    assert 'class="peak"' in text and "<script" not in text and "http" not in text  # self-contained
    bench = next(r for r in json.loads((ROOT / "docs" / "results.json").read_text())["results"]
                 if r["model"] == "kws" and r["target"] == "cortex-m55" and r["plan"] == "default")
    assert f"{bench['ops'][0]['instructions']:,}</td>" in text

    shot = tmp_path / "kws.png"
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1000,1200", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1000, 1200)
    assert re.search(r"\d+ ops: \d+ optimized", text)

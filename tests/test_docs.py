"""The docs hold current truth only: docs/results.md is what `ember bench --md` writes from the
committed docs/results.json, the README's demo output agrees with that JSON, figures from the
bench appear on the results page only, and every file, link and symbol the docs name exists.
Fast and host-only: no compiler run, no QEMU."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = DOCS + [ROOT / "README.md", ROOT / "SECURITY.md"]
RESULTS = ROOT / "docs" / "results.json"

# Top-level folders of the tree: a backticked word starting with one of them is a path.
TREE_DIRS = ("runtime", "kernels", "compiler", "python", "targets", "tests", "tools", "fuzz", "schema", "docs",
             "examples", ".ci")
FILE_EXT = r"(cc|h|py|def|fbs|md|cmake|ld|c|sh|txt|json|toml)"
# Files the docs name that the tools write, not the tree: `ember export-c`'s output, the
# firmware's case files, a user's project.
GENERATED = {"model.h", "model.c", "model_kernels.cc", "fw.json", "bench.json", "bench.md", "program_generated.h"}
# Names that are no source symbol: C++ keywords the portability rules forbid, and export-c's
# macros, which firmware.py writes with the model's prefix (MODEL_ by default).
NOT_SYMBOLS = {"dynamic_cast", "thread_local", "typeid"}
# Where a symbol must be found (not the docs themselves).
SOURCE_DIRS = ("runtime", "kernels", "compiler", "python", "targets", "schema", "fuzz", "tools", "tests",
               "examples")
SOURCE_EXT = {".h", ".cc", ".c", ".py", ".def", ".fbs", ".cmake", ".ld", ".sh", ".txt", ".toml"}


def _results() -> dict:
    return json.loads(RESULTS.read_text())


def _prose(text: str) -> str:
    """The text outside fenced code blocks."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", _prose(text))


def test_results_page_is_what_the_json_gives():
    from ember.bench import render_page

    page = (ROOT / "docs" / "results.md").read_text()
    assert render_page(_results()) == page, (
        "docs/results.md differs from what docs/results.json renders to: run `ember bench --from-json "
        "docs/results.json --md docs/results.md` (or measure again with the command on the page)")


def test_ops_page_is_what_the_tables_give():
    from ember.ops_table import markdown

    assert (ROOT / "docs" / "ops.md").read_text() == markdown(), (
        "docs/ops.md differs from the op tables: run `python3 -m ember.ops_table > docs/ops.md`")


def test_ops_page_names_only_known_ops_and_kernels():
    """Every Ember op the aten table names is in ops.def, and every kernel ops.def names is in
    kernels.def; every kernel belongs to some op."""
    from ember import _ember

    ops = {op["kind"]: op for op in _ember.ops()}
    kernels = {k["name"] for k in _ember.kernels()}
    assert {row["op"] for row in _ember.aten_ops()} - {""} <= set(ops)
    claimed = {k for op in ops.values() for k in op["kernels"].split()}
    assert claimed == kernels, (claimed - kernels, kernels - claimed)


def test_results_cover_the_bench_and_match_the_host():
    report = _results()
    pairs = {(r["model"], r["target"]) for r in report["results"] if r.get("plan") == "default"}
    assert pairs == {(m, t) for m in ("kws", "vww", "ic", "ad", "sww")
                     for t in ("cortex-m55", "cortex-m4", "cortex-m3")}
    assert all(r["status"] == "pass" and r["mismatches"] == 0 for r in report["results"])


def _demo_block() -> str:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```\n(compiled keyword spotting.*?)```", readme, re.S)
    assert block, "README.md: the demo's output block is missing"
    return block.group(1)


def test_readme_demo_figures_are_the_results_pages():
    r = next(x for x in _results()["results"]
             if (x["model"], x["target"], x.get("plan")) == ("kws", "cortex-m55", "default"))
    p, ram = r["program"], r["ram"]
    arena = sum(ram["arena"].values())
    regions = ", ".join(f"{k} {v:,} B" for k, v in ram["arena"].items())
    expected = [
        f"out/kws.emb: {p['file_bytes']:,} bytes ({p['constant_bytes']:,} of constants), {p['ops']} ops, "
        f"{p['kernels']} kernels",
        f"planned RAM: {regions}; lower bound {ram['lower_bound']:,} B, peak at {p['peak_op']}",
        f"pass: {r['instructions']:,} instructions per inference, outputs bit-identical",
        f"{r['instructions']:,} instructions per inference; RAM {ram['total']:,} B (arena {arena:,} + runtime "
        f"{ram['runtime_state']} + stack {ram['stack']}); flash {r['flash']['elf_text_data']:,} B",
    ]
    block = _demo_block()
    for line in expected:
        assert line in block, f"README.md's demo output should read: {line}"


def test_bench_figures_only_on_the_results_page():
    """Instruction counts and MACs per instruction are the bench's: other pages link to
    docs/results.md instead of copying them."""
    figure = re.compile(r"\b\d{1,3}(,\d{3})+\s+instructions\b|\b\d+\.\d+\s+MACs?/instr")
    for page in PAGES:
        if page.name == "results.md":
            continue
        text = page.read_text()
        if page.name == "README.md":
            text = text.replace(_demo_block(), "")
        found = [m.group(0) for m in figure.finditer(text)]
        assert not found, f"{page.relative_to(ROOT)} states bench figures {found}; link to docs/results.md"


def _expand(path: str) -> list[str]:
    """`a/b.{h,cc}` -> a/b.h, a/b.cc; `<op>` and `*` become glob wildcards."""
    m = re.search(r"\{([^}]*)\}", path)
    if m:
        return [q for alt in m.group(1).split(",") for q in _expand(path[:m.start()] + alt + path[m.end():])]
    return [re.sub(r"<[^>]*>", "*", path)]


def _exists(path: str) -> bool:
    return any(any(ROOT.glob(p.rstrip("/"))) if "*" in p else (ROOT / p).exists() for p in _expand(path))


_BASENAMES: set[str] | None = None


def _basenames() -> set[str]:
    global _BASENAMES
    if _BASENAMES is None:
        _BASENAMES = {p.name for d in TREE_DIRS + (".",) for p in (ROOT / d).rglob("*")
                      if "build" not in p.relative_to(ROOT).parts[:1]}
    return _BASENAMES


def _paths(text: str) -> list[str]:
    """Backticked words that name a file or folder of the tree."""
    out = []
    for span in _spans(text):
        for word in span.split():
            word = word.strip(",;:()")
            if word.startswith(tuple(d + "/" for d in TREE_DIRS)):
                out.append(word.split("#")[0].split(":")[0])
            elif re.fullmatch(r"[\w.{},<>*-]+\." + FILE_EXT, word) and "/" not in word:
                out.append(word)
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_docs_name_existing_files(page):
    missing = []
    for path in _paths(page.read_text()):
        if "/" in path:
            if not _exists(path):
                missing.append(path)
        elif path not in GENERATED and not any(
                any(name == b or ("*" in name and Path(b).match(name)) for b in _basenames())
                for name in _expand(path)):
            missing.append(path)
    assert not missing, f"{page.relative_to(ROOT)} names files that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_docs_link_to_existing_pages(page):
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _prose(page.read_text()))
    missing = [link for link in links if not link.startswith(("http:", "https:", "../"))
               and not (page.parent / link).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to pages that do not exist: {missing}"


_SOURCE_WORDS: set[str] | None = None


def _source_words() -> set[str]:
    global _SOURCE_WORDS
    if _SOURCE_WORDS is None:
        words = set()
        files = [p for d in SOURCE_DIRS for p in (ROOT / d).rglob("*") if p.suffix in SOURCE_EXT]
        files += [ROOT / "CMakeLists.txt", ROOT / "pyproject.toml"]
        for p in files:
            if p.is_file() and p.name != "test_docs.py":
                words.update(re.findall(r"\w+", p.read_text(errors="replace")))
        _SOURCE_WORDS = words
    return _SOURCE_WORDS


def _symbols(text: str) -> list[tuple[str, list[str]]]:
    """Backticked C++ and Python names: `a::b`, `f()`, `f(args)`, `snake_case` and `EMBER_MACRO`
    words, with the identifiers each must be made of. Dotted names outside ember are skipped."""
    out = []
    for span in _spans(text):
        s = span.strip()
        if " " in s.split("(")[0] or s.startswith(("-", "$")) or "=" in s.split("(")[0]:
            continue
        name = re.sub(r"<[^<>]*>", "", s.split("(")[0])       # template arguments
        if "::" in name or s.endswith(")") and re.fullmatch(r"[\w:.]+", name):
            parts = [p for p in re.split(r"::|\.", name) if p and "*" not in p]
        elif re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+|EMBER_[A-Z0-9_]+|k[A-Z]\w+", name):
            parts = [name]
        else:
            continue
        if name.startswith(("torch.", "torchao.", "np.", "numpy.", "flatbuffers::", "std::", "MODEL_")) or \
                name in NOT_SYMBOLS:
            continue
        out.append((s, [p for p in parts if re.fullmatch(r"[A-Za-z_]\w*", p)]))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_docs_name_existing_symbols(page):
    words = _source_words()
    missing = [s for s, parts in _symbols(page.read_text()) if any(p not in words for p in parts)]
    assert not missing, f"{page.relative_to(ROOT)} names symbols no source file has: {missing}"


def test_docs_stay_short():
    lines = sum(len(p.read_text().splitlines()) for p in DOCS)
    assert lines < 2000, f"docs/ holds {lines} lines; the guide is to stay under 2,000 with the results page"

"""The documentation's links and images resolve: every relative link and image in README.md and docs/*.md
names a file that exists, and every #anchor a heading of its page (GitHub's anchors); every figure under
docs/figures/ is shown by a page; every variable of every shipped FMU is named in docs/models.md."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")  # [text](target), ![alt](src)
HTML = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
EXTERNAL = ("http://", "https://", "mailto:", "ftp://")


def prose(text: str) -> str:
    """The text without fenced code blocks and inline code spans (links there are not links)."""
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", text, flags=re.DOTALL)


def anchors(page: Path) -> set:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped (letters of any script,
    digits, '_', '-' and spaces kept), spaces to '-', a repeated anchor suffixed -1, -2, ..."""
    seen, out = {}, set()
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    for match in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.MULTILINE):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))  # a link's text
        title = re.sub(r"<[^>]+>", "", title).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def targets(page: Path):
    text = prose(page.read_text(encoding="utf-8"))
    for match in (*LINK.finditer(text), *HTML.finditer(text)):
        yield match.group(1)


CASES = [(page, target) for page in PAGES for target in targets(page) if not target.startswith(EXTERNAL)]


def test_there_are_pages_and_links():
    assert (ROOT / "docs" / "models.md") in PAGES and len(CASES) > 100


@pytest.mark.parametrize("page, target", CASES, ids=[f"{p.relative_to(ROOT)}:{t}" for p, t in CASES])
def test_link_resolves(page, target):
    path, _, fragment = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    assert file.exists(), f"{page.relative_to(ROOT)} links to {target}: no file {file}"
    if fragment:
        assert file.suffix == ".md", f"{page.relative_to(ROOT)} links to {target}: an anchor in a non-page"
        assert fragment in anchors(file), (f"{page.relative_to(ROOT)} links to {target}: {file.name} has no "
                                           f"heading with that anchor (it has: {sorted(anchors(file))})")


def test_every_figure_is_shown():
    """A figure that no page shows is a left-over of docs/make_figures.py or of a page."""
    shown = {(page.parent / target.partition("#")[0]).resolve() for page, target in CASES}
    figures = sorted((ROOT / "docs" / "figures").rglob("*.png"))
    assert figures
    unused = [str(f.relative_to(ROOT)) for f in figures if f.resolve() not in shown]
    assert not unused, f"figures no page shows: {unused}"


def test_models_page_names_every_variable_of_every_fmu():
    """docs/models.md names each variable of each FMU of fmu_src/ (an indexed one as name[i], name[1..n]
    or itself) in the model's section."""
    sys.path.insert(0, str(ROOT))
    import build_fmu

    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (\w+)\n(.*?)(?=^## |\Z)", text, flags=re.MULTILINE | re.DOTALL))
    common = text[: text.index("\n## SliderCrank")]  # the intro and the conventions (the bristle parameters)
    missing = {}
    for script in sorted(build_fmu.SOURCES.glob("*.py")):
        cls = build_fmu.slave_class(script)
        section = sections.get(cls.__name__)
        assert section is not None, f"docs/models.md has no section ## {cls.__name__}"
        # a section that refers to another model's variables ("those of [SliderCrank](#slidercrank)")
        others = [body for name, body in sections.items() if name != cls.__name__ and f"(#{name.lower()})" in section]
        names = set(re.findall(r"`([^`]+)`", section + common + "".join(others)))
        words = {w for n in names for w in re.split(r"[,\s]+", n)}
        absent = []
        for v in cls.variables:
            base = re.sub(r"\[\d+\]$", "", v.name)
            if v.name in words or (base != v.name and any(w.startswith(base + "[") for w in words)):
                continue
            if v.name in BRISTLE and "friction_model" in words:  # the shared bristle parameters' table
                continue
            absent.append(v.name)
        if absent:
            missing[cls.__name__] = absent
    assert not missing, f"variables docs/models.md does not name: {missing}"


BRISTLE = ("sigma0", "sigma1", "sigma2", "v_s", "delta", "z_ba_ratio")


def test_the_readme_library_example_runs():
    """The README's Python block runs as written (its imports are the package's public places) and finds
    the stick-slip events it prints."""
    import contextlib
    import io

    blocks = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"),
                        flags=re.MULTILINE | re.DOTALL)
    assert blocks, "README.md has no Python block"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})
    assert "[" in out.getvalue() and len(out.getvalue().split("]")) >= 3, out.getvalue()

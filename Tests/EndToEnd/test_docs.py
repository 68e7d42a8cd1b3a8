"""The documentation: every link leads somewhere, the README stays a front door, the command line
reference is the binary's own help, and `--version` names the commit."""
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

from harness import BINARY as ONAIR

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", ROOT / "BENCHMARKS.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"!?\[(?:[^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose_lines(text, headings=False):
    """The lines outside fenced code blocks. For links, also outside indented blocks and with inline
    code spans removed; for headings (`headings=True`) as they are, since anchors keep a code
    span's text."""
    fenced = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if headings:
            yield line
        elif not line.startswith("    "):
            yield re.sub(r"`[^`]*`", "", line)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page):
    found, seen = set(), {}
    for line in prose_lines(page.read_text(), headings=True):
        match = re.match(r"#{1,6} (.*)", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def test_slug_follows_githubs_rule():
    assert slug("Pushing to an HTTP ingest: onair vs ffmpeg `-method PUT`") == \
        "pushing-to-an-http-ingest-onair-vs-ffmpeg--method-put"
    assert slug("A ladder of qualities: onair vs ffmpeg's split/scale/var_stream_map") == \
        "a-ladder-of-qualities-onair-vs-ffmpegs-splitscalevar_stream_map"


def test_every_link_in_the_docs_leads_somewhere():
    checked, broken = 0, []
    for page in PAGES:
        for number, line in enumerate(prose_lines(page.read_text()), 1):
            for target in LINK.findall(line):
                checked += 1
                where = f"{page.relative_to(ROOT)}: {target}"
                parsed = urlparse(target)
                if parsed.scheme in ("http", "https"):
                    # No network here: an outside address must at least be a whole URL.
                    if not parsed.netloc:
                        broken.append(f"{where} (not a whole URL)")
                    continue
                if parsed.scheme:
                    broken.append(f"{where} (scheme {parsed.scheme})")
                    continue
                destination = (page.parent / unquote(parsed.path)).resolve() if parsed.path else page
                if not destination.exists():
                    broken.append(f"{where} (no such file)")
                elif parsed.fragment and (destination.suffix != ".md"
                                          or parsed.fragment not in anchors(destination)):
                    broken.append(f"{where} (no such heading)")
    assert checked > 50, checked
    assert broken == [], "\n".join(broken)


def test_the_readme_is_a_front_door_to_every_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 16 * 1024, len(readme.encode())
    linked = {target.split("#")[0] for line in prose_lines(readme) for target in LINK.findall(line)}
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")}
    assert pages - linked == set(), "pages the README does not link to"
    assert "scripts/run.sh" in readme and "scripts/test.sh" in readme
    assert (ROOT / "docs/images/watch-page.png").stat().st_size > 10_000


def test_the_command_line_reference_is_the_help():
    generated = subprocess.run([ROOT / "scripts/cli-reference.sh", "-"], capture_output=True, text=True,
                               env={**os.environ, "ONAIR_BINARY": ONAIR}, timeout=60, check=True).stdout
    assert (ROOT / "docs/cli.md").read_text() == generated, \
        "docs/cli.md is not the binary's help: run scripts/cli-reference.sh"
    # And each section is what `--help` prints at that width, the publish options included.
    publish = subprocess.run([ONAIR, "publish", "--help"], capture_output=True, text=True, timeout=30,
                             env={**os.environ, "COLUMNS": "100"}).stdout
    assert publish in generated and "--watermark" in publish and "--frame-rate" in publish


def test_version_names_the_release_and_the_commit():
    result = subprocess.run([ONAIR, "--version"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    match = re.fullmatch(r"onair (\d+\.\d+\.\d+) \(commit ([0-9a-f]{12}|unknown)\)\n", result.stdout)
    assert match, result.stdout
    if (ROOT / ".git").exists() and os.environ.get("ONAIR_BINARY", "").startswith(str(ROOT)):
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        assert match.group(2) == head[:12], (match.group(2), head)


def test_the_control_reference_names_every_event_and_metric():
    reference = (ROOT / "docs/control.md").read_text()
    sources = "\n".join(path.read_text() for path in (ROOT / "Sources").rglob("*.swift"))
    # Each feature declares its event codes beside it: `static let pushFailed = Self("push_failed", …)`.
    codes = set(re.findall(r"static let \w+ = (?:Self|Code)\(\"(\w+)\"", sources))
    metrics = set(re.findall(r"\"(onair_[a-z_]+)\"", sources))
    assert len(codes) > 20 and len(metrics) > 15, (codes, metrics)
    assert {code for code in codes if f"`{code}`" not in reference} == set()
    assert {metric for metric in metrics if f"`{metric}`" not in reference} == set()


def test_every_unchecked_sendable_is_explained_in_the_architecture():
    """The compiler checks what crosses a thread except where a type says `@unchecked Sendable`:
    each such type says why beside it, and is in docs/architecture.md's table."""
    declared = re.compile(r"(?:class|struct|enum)\s+(\w+)[^{\n]*@unchecked Sendable")
    section = (ROOT / "docs/architecture.md").read_text().split("## Why each `@unchecked Sendable` stays", 1)
    assert len(section) == 2, "docs/architecture.md has no section on @unchecked Sendable"
    unexplained, missing = [], []
    for path in sorted((ROOT / "Sources").rglob("*.swift")):
        lines = path.read_text().split("\n")
        for number, line in enumerate(lines):
            match = declared.search(line)
            if not match:
                continue
            if not any("Unchecked Sendable:" in above for above in lines[max(0, number - 4):number]):
                unexplained.append(f"{path.relative_to(ROOT)}:{number + 1}")
            if f"`{match.group(1)}`" not in section[1]:
                missing.append(match.group(1))
    assert not unexplained, f"@unchecked Sendable without its reason beside it: {unexplained}"
    assert not missing, f"@unchecked Sendable types not in docs/architecture.md: {missing}"

#!/usr/bin/env python3
"""Checks of the documentation against the repository.

    check_docs.py links REPO_ROOT FILE.md...
        Every relative link resolves inside the repository: the file exists,
        and a #fragment names a heading of the Markdown file it points at
        (GitHub's heading slugs). Links that leave the repository (../ past
        its root) fail: a clone must be complete.
    check_docs.py snippets REPO_ROOT FILE.md...
        Every code block preceded by a line `<!-- snippet: PATH -->` is
        exactly the text between the lines `/* snippet begin */` and
        `/* snippet end */` of PATH, a file that a test compiles and runs.

Prints each problem as file:line: what; exits 1 if any (or if no snippet
was found: a check that checked nothing)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The file's lines outside fenced code blocks, inline code removed."""
    out: list[tuple[int, str]] = []
    in_fence = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            out.append((number, INLINE_CODE.sub("", line)))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped,
    spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    result: set[str] = set()
    for _, line in prose_lines(path):
        match = HEADING.match(line)
        if match is None:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def problem(root: Path, source: Path, target: str) -> str | None:
    """Why `target`, linked from `source`, does not resolve; None if it does."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return None  # http:, https:, mailto: — not ours to check offline
    file_part, _, fragment = target.partition("#")
    dest = (source.parent / file_part).resolve() if file_part else source.resolve()
    if root not in dest.parents and dest != root:
        return "points outside the repository"
    if not dest.exists():
        return "no such file"
    if fragment and dest.suffix == ".md" and fragment not in anchors(dest):
        return f"no heading #{fragment} in {dest.relative_to(root)}"
    return None


def check_links(root: Path, pages: list[Path]) -> int:
    broken = checked = 0
    for source in pages:
        for number, line in prose_lines(source):
            for match in LINK.finditer(line):
                checked += 1
                why = problem(root, source, match.group(1))
                if why is not None:
                    broken += 1
                    print(f"{source.relative_to(root)}:{number}: {match.group(1)}: {why}")
    print(f"check_docs links: {checked} links in {len(pages)} files, {broken} broken")
    return 1 if broken else 0


SNIPPET = re.compile(r"^<!-- snippet: (\S+) -->$")


def marked_region(path: Path) -> str | None:
    """The lines between the snippet markers of `path`, or None."""
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        begin = lines.index("/* snippet begin */")
        end = lines.index("/* snippet end */", begin)
    except ValueError:
        return None
    return "\n".join(lines[begin + 1:end])


def doc_snippets(page: Path) -> list[tuple[int, str, str | None]]:
    """(line, path, code) for each snippet marker; code is None when no
    code block follows the marker."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, str, str | None]] = []
    for i, line in enumerate(lines):
        match = SNIPPET.match(line.strip())
        if match is None:
            continue
        start = i + 1
        if start >= len(lines) or not FENCE.match(lines[start]):
            found.append((i + 1, match.group(1), None))
            continue
        end = next((j for j in range(start + 1, len(lines)) if FENCE.match(lines[j])), len(lines))
        found.append((i + 1, match.group(1), "\n".join(lines[start + 1:end])))
    return found


def check_snippets(root: Path, pages: list[Path]) -> int:
    bad = total = 0
    for page in pages:
        for number, name, code in doc_snippets(page):
            total += 1
            region = marked_region(root / name) if (root / name).is_file() else None
            where = f"{page.relative_to(root)}:{number}: {name}"
            if region is None:
                why = "no such file, or it has no snippet markers"
            elif code is None:
                why = "no code block follows the marker"
            elif code != region:
                why = "the code block differs from the file's marked region"
            else:
                continue
            bad += 1
            print(f"{where}: {why}")
    print(f"check_docs snippets: {total} snippets, {bad} wrong")
    return 1 if bad or total == 0 else 0


def main(argv: list[str]) -> int:
    checks = {"links": check_links, "snippets": check_snippets}
    if len(argv) < 4 or argv[1] not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[2]).resolve()
    return checks[argv[1]](root, [Path(name).resolve() for name in argv[3:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv))

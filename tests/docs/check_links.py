#!/usr/bin/env python3
"""Checks that every relative link in the given Markdown files resolves
inside the repository: the file exists, and a #fragment names a heading of
the Markdown file it points at (GitHub's heading slugs). Links that leave
the repository (../ past its root) fail: a clone must be complete.

    check_links.py REPO_ROOT FILE.md...

Prints each broken link as file:line: target: why; exits 1 if any."""
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


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1]).resolve()
    broken = 0
    checked = 0
    for name in argv[2:]:
        source = Path(name).resolve()
        for number, line in prose_lines(source):
            for match in LINK.finditer(line):
                checked += 1
                why = problem(root, source, match.group(1))
                if why is not None:
                    broken += 1
                    print(f"{source.relative_to(root)}:{number}: {match.group(1)}: {why}")
    print(f"check_links: {checked} links in {len(argv) - 2} files, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

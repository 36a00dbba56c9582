"""Every relative link in the README and docs/ points at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_relative_links_resolve():
    broken = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address, or an anchor in the same page
            path = target.split("#", 1)[0]
            if not (doc.parent / path).exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_readme_lists_every_doc():
    """The README's Documentation section names every page of docs/."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    index = readme.split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    listed = set(LINK.findall(index))
    missing = [f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md"))
               if f"docs/{p.name}" not in listed]
    assert not missing, "not in the README's Documentation section: " + ", ".join(missing)

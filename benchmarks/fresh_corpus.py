"""A corpus the designer was never developed on: the long descriptions of this machine's Debian
packages (``/var/lib/dpkg/status``), as the JSONL corpus ``spadework run`` reads (one document a
line: id, domain, text). The documents are software descriptions, a domain the bundled corpus
(stdlib docs and five science and game domains) does not hold.

    python benchmarks/fresh_corpus.py --count 24 --seed 7 > results/gate/fresh-corpus.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

STATUS = Path("/var/lib/dpkg/status")


def descriptions(text: str) -> dict[str, str]:
    """Each package's long description (its continuation lines joined), by package name.

    >>> descriptions("Package: a\\nDescription: short\\n a long line\\n .\\n more\\n\\nPackage: b\\n")
    {'a': 'short. a long line more'}
    """
    found = {}
    for stanza in text.split("\n\n"):
        name = re.search(r"^Package: (\S+)", stanza, re.MULTILINE)
        body = re.search(r"^Description: (.*(?:\n .*)*)", stanza, re.MULTILINE)
        if name and body:
            first, *rest = body.group(1).split("\n")
            lines = [line.strip() for line in rest if line.strip() != "."]
            found[name.group(1)] = ". ".join([first.strip(), " ".join(lines)]) if lines else first.strip()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--min-chars", type=int, default=400)
    args = parser.parse_args()
    found = descriptions(STATUS.read_text(encoding="utf-8", errors="replace"))
    long = sorted(name for name, text in found.items() if len(text) >= args.min_chars)
    for name in random.Random(args.seed).sample(long, min(args.count, len(long))):
        print(json.dumps({"id": f"debian-{name}", "domain": "software", "text": found[name]}))


if __name__ == "__main__":
    main()

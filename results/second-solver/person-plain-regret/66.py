import re


def solve(observation):
    """Letter by letter along the first word: '!' where the second word has the same letter, '?' where
    it does not (or has no letter there), as the text asks."""
    first, second = re.search(r"The first list is (\w+)\. The second list is (\w+)\.", observation).groups()
    return str(["!" if i < len(second) and c == second[i] else "?" for i, c in enumerate(first)])

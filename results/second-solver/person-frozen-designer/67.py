import re


def solve(observation):
    """"The two lists of strings: cherry and banana", each element True where the two are equal: a
    reader sees two one-element lists and answers one comparison."""
    first, second = re.search(r"lists of strings: (\w+) and (\w+)", observation).groups()
    return str([first == second])

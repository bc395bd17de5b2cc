import re


def solve(observation):
    """"Add a number to B. The result should be between 1 and 100.": the number to add is never
    given, so any result in range answers the text; a reader adds 1."""
    base = int(re.search(r"Add a number to (\d+)\.", observation).group(1))
    return str(base + 1)

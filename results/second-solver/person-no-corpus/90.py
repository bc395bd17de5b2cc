import re


def solve(observation):
    """"Two numbers are chosen: A and B. What is their sum?": A + B."""
    a, b = re.search(r"chosen: (-?\d+) and (-?\d+)\.", observation).groups()
    return str(int(a) + int(b))

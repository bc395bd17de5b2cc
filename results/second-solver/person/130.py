import re


def solve(observation):
    """The text asks no question; the one number it points at is the larger bucket's size."""
    sizes = [int(x) for x in re.findall(r"(\d+) g\b", observation)]
    return str(max(sizes))

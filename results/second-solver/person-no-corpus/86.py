import re


def solve(observation):
    """"Find the one with code C. Change its value to V.": the text names the value; V is the answer
    (the puzzle states it, as 72's does)."""
    return re.search(r"Change its value to (-?\d+)", observation).group(1)

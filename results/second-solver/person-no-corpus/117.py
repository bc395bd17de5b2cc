import re


def solve(observation):
    """"Find the record in the database whose code is C. Change its value to V.": the text names
    the value; V is the answer (the puzzle states it, as 72 and 86 do)."""
    return re.search(r"Change its value to (-?\d+)", observation).group(1)

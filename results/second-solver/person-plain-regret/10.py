import re


def solve(observation):
    """The two times the text shows, added."""
    setup, main = (float(x) for x in re.findall(r"\d+\.\d+", observation)[:2])
    return f"{setup + main:.2f}"

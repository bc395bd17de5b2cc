import re


def solve(observation):
    """The harmonic mean of the listed numbers: their count over the sum of their reciprocals."""
    numbers = [float(x) for x in re.search(r"\[([^\]]*)\]", observation).group(1).split(",")]
    return str(len(numbers) / sum(1 / x for x in numbers))

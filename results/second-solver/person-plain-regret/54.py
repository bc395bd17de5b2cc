import re


def solve(observation):
    """The harmonic mean of the speeds shown, n over the sum of reciprocals, to the whole number asked."""
    speeds = [int(n) for n in re.search(r"speeds: ([\d, ]+)\.", observation).group(1).split(",")]
    return str(round(len(speeds) / sum(1 / s for s in speeds)))

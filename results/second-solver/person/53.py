import re


def solve(observation):
    """The harmonic mean of the speeds the text lists (the weights are not shown, so none apply)."""
    speeds = [int(x) for x in re.search(r"\[([^\]]*)\]", observation).group(1).split(",")]
    return str(len(speeds) / sum(1 / s for s in speeds))

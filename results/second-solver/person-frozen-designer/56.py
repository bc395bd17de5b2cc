import re


def solve(observation):
    """Two quantities of water mixed, no amounts given: a reader takes equal amounts, the mean."""
    first, second = (float(x) for x in re.findall(r"Mix (\d+) degrees water .* with (\d+) degrees", observation)[0])
    return str((first + second) / 2)

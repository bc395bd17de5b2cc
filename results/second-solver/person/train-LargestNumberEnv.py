import re


def solve(observation):
    """The largest whole number below n."""
    return str(int(re.findall(r"\d+", observation)[0]) - 1)

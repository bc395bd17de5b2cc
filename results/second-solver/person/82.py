import re


def solve(observation):
    """A split by two doubles the shares the text gives; the price does not change their number."""
    shares = int(re.findall(r"\d+", observation)[0])
    return str(shares * 2)

import re


def solve(observation):
    """The adjusted exponent of a one-digit number written with exponent E (N x 10^E) is E."""
    number, exponent = (int(x) for x in re.findall(r"\d+", observation)[:2])
    return str(exponent + len(str(number)) - 1)

import re


def solve(observation):
    """The text states the formula and both values: Emax - prec + 1."""
    emax = int(re.search(r"Emax = (-?\d+)", observation).group(1))
    prec = int(re.search(r"prec = (-?\d+)", observation).group(1))
    return str(emax - prec + 1)

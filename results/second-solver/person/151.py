import re


def solve(observation):
    """The base, power and modulus as written (the base negative); the residue in [0, modulus)."""
    base, power, modulus = (int(x) for x in re.findall(r"-?\d+", observation)[:3])
    return str(pow(base, power, modulus))

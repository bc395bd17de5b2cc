import math
import re


def solve(observation):
    """The product of the numbers listed."""
    return str(math.prod(int(n) for n in re.search(r"iterable \[([\d, ]+)\]", observation).group(1).split(",")))

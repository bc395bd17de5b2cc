import math
import re


def solve(observation):
    """Two numbers x - y = d, x * y = p: one whole number is asked for, so a reader gives the larger
    root x = (d + sqrt(d^2 + 4p)) / 2, rounded when the numbers are not whole."""
    d, p = (int(x) for x in re.search(r"difference is (-?\d+) and product is (-?\d+)", observation).groups())
    disc = d * d + 4 * p
    if disc < 0:
        return "no such numbers"
    return str(round((d + math.sqrt(disc)) / 2))

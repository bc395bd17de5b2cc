import re
from decimal import Decimal


def solve(observation):
    """The adjusted exponent of a number is the exponent of its leading digit (Decimal.adjusted):
    0 for any of 1-9."""
    number = re.search(r"adjusted exponent of (-?[\d.]+)", observation).group(1).rstrip(".")
    return str(Decimal(number).adjusted())

import re
from decimal import Decimal


def solve(observation):
    """"Calculate the adjusted exponent of N.": Decimal(N).adjusted(), the exponent of N's leading digit."""
    number = re.search(r"adjusted exponent of (-?\d+)", observation).group(1)
    return str(Decimal(number).adjusted())

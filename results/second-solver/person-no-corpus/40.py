import re


def solve(observation):
    """P dollars a book, a customer with C dollars: the books C dollars buy, C // P (the quantity the
    customer wanted does not change what the money buys)."""
    price, money = (int(x) for x in re.search(
        r"at (\d+) dollars per book\. A customer wants to buy \d+ books for (\d+) dollars", observation).groups())
    return str(money // price)

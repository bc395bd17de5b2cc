import re


def solve(observation):
    """A balance paid off at a fixed monthly payment, no interest stated: the months it takes are
    the balance over the payment, rounded up (the last month pays the remainder)."""
    balance, payment = (int(x) for x in re.findall(r"balance of (\d+) dollars .* payment of (\d+) dollars", observation)[0])
    return str(-(-balance // payment))

import re


def solve(observation):
    """Months to pay off the balance at the stated monthly interest, paying the stated amount each
    month (the last payment may be smaller); none when the payment never covers the interest."""
    balance, rate, payment = (float(x) for x in re.findall(r"\d+(?:\.\d+)?", observation)[:3])
    rate /= 100
    if payment <= balance * rate:
        return "never"
    months = 0
    while balance > 0:
        balance = balance * (1 + rate) - payment
        months += 1
    return str(months)

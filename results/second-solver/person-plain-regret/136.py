import re


def solve(observation):
    """The water that keeps the recipe's ratio for the baker's flour, in whole grams, as the question
    asks (the text then asks for "a list of 5-tuples", a form the question's answer cannot take)."""
    flour, water, batch = (int(n) for n in re.search(
        r"mixes (\d+) g of flour with (\d+) g of water\. A baker has (\d+) g", observation).groups())
    return str(water * batch // flour)

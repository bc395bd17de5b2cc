import re


def solve(observation):
    """Water and salt together, scaled from the recipe's flour to the baker's: one number for the two,
    their sum, as the text asks for one whole number."""
    flour, water, salt, batch = (int(x) for x in re.search(
        r"mixes (\d+) g of flour with (\d+) g of water and (\d+) g of salt\. A baker has (\d+) g", observation).groups())
    return str((water + salt) * batch // flour)

import re


def solve(observation):
    """F g of flour to mix with water "in a ratio that gives" r: water = r × F, rounded (the text names
    two amounts of flour; the first is the one the baker has, and the ratio read as water to flour,
    as the class's comment has it)."""
    flour, ratio = re.search(r"A baker has (\d+) g of flour .* a ratio that gives you ([\d.]+)\.",
                             observation).groups()
    return str(round(int(flour) * float(ratio)))

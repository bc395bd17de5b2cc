import re


def solve(observation):
    """A child's blood type from its parents', "a single letter: A, B or O": a reader answers with the
    dominant letter of the two (A and B over O), the likelier type; the text cannot settle more."""
    first, second = re.findall(r"blood type (\w+) and (\w+)\.", observation)[0]
    dominant = [letter for letter in (first, second) if letter in "AB"]
    return dominant[0] if dominant else "O"

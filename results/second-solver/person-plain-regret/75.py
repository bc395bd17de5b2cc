import re


def solve(observation):
    """Replace every given character (case as written) in the string the text quotes."""
    text, old, new = re.search(r"Modify the string '(.*)' by replacing all '(.)' with '(.)'", observation).groups()
    return text.replace(old, new)

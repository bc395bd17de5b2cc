import re


def solve(observation):
    """The character's code point: the text shows the character itself (a control character too,
    which a reader cannot see, though this function can), so its numeric value is ord()."""
    return str(ord(re.search(r"Convert the Unicode character (.) into", observation, re.S).group(1)))

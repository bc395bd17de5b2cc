import re


def solve(observation):
    """"How many times the refractive index of the first material the baker has", a whole number:
    the text asks nothing a reader can compute; the nearest reading is the first index against
    air's 1, rounded. Any answer is a guess."""
    index = float(re.search(r"index of about ([\d.]+)", observation).group(1))
    return str(round(index))

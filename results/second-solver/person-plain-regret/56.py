import re


def solve(observation):
    """Two masses at two temperatures mixed: the mass-weighted mean temperature, to the one decimal
    the text's example shows."""
    (m1, t1), (m2, t2) = [(int(m), float(t)) for m, t in re.findall(r"(\d+) g of flour at ([\d.]+) degrees", observation)]
    return f"{(m1 * t1 + m2 * t2) / (m1 + m2):.1f}"

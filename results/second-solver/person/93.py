import re
from collections import Counter


def solve(observation):
    """The value seen most often; the text does not say which of a tie, so the first one met."""
    listed = observation[observation.index("[") + 1:observation.index("]")]
    data = [item.strip().strip("'") for item in listed.split(",")]
    return Counter(data).most_common(1)[0][0]

def solve(observation):
    """The last reachable station "given the distance to each station": the text gives no station
    and no tank, so nothing can be computed; a reader can only say so."""
    return "not given"

def solve(observation):
    """The code point of the character shown between the quotes."""
    start = observation.index("character '") + len("character '")
    end = observation.index("' into", start)
    return str(ord(observation[start:end]))

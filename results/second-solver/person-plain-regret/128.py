def solve(observation):
    """The text asks for "the None most common elements" of a string: it names no count, so a reader
    can only say so (the key is every letter, repeats kept, sorted by count)."""
    return "not given"

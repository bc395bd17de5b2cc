def solve(observation):
    """The value a named key holds "in the data record": the text never shows the record, so a
    reader can only say so (the key scores the name the text quotes, which the text itself shows)."""
    return "not given"

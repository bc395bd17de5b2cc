def solve(observation):
    """The price of one of four listed books: the text lists the titles and no price, so a reader
    can only say so."""
    return "not given"

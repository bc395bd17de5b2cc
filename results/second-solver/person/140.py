def solve(observation):
    """The text names two currencies and an amount but no rate between them: a reader of the text
    alone cannot convert, and says so."""
    return "no rate given"

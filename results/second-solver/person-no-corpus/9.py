def solve(observation):
    """"The ratio is R. How many grams of water keep the ratio?": no amount of the other ingredient
    is given, so no number of grams follows; a reader can only say so."""
    return "not given"

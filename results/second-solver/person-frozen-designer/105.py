import unicodedata


def solve(observation):
    """"The character X ... its numeric value as a float": the document's numeric value of a character
    (a digit's value); a character with none has, as a reader takes it, its code point."""
    character = observation.split("Convert the character ", 1)[1][0]
    return str(float(unicodedata.numeric(character, ord(character))))

def solve(observation):
    """How far light bends between two materials: the text gives no angle of incidence (and no
    refractive index), so a reader can only say so."""
    return "not given"

from spadework.envs import DeclaredWorld


class LeagueTeamsEnv(DeclaredWorld):
    """A football league's teams and the points and players they hold."""

    collections = {
        "teams": {
            "name": ["Falcons", "Harriers", "Otters", "Rovers", "Wolves", "Lynx"],
            "ground": ["Park", "Dale", "Moor"],
            "points": [0, 3, 6, 9, 12],
        }
    }
    links = {}
    tasks = ("update", "transfer")
    steps = 2
    size = 4

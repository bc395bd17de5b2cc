from spadework.envs import DeclaredWorld


class PantryStockEnv(DeclaredWorld):
    """A kitchen's pantry shelves and the jars on them."""

    collections = {
        "jars": {
            "ingredient": ["flour", "sugar", "rice", "lentils", "oats", "salt"],
            "shelf": ["top", "middle", "bottom"],
            "grams": [100, 200, 400, 800, 1000],
        }
    }
    links = {}
    tasks = ("update", "transfer")
    steps = 1
    size = 5

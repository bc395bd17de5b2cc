from spadework.envs import DeclaredWorld


class FleetServiceEnv(DeclaredWorld):
    """A delivery fleet's vans and the mechanics who service them."""

    collections = {
        "vans": {
            "plate": ["KX-11", "KX-12", "LM-40", "LM-41", "PQ-07", "PQ-08"],
            "status": ["active", "in repair", "retired"],
            "fuel": [10, 20, 30, 40, 60],
        },
        "mechanics": {"name": ["Ada", "Ben", "Cleo", "Dev", "Eli"], "shift": ["early", "late"]},
    }
    links = {"jobs": {"van_id": "vans", "mechanic_id": "mechanics"}}
    tasks = ("update", "transfer", "link")
    steps = 2
    size = 4

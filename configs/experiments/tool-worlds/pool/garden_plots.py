from spadework.envs import DeclaredWorld


class GardenPlotsEnv(DeclaredWorld):
    """A community garden's plots and the gardeners who tend them."""

    collections = {
        "plots": {
            "code": ["P1", "P2", "P3", "P4", "P5", "P6"],
            "crop": ["beans", "kale", "leeks", "squash"],
            "water": [5, 10, 15, 20],
        },
        "gardeners": {"name": ["Mara", "Niko", "Oona", "Pia", "Quin"], "since": [2019, 2020, 2021, 2022]},
    }
    links = {"tending": {"plot_id": "plots", "gardener_id": "gardeners"}}
    tasks = ("update", "link")
    steps = 2
    size = 4

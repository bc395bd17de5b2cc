from spadework.envs import DeclaredWorld


class MuseumLoansEnv(DeclaredWorld):
    """A museum's artworks and the galleries that borrow them."""

    collections = {
        "artworks": {
            "title": ["Blue Harbour", "Quiet Field", "Red Mill", "Old Bridge", "Night Sky"],
            "artist": ["Lenz", "Mori", "Okoye", "Pires"],
            "value": [10, 25, 50, 75],
        },
        "galleries": {"name": ["City Hall", "North Wing", "Riverside", "Atrium"], "floor": [0, 1, 2]},
    }
    links = {"loans": {"artwork_id": "artworks", "gallery_id": "galleries"}}
    tasks = ("update", "link")
    steps = 2
    size = 4

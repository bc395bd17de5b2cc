from spadework.envs import DeclaredWorld


class LabSamplesEnv(DeclaredWorld):
    """A lab's samples and freezers, and where each sample is stored."""

    collections = {
        "samples": {
            "tag": ["S-01", "S-02", "S-03", "S-04", "S-05", "S-06"],
            "state": ["fresh", "frozen", "spent"],
            "volume": [5, 10, 15, 25],
        },
        "freezers": {"unit": ["F-Alpha", "F-Beta", "F-Gamma", "F-Delta"], "temp": [-20, -40, -80]},
    }
    links = {"storage": {"sample_id": "samples", "freezer_id": "freezers"}}
    tasks = ("update", "transfer", "link")
    steps = 2
    size = 4

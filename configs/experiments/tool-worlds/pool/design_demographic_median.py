from spadework.envs import DeclaredWorld


class DemographicMedianEnv(DeclaredWorld):
    """Estimates the median for numeric data binned around the midpoints of consecutive, fixed-width intervals."""

    collections = {
        "data": {"midpoint": [25, 35, 45, 55, 65]},
        "bins": {"lower_bound": [0, 10, 20, 30, 40], "upper_bound": [10, 20, 30, 40, 50]}
    }
    links = {}
    tasks = ("update", "transfer", "link")
    steps = 2
    size = 2

    def hint(self):
        return "The task requires retrieving the midpoint of each bin from the 'data' collection and then finding the median of those midpoints."


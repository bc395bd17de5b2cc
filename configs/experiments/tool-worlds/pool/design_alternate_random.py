from spadework.envs import DeclaredWorld


class AlternateRandomEnv(DeclaredWorld):
    """An environment that uses the operating system's random number generator."""

    collections = {
        "random": {"value": range(1, 101)}
    }
    links = {}
    tasks = ("update", "transfer")
    steps = 2
    size = 3

    def hint(self):
        return "Use the os.urandom() function to generate a random number."

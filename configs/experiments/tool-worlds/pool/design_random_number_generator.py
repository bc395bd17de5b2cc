from spadework.envs import DeclaredWorld


class RandomNumberGeneratorEnv(DeclaredWorld):
    """Generate random numbers using the operating system's sources."""

    collections = {
        "numbers": {"value": range(1, 101)}
    }
    tasks = ("update",)
    steps = 3
    size = 1

    def hint(self):
        return "Use os.urandom() to generate random numbers on Unix or CryptGenRandom on Windows."


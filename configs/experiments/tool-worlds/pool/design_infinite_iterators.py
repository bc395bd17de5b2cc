from spadework.envs import DeclaredWorld


class InfiniteIteratorsEnv(DeclaredWorld):
    """Infinite iterators and combinatoric generators."""

    collections = {
        "numbers": {"start": [0, 1, 2, 3], "step": [1, 2, 3]},
        "strings": {"text": ["apple", "banana", "cherry", "date", "elderberry"]}
    }
    links = {}
    tasks = ("update", "transfer", "link")
    steps = 3
    size = 4

    def task(self):
        if self.current_step == 0:
            return "start"
        elif self.current_step == 1:
            return "step"
        elif self.current_step == 2:
            return "end"

from spadework.envs import DeclaredWorld


class TimeExecutionEnv(DeclaredWorld):
    """A game that measures the execution time of a main statement."""

    collections = {
        "setup": {"time": [1.0, 2.0, 3.0, 4.0, 5.0]},
    }
    links = {}
    tasks = ("update",)
    steps = 1
    size = 1

    def setup(self):
        # Simulate the execution of the main statement
        self.update("setup", "time", 3.0)

    def main(self):
        # Simulate the main statement
        start_time = self.get("setup", "time")
        end_time = start_time + 1.0
        return end_time - start_time

    def goal(self):
        # The goal is to measure the execution time of the main statement
        return self.main() == 3.0

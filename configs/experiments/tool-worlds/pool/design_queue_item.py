from spadework.envs import DeclaredWorld


class QueueItemEnv(DeclaredWorld):
    """Put the item on a queue."""

    collections = {
        "queue": {"item": ["apple", "banana", "cherry"], "status": ["pending", "in_progress", "completed"]}
    }
    tasks = ("update",)
    steps = 1
    size = 3

    def execute(self, action):
        if self.state["queue"]["status"][0] == "pending":
            self.state["queue"]["item"].append("orange")
            self.state["queue"]["status"].pop(0)
            return True
        else:
            return False

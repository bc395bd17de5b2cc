import re


def solve(observation):
    """The text asks for a call, and the call it names carries its template's braces; a reader
    does what it asks: the call, with the task's number."""
    task = re.search(r"Task (\d+)", observation).group(1)
    return f"task_done({task})"

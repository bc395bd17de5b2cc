import re


def solve(observation):
    """The high median: the middle of an odd list, the higher of the two middles of an even one."""
    numbers = sorted(int(x) for x in re.search(r"\[([^\]]*)\]", observation).group(1).split(","))
    return str(numbers[len(numbers) // 2])

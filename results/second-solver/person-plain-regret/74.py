import re


def solve(observation):
    """A claim of C with a deductible of D: the customer pays the first D, the policy pays the rest."""
    deductible = int(re.search(r"deductible of (\d+)", observation).group(1))
    claim = int(re.search(r"claims (\d+) dollars", observation).group(1))
    return str(max(0, claim - deductible))

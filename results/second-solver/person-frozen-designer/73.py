import re


def solve(observation):
    """"The insurer charges N dollars per year … How much does the policy cost without the
    deductible?": the one price the text gives is the charge, so a reader answers it."""
    return re.search(r"charges (\d+) dollars", observation).group(1)

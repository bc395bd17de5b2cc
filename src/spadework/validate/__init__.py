"""Ordered, named checks that turn environment source into a verdict with reasons."""

from spadework.validate.checks import CHECKS, CheckContext, ValidatorConfig
from spadework.validate.validator import read_source, run_check, validate
from spadework.validate.verdict import CheckResult, Outcome, Verdict

__all__ = ["CHECKS", "CheckContext", "CheckResult", "Outcome", "ValidatorConfig", "Verdict",
           "read_source", "run_check", "validate"]

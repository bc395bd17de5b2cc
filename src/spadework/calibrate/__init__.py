"""Calibration: does regret rank environments right?

A bundled set of small environments of known kind (``envs/``: ``easy_*``, ``frontier_*``,
``impossible_*``, ``leaking_*``) is validated and played like any designed environment, and the
regrets are checked against the expected order (frontier above easy and impossible; leaking ones
rejected by the validator). ``spadework calibrate`` runs it (``command``); ``calibrate`` is the
library function; the statistics are pure functions in ``stats``.
"""

from spadework.calibrate.records import Calibration, EnvResult, Kind, Screening
from spadework.calibrate.report import CALIBRATION_DIR, report_json
from spadework.calibrate.runner import (
    BUNDLED_DIR,
    CALIBRATION_SEED_START,
    CalibrationFile,
    bundled_paths,
    calibrate,
    calibration_rollout,
    load_files,
)
from spadework.calibrate.stats import PairedScores, RankCorrelation, Reached, Separation, separation

__all__ = ["BUNDLED_DIR", "CALIBRATION_DIR", "CALIBRATION_SEED_START", "Calibration", "CalibrationFile",
           "EnvResult", "Kind", "PairedScores", "RankCorrelation", "Reached", "Screening", "Separation",
           "bundled_paths", "calibrate", "calibration_rollout", "load_files", "report_json", "separation"]

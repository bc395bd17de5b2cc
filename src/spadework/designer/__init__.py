"""The designer: prompts grounded in a document and a memory digest, batched design with
repair, and near-duplicate rejection."""

from spadework.designer.design import Design, DesignAttempt, DesignRequest, DesignSettings, design_batch
from spadework.designer.memory import MemoryDigest, build_digest
from spadework.designer.novelty import NoveltyIndex, checks_with_novelty, novel_check, run_index
from spadework.designer.prompts import render_design, render_hint_request, render_repair

__all__ = [
    "Design",
    "DesignAttempt",
    "DesignRequest",
    "DesignSettings",
    "MemoryDigest",
    "NoveltyIndex",
    "build_digest",
    "checks_with_novelty",
    "run_index",
    "design_batch",
    "novel_check",
    "render_design",
    "render_hint_request",
    "render_repair",
]

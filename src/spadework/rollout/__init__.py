"""Multi-turn episodes of a policy in environments, and transcripts with loss masks."""

from spadework.rollout.boxed import extract_command
from spadework.rollout.play import run_plays
from spadework.rollout.prompt import AgentForm, HintStyle
from spadework.rollout.records import Arm, Arms, EndReason, Episode, PlayJob, RolloutConfig
from spadework.rollout.tokens import CHATML, ChatTemplate, TokenizedTranscript, Tokenizer, render_tokens

__all__ = ["CHATML", "AgentForm", "Arm", "Arms", "ChatTemplate", "EndReason", "Episode", "HintStyle",
           "PlayJob", "RolloutConfig", "TokenizedTranscript", "Tokenizer", "extract_command", "render_tokens",
           "run_plays"]

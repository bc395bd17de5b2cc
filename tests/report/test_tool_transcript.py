"""A tool world's episode in the environment browser: its tools, the calls and the world's replies."""

from __future__ import annotations

from spadework.report.environments import DEFAULT_LIMITS, transcript_html

TOOLS = [{"type": "function", "function": {"name": "lend", "description": "Lend a <book>.",
                                           "parameters": {"properties": {"book_id": {"type": "integer"}}}}}]


def test_tools_calls_and_results_render_readably_and_escaped():
    episode = {"seed": 3, "score": 1.0, "turns": 1, "end": "terminated", "tools": TOOLS, "messages": [
        {"role": "system", "content": "Call tools."},
        {"role": "user", "content": "Lend Dune to member 7."},
        {"role": "assistant", "content": "<tool_call>{\"name\": \"lend\"}</tool_call>"},
        {"role": "tool", "content": "lend(book_id=1) -> {\"ok\": true}"}]}
    html = transcript_html(episode, DEFAULT_LIMITS)
    assert "1 tools</summary>" in html and "lend(book_id: integer) - Lend a &lt;book&gt;." in html
    assert '<div class="msg tool"><div class="role">tool</div>' in html
    assert "&lt;tool_call&gt;" in html and "<tool_call>" not in html  # the agent's text, escaped
    assert transcript_html({**episode, "tools": []}, DEFAULT_LIMITS).count("tools</summary>") == 0

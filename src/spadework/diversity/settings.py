"""How the designed environments' diversity is measured: the ``[diversity]`` section. Light:
reading a configuration loads no embedder and no measure."""

from __future__ import annotations

from pydantic import Field

from spadework.kinds import EmbedderKind
from spadework.settings_base import Section


class DiversitySettings(Section):
    """The embedder, the thresholds of the measures (cosine distances) and the windows
    (``[diversity]``).

    The defaults suit all-MiniLM-L6-v2: there, the same game re-themed lies 0.06-0.14 apart,
    different games 0.25-0.65 (measured on the scripted families and the bundled examples).
    """

    embedder: EmbedderKind = Field(EmbedderKind.AUTO, description="auto, minilm (all-MiniLM-L6-v2, offline) "
                                   "or hashing (n-gram counts, no model)")
    near_duplicate: float = Field(0.1, gt=0, le=2, description="cosine distance under which an "
                                  "environment's nearest neighbour makes it a near-duplicate")
    cluster_distance: float = Field(0.25, gt=0, le=2, description="average-linkage clusters merge up to "
                                    "this cosine distance")
    collapse_window: int = Field(6, ge=2, description="the collapse alarm rings when this many most "
                                 "recent environments fall into one cluster")
    cluster_window: int = Field(1000, ge=2, description="diversity/clusters counts the clusters among this "
                                "many most recent environments (all of them in a smaller run)")

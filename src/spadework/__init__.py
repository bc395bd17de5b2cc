"""spadework: self-play in adaptive synthetic executable environments."""

__version__ = "0.1.0"

"""Learning: policy-gradient updates of the shared model's LoRA adapter, checkpoints, weight sync.

torch is imported only by the modules that compute (``loss``, ``learner``, ``model``,
``distributed``); ``samples``, ``settings`` and ``checkpoint`` stay cheap to import, so the
configuration and the command line load without it.
"""

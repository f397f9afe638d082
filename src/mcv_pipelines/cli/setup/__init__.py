"""Commands that set mcv up on a machine or in a project, rather than run pipelines: shell completion
(and its hidden helper), ``mcv init`` and ``mcv doctor``."""

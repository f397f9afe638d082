"""Helpers of bench/formats.py: seed samples (samples.py) and output checks (check.py)."""

"""Analyses over the canonical model: validation (and, later, paths, coverage, diff, patches)."""

"""Reusable GUI widgets that know nothing about the workspace: they take plain values."""

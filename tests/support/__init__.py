"""Test helpers shared by test modules (servers, fakes)."""

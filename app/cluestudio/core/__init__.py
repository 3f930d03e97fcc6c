"""Qt-free core of ClueStudio: model, PlantUML, scoring, workspace and jobs.

Nothing under this package may import Qt, and heavy libraries (torch, transformers)
are imported lazily inside the functions that need them, so the CLI starts fast.
"""

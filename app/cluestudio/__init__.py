"""ClueStudio: a workbench for reviewing, grading and scoring UML class diagrams."""

__version__ = "0.1.0"

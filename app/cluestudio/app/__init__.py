"""The application layer: what a user action or a batch job does with a workspace.

Between the CLI and the GUI above and core below (DESIGN §1): the submission on screen and
its current scores, the live preview, scoring a workspace, the VLM jobs, the analysis tables.
Nothing here imports Qt (enforced by an import-linter contract), so every job the window runs
is also a ``cluestudio`` command and is tested without a display.
"""

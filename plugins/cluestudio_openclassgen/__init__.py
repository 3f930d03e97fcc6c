"""OpenClassGen (seed 004): Python classes as reference designs, and code-level metrics."""

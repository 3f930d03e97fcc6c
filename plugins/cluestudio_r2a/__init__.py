"""R2ABench (seed 001) metrics for component / deployment architecture diagrams."""

"""PlantUML: the class-diagram parser and writer, and the renderer service (the real jar)."""

"""An example third-party ClueStudio plugin (docs/example_plugin)."""

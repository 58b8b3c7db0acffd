"""paperkg: build a knowledge graph of ML research from paper abstracts.

One package per stage (docs/ARCHITECTURE.md); `kg.build.run_build` runs them in order, as
`kg build` does. Nothing is imported here; import the stage modules directly.
"""

#: The one version source: pyproject.toml reads it, the graph records it (schema:softwareVersion).
__version__ = "0.1.0"

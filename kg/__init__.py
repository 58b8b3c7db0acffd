"""paperkg: build a knowledge graph of ML research from paper abstracts.

The library API mirrors the CLI: `read_papers` -> `extract` -> `canonicalise` -> `build_graph`
-> `serialize`. Nothing heavy is imported here; import the stage modules directly.
"""

__version__ = "0.1.0"

"""Extraction: papers in, `Extraction`s (mentions, acronyms, URLs, relations, sentences) out.

spaCy objects never leave this package. `Extractor` (`kg.extract.extractor`) loads the pipeline
once and streams papers through it; the modules below it hold one step each: `nlp` (the spaCy
pipeline), `candidates`/`terms`/`names`/`acronyms`/`gazetteer_match` (candidate spans),
`entity_model`/`recogniser` (the trained recogniser), `assemble`/`decisions`/`roles`/
`learned` (what becomes a mention, its type and role), `mentions` (decided groups to
mentions), `relation_mentions` (concept-concept sentences).
"""

from kg.extract.extractor import Extractor, ExtractorConfig, cached_extractor, extract_urls

__all__ = ["Extractor", "ExtractorConfig", "cached_extractor", "extract_urls"]

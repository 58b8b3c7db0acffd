"""The named SPARQL queries as data: one `.rq` file each, read by `kg.query.named`."""

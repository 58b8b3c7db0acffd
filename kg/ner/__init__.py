"""The trained scientific-entity recogniser: corpora readers, scoring, training, type mapping.

Modules: `corpora` (SciERC / TDMSci readers), `evaluate` (exact-match entity P/R/F1),
`model` (load the shipped pipeline, tag texts), `train` (reproducible training),
`mapping` (SciERC label -> paperkg type). Nothing heavy is imported here.
"""

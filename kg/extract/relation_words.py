"""Trigger words of the relation patterns (`kg.extract.relation_patterns`), by what they signal.

Lower-case words and lemmas; the patterns look up a token's `lower_` or `lemma_` in these sets.
"""

from __future__ import annotations

USE_VERBS = frozenset(
    """use utilize utilise employ leverage exploit adopt incorporate harness integrate
    rely mimic require need combine""".split()
)
# "X helps/improves Y": X is used for Y.
HELP_VERBS = frozenset(
    {"help", "enable", "facilitate", "improve", "enhance", "boost", "benefit", "aid"}
)
# "equip/augment X with Y": Y is used for X.
WITH_VERBS = frozenset({"equip", "provide", "augment", "enhance", "endow"})
# "Y by combining/using X": gerunds after "by" that make X a means (not "by analyzing X").
MEANS_GERUNDS = frozenset(
    """use utilize utilise employ leverage exploit adopt incorporate harness integrate combine
    apply adapt introduce add inject""".split()
)
# "an approach to Y": a way of doing Y.
APPROACH_NOUNS = frozenset(
    """approach approaches solution solutions method methods framework frameworks algorithm
    algorithms technique techniques strategy strategies system systems tool tools""".split()
)
# "a set of X", "the use of X": the phrase stands for X.
CONTAINER_NOUNS = frozenset(
    """set sets suite collection variety range number series family pair couple use means
    combination""".split()
)
PURPOSE_HEADS = frozenset(
    """use utilize utilise employ leverage exploit adopt apply propose present introduce
    develop design devise build train""".split()
)
APPLY_VERBS = frozenset({"apply", "adapt", "extend", "generalize", "tailor", "transfer"})
DESIGNED = frozenset({"design", "use", "develop", "propose", "tailor", "intend", "optimize"})
FIT_ADJECTIVES = frozenset({"useful", "suitable", "effective", "applicable", "helpful"})
BASED_WORDS = frozenset({"based", "built", "grounded", "founded"})
# "Y, fine-tuned/distilled from X": Y is based on X (not "fine-tuned on D": that is data).
DERIVED_WORDS = frozenset(
    {"derived", "initialized", "initialised", "tuned", "finetuned", "fine-tuned", "distilled"}
)
BUILD_VERBS = frozenset({"build", "extend", "generalize", "improve"})
VARIANT_NOUNS = frozenset(
    {"variant", "version", "extension", "generalization", "modification", "adaptation"}
)
BEAT_VERBS = frozenset({"outperform", "surpass", "beat", "exceed", "outpace", "outmatch"})
WIN_WORDS = frozenset({"better", "faster", "stronger", "superior", "cheaper", "outperforming"})
LOSS_WORDS = frozenset({"worse", "slower", "weaker", "inferior"})
GOOD_QUALITIES = frozenset(
    """accurate efficient robust effective reliable stable scalable expressive powerful
    precise faithful""".split()
)
GOOD_MEASURES = frozenset(
    """accuracy performance score scores quality throughput recall precision reward success
    speed efficiency robustness""".split()
)
BAD_MEASURES = frozenset({"error", "errors", "loss", "latency", "cost", "perplexity", "memory"})
GAIN_NOUNS = frozenset(
    """improvement improvements gain gains speedup speedups speed-up advantage advantages
    boost reduction reductions""".split()
)
PEER_WORDS = frozenset({"comparable", "competitive", "similar", "par", "close", "equivalent"})
COMPARE_WORDS = frozenset({"compared", "comparing", "comparison", "comparisons", "relative"})
EVAL_VERBS = frozenset({"evaluate", "test", "benchmark", "validate", "assess", "examine"})
OUTCOME_VERBS = frozenset(
    """achieve obtain attain reach set yield outperform surpass beat exceed perform excel
    improve score deliver establish""".split()
)
FINDING_NOUNS = frozenset(
    {"experiment", "experiments", "result", "results", "evaluation", "evaluations"}
)
SHOW_VERBS = frozenset({"show", "demonstrate", "indicate", "confirm", "reveal", "suggest"})

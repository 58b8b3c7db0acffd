"""Word lists the extraction rules use, in one place.

These are closed-class or field-generic English words (determiners, evaluative adjectives,
heads that carry a type), written from general knowledge of how ML abstracts are phrased —
never from the development gold.
"""

from __future__ import annotations

from kg.types import ConceptType

# Leading words trimmed from a candidate term ("a novel", "our", "existing", "state-of-the-art").
EVALUATIVE = frozenset(
    """novel new existing current prior previous recent popular standard typical traditional
    conventional classical classic common commonly widely general generic simple simpler
    effective efficient powerful robust strong stronger strongest weak better best good great
    proposed original resulting respective corresponding underlying various several many
    multiple different diverse numerous certain specific particular key main major significant
    important crucial critical promising remarkable impressive superior competitive naive
    naiive innovative unified comprehensive extensive detailed rigorous principled practical
    theoretical empirical substantial considerable large-scale small-scale lightweight
    light-weight sophisticated advanced leading cutting-edge well-known so-called same
    other such whole entire full overall additional further first second third last final
    single individual original respective abundant broad wide limited high-quality
    state-of-the-art sota off-the-shelf strong-performing best-performing top-performing
    own truly highly fully easily inherently explicitly significantly substantially
    """.split()
)

GENERAL_ADJECTIVES = frozenset(
    # General-purpose adjectives of size, degree, time, quality and kind: they describe a
    # concept in this sentence, they are not part of its name.
    """large larger largest small smaller smallest big huge tiny high higher highest low lower
    lowest fast faster slow slower rapid quick complex simple complicated difficult hard easy
    challenging increasing decreasing growing rising emerging evolving ongoing future past
    early earlier late later subsequent initial preliminary recent modern contemporary old
    older subjective objective theoretical empirical experimental practical architectural
    computational reliable accurate precise exact approximate actual true false correct
    incorrect valid invalid relevant irrelevant useful helpful meaningful significant
    insignificant potential possible feasible available necessary sufficient insufficient
    essential fundamental basic core primary secondary central crucial vital valuable notable
    noteworthy interesting surprising unexpected obvious clear specific broad narrow wide
    overall general particular unique distinct separate common rare frequent typical atypical
    usual unusual normal abnormal original novel new fresh given consistent inconsistent
    coherent fragile efficient inefficient effective ineffective expensive cheap costly
    affordable scalable flexible rigid sensitive insensitive limited unlimited extensive
    intensive massive vast considerable substantial marginal minimal maximal optimal suboptimal
    ideal perfect imperfect poor rich strong weak powerful superior inferior comparable similar
    different diverse various varied multiple numerous several few many much more most less
    least further additional extra detailed thorough comprehensive systematic principled
    careful rigorous promising remarkable impressive excellent outstanding exceptional
    competitive favorable unfavorable positive negative desirable undesirable critical severe
    serious mild moderate extreme heavy light public private widespread prevalent popular
    dominant prevailing leading major minor key main whole entire complete partial full half
    varying arbitrary certain respective
    """.split()
)

DETERMINERS = frozenset(
    """a an the this that these those our their its his her my your we they it which what
    whose each every any all some both either neither no such another""".split()
)

# Heads that are too generic to be a concept on their own.
GENERIC_HEADS = frozenset(
    """method methods approach approaches framework frameworks technique techniques model
    models algorithm algorithms system systems paper work works study studies result results
    performance problem problems task tasks setting settings way ways scheme schemes strategy
    strategies solution solutions procedure process processes pipeline pipelines module
    modules component components mechanism mechanisms design designs variant variants version
    versions type types kind kinds form forms part parts step steps stage stages level levels
    aspect aspects issue issues challenge challenges limitation limitations advantage
    advantages benefit benefits improvement improvements gain gains effect effects impact
    ability abilities capability capabilities property properties analysis analyses
    experiment experiments evaluation evaluations finding findings insight insights
    observation observations evidence idea ideas concept concepts notion notions
    application applications use usage case cases scenario scenarios domain domains field
    fields area areas community communities literature research researcher researchers
    practitioner practitioners user users human humans people number amount range variety
    set sets lot lots series order terms term fact end means regard respect line lines
    quality efficiency effectiveness accuracy speed cost costs time times space spaces data
    dataset datasets benchmark benchmarks baseline baselines metric metrics measure measures
    score scores value values parameter parameters function functions feature features
    representation representations information knowledge behavior behaviour structure
    structures architecture architectures network networks layer layers input inputs output
    outputs sample samples example examples instance instances point points objective
    objectives loss losses error errors rate rates size sizes scale scales state states
    condition conditions assumption assumptions constraint constraints bound bounds
    guarantee guarantees theory theories view views perspective perspectives direction
    directions gap gaps need needs goal goals purpose purposes focus trend trends progress
    success successes failure failures question questions answer answers language languages
    text texts image images video videos token tokens word words sentence sentences
    document documents code codes agent agents environment environments world humans
    researchers experts expert domain-specific element elements object objects entity
    entities item items unit units group groups class classes category categories
    distribution distributions pattern patterns signal signals source sources target targets
    recipe recipes toolkit suite library platform tool tools resource resources
    contribution contributions implementation implementations extension extensions
    generalization alternative alternatives counterpart counterparts manner fashion
    body bodies margin margins volume volumes development developments popularity
    relationship relationships relation relations modification modifications validation
    page pages setup setups expert experts limit limits weight weights nature length lengths
    attention interest advance advances advancement advancements cause causes reason
    reasons role roles difference differences change changes trade-off tradeoff tradeoffs
    bottleneck bottlenecks factor factors option options choice choices situation
    situations circumstance circumstances context contexts detail details
    """.split()
)

# Head nouns that say which type a term has ("X dataset", "X algorithm", "X distance").
HEAD_TYPES: dict[str, ConceptType] = {
    **dict.fromkeys(
        """dataset datasets benchmark benchmarks corpus corpora suite testbed leaderboard
        bench""".split(),
        ConceptType.DATASET,
    ),
    **dict.fromkeys(
        """metric metrics score distance divergence discrepancy rate accuracy precision
        recall f1 bleu rouge perplexity auc auroc error index coefficient""".split(),
        ConceptType.METRIC,
    ),
    **dict.fromkeys(
        """model models network networks net nets architecture architectures transformer
        transformers encoder encoders decoder decoders autoencoder autoencoders llm llms lm
        lms vlm vlms mllm mllms gan gans vae vaes convnet convnets cnn cnns rnn rnns lstm
        lstms gnn gnns mlp mlps backbone backbones classifier classifiers hypernetwork
        hypernetworks generator discriminator""".split(),
        ConceptType.MODEL,
    ),
    **dict.fromkeys(
        """method methods algorithm algorithms technique techniques approach framework
        optimization optimizer optimizers regularization regularizer training tuning
        fine-tuning finetuning pretraining pre-training distillation pruning quantization
        augmentation sampling sampler inference attention mechanism strategy procedure
        scheme trick estimator estimation learning loss objective initialization
        normalization decoding encoding embedding embeddings adaptation guidance
        search descent prompting minimization maximization""".split(),
        ConceptType.METHOD,
    ),
    **dict.fromkeys(
        """task tasks problem problems generation recognition detection classification
        segmentation answering prediction forecasting translation summarization
        understanding reasoning captioning retrieval parsing tracking localization
        reconstruction synthesis completion editing planning navigation manipulation
        locomotion driving control design discovery mining modeling modelling
        generalization alignment""".split(),
        ConceptType.TASK,
    ),
    **dict.fromkeys(
        """hypothesis principle phenomenon property effect head heads space region regions
        equilibrium theorem law cache asymmetry optimality independence""".split(),
        ConceptType.CONCEPT,
    ),
}

# Words that follow a name and say its type: "the LQCA method", "SWE-Bench Lite benchmark".
NAME_TYPE_CUES: dict[str, ConceptType] = {
    **dict.fromkeys("dataset datasets benchmark benchmarks corpus suite".split(),
                    ConceptType.DATASET),
    **dict.fromkeys("metric metrics score distance".split(), ConceptType.METRIC),
    **dict.fromkeys(
        "model models network architecture llm llms family series checkpoint checkpoints"
        .split(), ConceptType.MODEL),
    **dict.fromkeys(
        "method methods algorithm framework technique approach optimizer loss".split(),
        ConceptType.METHOD),
    **dict.fromkeys("task problem challenge".split(), ConceptType.TASK),
}


# Heads that only say "this is a method": "preference tuning methods" names the concept
# "preference tuning" (typed Method by the head).
METHOD_HEADS = frozenset(
    """method methods approach approaches technique techniques framework frameworks algorithm
    algorithms strategy strategies scheme schemes mechanism mechanisms procedure procedures
    pipeline pipelines paradigm paradigms""".split()
)

"""The API reference's layers (conf.py writes one page per layer) and the paper each module follows."""

# (page, title, one-line description, public modules). Every name of each module's __all__ gets a page;
# a name re-exported by a later module is documented once, where it is first listed.
LAYERS = [
    (
        "estimators",
        "Estimators",
        "The scikit-learn estimators: the total budget, a public domain and a seed in, a fitted model, its "
        "ledger and the privacy it spent out.",
        ["privpac.estimators"],
    ),
    (
        "accounting",
        "Budgets, ledgers and the accountant",
        "The privacy ledger every mechanism charges before it draws noise, composition, and the accountant "
        "that adds up fits.",
        ["privpac.accountant", "privpac.accounting"],
    ),
    (
        "domains",
        "Domains and public bounds",
        "Public domains (never derived from the data): integer ranges, grids of real values, per-column bounds.",
        ["privpac.domains", "privpac.stepfunc", "privpac.random"],
    ),
    (
        "mechanisms",
        "Mechanisms",
        "Exact discrete Laplace, the exactly sampled exponential mechanism, A_dist, the choosing mechanism, "
        "Gaussian noise and random margins.",
        ["privpac.mechanisms"],
    ),
    (
        "optimize",
        "Optimisers",
        "RecConcave, interior points and the coordinate-by-coordinate optimiser.",
        ["privpac.optimize"],
    ),
    (
        "learners",
        "Learners",
        "The papers' learners as functions: thresholds, points, the exponential-mechanism learner, FindTukey.",
        ["privpac.learners"],
    ),
    (
        "sanitizers",
        "Sanitizers",
        "Private synthetic databases (SanPoints, k-POINT, SanThresholds, BLR), the pure-DP baselines, and "
        "the reductions from sanitizers to learners.",
        [
            "privpac.sanitizers.points",
            "privpac.sanitizers.thresholds",
            "privpac.sanitizers.pure",
            "privpac.sanitizers.baselines",
            "privpac.sanitizers.reductions",
            "privpac.sanitizers.database",
            "privpac.sanitizers.queries",
        ],
    ),
    (
        "geometry",
        "Geometry",
        "Exact Tukey depth, directional depth, depth intervals and the rational candidate domains.",
        ["privpac.geometry"],
    ),
    (
        "bounds",
        "Bound calculators",
        "Every theorem's stated sample size beside the tight value its proof supports and the lower bounds; "
        "the registry behind ``privpac bounds``.",
        [
            "privpac.bounds",
            "privpac.bounds.bns",
            "privpac.bounds.bns_sanitizers",
            "privpac.bounds.rectangles",
            "privpac.bounds.large_margin",
            "privpac.bounds.bmns",
            "privpac.bounds.kmst",
            "privpac.bounds.measured",
            "privpac.bounds.search",
        ],
    ),
    (
        "audit",
        "Privacy audits",
        "Exact laws and empirical audits of whole releases on worst-case neighbouring pairs.",
        ["privpac.audit"],
    ),
    (
        "backends",
        "Backends",
        "Where the data lives: in memory, on a Dask cluster or in Spark.",
        ["privpac.backends"],
    ),
    (
        "io",
        "Saving, loading, data sets and plots",
        "Models as JSON, bundled and generated data with documented bounds, and the plots of the command line.",
        ["privpac.io", "privpac.datasets", "privpac.plots"],
    ),
]

# The paper page (docs/papers/) of each defining module; the first matching prefix wins, modules not listed
# are shared by all papers.
_BNS, _SS, _NUZ, _BMNS, _KMST = (
    "bns-pure-vs-approx",
    "ss-rectangles",
    "nuz-large-margin",
    "bmns-center-points",
    "kmst-linear-feasibility",
)
PAPER_OF_MODULE = [
    ("privpac.estimators.rectangles", _SS),
    ("privpac.estimators.halfspaces", _NUZ),
    ("privpac.estimators.center_point", _BMNS),
    ("privpac.estimators.halfspace_tukey", _BMNS),
    ("privpac.estimators.linear_feasibility", _KMST),
    ("privpac.estimators.feasibility_halfspaces", _KMST),
    ("privpac.estimators.histogram", None),
    ("privpac.estimators.base", None),
    ("privpac.estimators", _BNS),
    ("privpac.mechanisms.margins", _SS),
    ("privpac.mechanisms.gaussian", _NUZ),
    ("privpac.mechanisms.laplace", None),
    ("privpac.mechanisms.exponential", None),
    ("privpac.mechanisms", _BNS),
    ("privpac.optimize", _BNS),
    ("privpac.learners.randmargins", _SS),
    ("privpac.learners.boxes", _SS),
    ("privpac.learners.rectangles_composition", _SS),
    ("privpac.learners.large_margin", _NUZ),
    ("privpac.learners.jl_projection", _NUZ),
    ("privpac.learners.margin_nets", _NUZ),
    ("privpac.learners.dp_erm", _NUZ),
    ("privpac.learners.private_logistic", _NUZ),
    ("privpac.learners.center_point", _BMNS),
    ("privpac.learners.halfspace_tukey", _BMNS),
    ("privpac.learners.linear_feasibility", _KMST),
    ("privpac.learners.feasibility_halfspaces", _KMST),
    ("privpac.learners.feasibility_candidates", _KMST),
    ("privpac.learners.center_point_baselines", _BMNS),
    ("privpac.learners.randmargins_plan", _SS),
    ("privpac.learners.randmargins_windows", _SS),
    ("privpac.learners", _BNS),
    ("privpac.sanitizers.baselines", None),
    ("privpac.sanitizers", _BNS),
    ("privpac.geometry", _BMNS),
    ("privpac.bounds.bns", _BNS),
    ("privpac.bounds.rectangles", _SS),
    ("privpac.bounds.large_margin", _NUZ),
    ("privpac.bounds.bmns", _BMNS),
    ("privpac.bounds.kmst", _KMST),
]

"""Private PAC learners. Each takes data already mapped to integer indices of a public domain,
a total privacy budget and a ledger, and returns a hypothesis of its class.

* :func:`learn_point`: POINT_d through the corrected A_dist (Beimel, Nissim, Stemmer, Lemma 3.2).
* :func:`learn_thresholds`: THRESH_d through RecConcave (LearnThresholds, Thm 3.18).
* :func:`em_learner`, :func:`em_learn_thresholds`, :func:`em_learn_points`: the generic pure-DP
  exponential-mechanism learner (Kasiviswanathan et al.), the baseline of every benchmark.
* :func:`find_tukey`: a private center point in d = 1, 2, 3 (Beimel, Moran, Nissim, Stemmer, Fig. 1);
  its baseline :func:`one_shot_center_point` (B1, footnote 1); the per-coordinate median baseline is
  :func:`privpac.estimators.median.coordinatewise_median`.
"""

from ..exports import lazy_exports

# Imported on first use (privpac.exports): a worker that unpickles one kernel imports its module only.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "center_point": ("FindTukeyPlan", "FindTukeyResult", "find_tukey", "plan_find_tukey"),
        "center_point_baselines": ("one_shot_center_point",),
        "exponential": ("em_learn_points", "em_learn_thresholds", "em_learner"),
        "hypotheses": ("PointHypothesis", "ThresholdHypothesis"),
        "point": ("learn_point", "point_learner_distribution", "point_quality"),
        "thresholds": ("ThresholdResult", "learn_thresholds", "threshold_quality"),
    },
)

"""Private PAC learners. Each takes data already mapped to integer indices of a public domain,
a total privacy budget and a ledger, and returns a hypothesis of its class.

* :func:`learn_point`: POINT_d through the corrected A_dist (Beimel, Nissim, Stemmer, Lemma 3.2).
* :func:`learn_thresholds`: THRESH_d through RecConcave (LearnThresholds, Thm 3.18).
* :func:`em_learner`, :func:`em_learn_thresholds`, :func:`em_learn_points`: the generic pure-DP
  exponential-mechanism learner (Kasiviswanathan et al.), the baseline of every benchmark.
"""

from .exponential import em_learn_points, em_learn_thresholds, em_learner
from .hypotheses import PointHypothesis, ThresholdHypothesis
from .point import learn_point, point_learner_distribution, point_quality
from .thresholds import ThresholdResult, learn_thresholds, threshold_quality

__all__ = [
    "PointHypothesis",
    "ThresholdHypothesis",
    "ThresholdResult",
    "em_learn_points",
    "em_learn_thresholds",
    "em_learner",
    "learn_point",
    "learn_thresholds",
    "point_learner_distribution",
    "point_quality",
    "threshold_quality",
]

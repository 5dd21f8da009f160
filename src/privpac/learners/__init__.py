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

from .center_point import FindTukeyPlan, FindTukeyResult, find_tukey, plan_find_tukey
from .center_point_baselines import one_shot_center_point
from .exponential import em_learn_points, em_learn_thresholds, em_learner
from .hypotheses import PointHypothesis, ThresholdHypothesis
from .point import learn_point, point_learner_distribution, point_quality
from .thresholds import ThresholdResult, learn_thresholds, threshold_quality

__all__ = [
    "FindTukeyPlan",
    "FindTukeyResult",
    "PointHypothesis",
    "ThresholdHypothesis",
    "ThresholdResult",
    "em_learn_points",
    "em_learn_thresholds",
    "em_learner",
    "find_tukey",
    "learn_point",
    "learn_thresholds",
    "one_shot_center_point",
    "plan_find_tukey",
    "point_learner_distribution",
    "point_quality",
    "threshold_quality",
]

"""What a fit releases: the privacy record is public, saved records are checked, broken variants say so.

* the ledger of every model is a function of its public inputs only: two datasets of the same
  shape (different records, different numbers of distinct values) and two seeds give the same
  ledger, which is also what :meth:`privacy_record` recomputes without data;
* every model's fitted attributes are a reviewed list (a new one, possibly data-derived, fails here);
* saved models whose privacy record was edited, or whose parameters are invalid, are refused;
* variants whose privacy is known to fail are recorded as NOT PRIVATE wherever privacy is shown;
* the regressions of the release-privacy issue: piece counts in ledgers, the pure large-margin
  learner's training count, RandMargins charging after drawing, the RM-R8 under-charge.
"""

import json
import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

from model_examples import fit_arguments
from privpac.accounting import PrivacyLedger
from privpac.cli import main
from privpac.errors import BudgetExceededError, InvalidParameterError, PaperLiteralWarning
from privpac.estimators import (
    MODELS,
    PointSanitizer,
    PrivateHalfspaceClassifier,
    PrivateRectangleClassifier,
    PrivateThresholdClassifier,
)
from privpac.io import load_model, model_from_dict, model_to_dict, save_model
from privpac.learners.point import learn_point
from privpac.learners.randmargins import run_randmargins
from privpac.learners.randmargins_plan import plan_randmargins
from privpac.random import SeededRandom

pytestmark = pytest.mark.filterwarnings("ignore::privpac.errors.UtilityWarning")


def _fit(name, seed, random_state=0):
    kw, args, fit_kw = fit_arguments(name, seed)
    return MODELS[name](**kw, random_state=random_state).fit(*args, **fit_kw)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_ledger_depends_on_public_inputs_only(name):
    a, b = _fit(name, 0, random_state=0), _fit(name, 1, random_state=5)
    assert a.fit_shape_ == b.fit_shape_
    assert a.ledger_.to_dict() == b.ledger_.to_dict()
    assert a.ledger_.lines() == b.ledger_.lines()
    assert a.privacy_spent_ == b.privacy_spent_
    # the same record, recomputed from the parameters and the shape alone
    assert a.privacy_record(*a.fit_shape_).to_dict() == a.ledger_.to_dict()


#: Every public attribute a fit sets, per model: a new one must be reviewed (is it a function of the
#: public inputs and the private outputs only?) and added here.
RELEASED_ATTRIBUTES = {
    "histogram": {"counts_", "bin_edges_", "n_samples_", "n_features_in_"},
    "median": {"median_index_", "depth_", "n_samples_", "n_features_in_"},
    "point": {"point_", "released_", "method_", "n_samples_", "classes_", "n_features_in_"},
    "threshold": {"threshold_", "method_", "depth_", "orientation_", "n_samples_", "classes_", "n_features_in_"},
    "label-private": {
        "hypothesis_",
        "n_samples_",
        "n_candidates_",
        "domain_size_",
        "privacy_unit_",
        "classes_",
        "n_features_in_",
    },
    "san-points": {"database_", "n_samples_"},  # fitted on a 1-D list: no feature bookkeeping
    "k-point": {"database_", "n_samples_"},
    "san-thresholds": {"database_", "n_samples_"},
    "rectangle": {
        "box_",
        "empty_",
        "lower_",
        "upper_",
        "thresholds_",
        "details_",
        "plan_lines_",
        "x_max_",
        "n_features_in_",
        "n_samples_",
        "classes_",
    },  # fmt: skip
    "center-point": {"center_", "composition_", "n_samples_", "n_features_in_"},
    "linear-feasibility": {"solution_", "composition_", "n_samples_", "n_features_in_"},
    "halfspace-feasibility": {
        "coef_exact_",
        "intercept_exact_",
        "degenerate_",
        "composition_",
        "n_samples_",
        "n_features_in_",
        "classes_",
    },  # fmt: skip
    "halfspace-tukey": {
        "coef_exact_",
        "intercept_exact_",
        "composition_",
        "n_chunks_",
        "chunk_size_",
        "n_samples_",
        "n_features_in_",
        "classes_",
    },
    "halfspace-margin": {
        "coef_",
        "intercept_",
        "projected_coef_",
        "projection_dim_",
        "projection_seed_",
        "margin_",
        "details_",
        "n_features_in_",
        "n_samples_",
        "classes_",
    },  # fmt: skip
}
ALWAYS = {"ledger_", "privacy_spent_", "domain_"}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_fitted_attributes_are_a_reviewed_list(name):
    est = _fit(name, 0)
    public = {k for k in vars(est) if k.endswith("_") and not k.startswith("_")}
    assert public - ALWAYS == RELEASED_ATTRIBUTES[name]


# -- saved models are checked -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MODELS))
def test_saved_models_round_trip_and_edits_are_refused(name, tmp_path):
    est = _fit(name, 0)
    doc = model_to_dict(est)
    loaded = model_from_dict(json.loads(json.dumps(doc)))
    assert loaded.ledger_.to_dict() == est.ledger_.to_dict() and loaded.privacy_spent_ == est.privacy_spent_

    def refused(edit):
        bad = json.loads(json.dumps(doc))
        edit(bad)
        with pytest.raises(InvalidParameterError):
            model_from_dict(bad)

    def smaller_entry(d):
        d["ledger"]["entries"][0]["epsilon"] = 0.001

    def smaller_total(d):
        d["privacy"]["epsilon"] = d["privacy"]["epsilon"] / 1000

    def entry_above_budget(d):
        d["ledger"]["entries"].append({"label": "extra", "mechanism": "", "epsilon": 10.0, "delta": 0.0})

    def negative_epsilon(d):
        d["params"]["epsilon"] = -1

    def unknown_parameter(d):
        d["params"]["orientaton"] = "above"

    for edit in (smaller_entry, smaller_total, entry_above_budget, negative_epsilon, unknown_parameter):
        refused(edit)


def test_malformed_files_are_refused_with_a_message(tmp_path):
    for text in ("[]", "{}", '{"format": "privpac-model/2", "model": "threshold"}'):
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(InvalidParameterError):
            load_model(path)


# -- known-broken variants are recorded as not private ------------------------------------------------


def _literal_fits():
    X = np.arange(40).reshape(-1, 1)
    y = (X[:, 0] < 10).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rect = PrivateRectangleClassifier(domain=(0, 63), variant="paper-literal", random_state=0).fit(
            np.column_stack([X[:, 0], X[:, 0]]), y
        )
        margin = PrivateHalfspaceClassifier(
            domain=1.0, margin=0.3, variant="paper-literal", optimizer="dpgd", random_state=0
        ).fit(np.column_stack([np.ones(40) * 0.5, np.zeros(40)]), y)
        below = PointSanitizer(
            epsilon=1.0, delta=1e-3, domain=(0, 15), alpha=0.8, beta=0.5, unsafe_skip_precondition=True, random_state=0
        ).fit([3, 5], counts=[6, 2])
    return {"RM-R4": rect, "E-NUZ1": margin, "E18": below}


def test_known_broken_variants_are_recorded_as_not_private(tmp_path):
    for erratum, est in _literal_fits().items():
        spent = est.privacy_spent_
        assert not spent.private and erratum in spent.not_private and spent.epsilon == math.inf
        assert any("NOT PRIVATE" in line and erratum in line for line in est.ledger_.lines())
        doc = model_to_dict(est)
        assert doc["privacy"]["private"] is False and erratum in doc["privacy"]["not_private"]
        path = save_model(est, tmp_path / f"{erratum}.json")
        assert not load_model(path).privacy_spent_.private  # and the check on load keeps it so
        shown = CliRunner().invoke(main, ["show", str(path)])
        assert shown.exit_code == 0 and "NOT PRIVATE" in shown.output and erratum in shown.output
    # the learner function's ledger says it too
    ledger = PrivacyLedger(1.0, 1e-3)
    with pytest.warns(PaperLiteralWarning):
        learn_point([3, 3, 5], [1, 1, 1], 16, 1.0, 1e-3, variant="paper-literal", ledger=ledger, rng=0)
    assert "E1" in ledger.privacy_spent().not_private


def test_correct_variants_are_recorded_as_private():
    est = _fit("threshold", 0)
    assert est.privacy_spent_.private and est.privacy_spent_ == (1.0, 0.0)  # the exponential mechanism: pure
    assert "NOT PRIVATE" not in "\n".join(est.ledger_.lines())


# -- regressions of the release-privacy issue -------------------------------------------------------


def test_no_piece_count_reaches_a_ledger():
    X1 = np.array([[3], [9], [17], [30]])
    X2 = np.array([[3], [9], [17], [17]])  # one distinct value fewer
    y = np.array([1, 1, 0, 0])
    fits = [
        PrivateThresholdClassifier(domain=(0, 63), method="exponential", random_state=0).fit(X, y) for X in (X1, X2)
    ]
    assert fits[0].ledger_.lines() == fits[1].ledger_.lines()
    assert "pieces" not in "\n".join(fits[0].ledger_.lines())


def test_the_pure_margin_learner_stores_no_training_count(tmp_path):
    kw, args, _ = fit_arguments("halfspace-margin")
    est = PrivateHalfspaceClassifier(**kw, variant="pure", delta=0.0, random_state=0).fit(*args)
    assert set(est.details_) == {"variant", "projection_dim", "identity", "net_size", "chosen"}
    assert "violations" not in json.dumps(model_to_dict(est))


class CountingSource(SeededRandom):
    """A seeded source that counts the random words it hands out."""

    def __init__(self, seed):
        super().__init__(seed)
        self.words = 0

    def random_words(self, n):
        self.words += int(n)
        return super().random_words(n)

    def spawn(self):
        return self  # one counter for the whole run


def test_randmargins_charges_before_it_draws():
    plan = plan_randmargins(1.0, 1e-6, 15, dimension=2)
    P = np.full((50, 2), 7)
    src = CountingSource(0)
    with pytest.raises(BudgetExceededError):
        run_randmargins(P, plan, rng=src, ledger=PrivacyLedger(0.5, 1e-6))
    assert src.words == 0  # no tag and no window size was drawn
    run_randmargins(P, plan, rng=src, ledger=PrivacyLedger(1.0, 1e-6))
    assert src.words > 0


def test_paper_calibration_with_approximate_interior_point_is_refused():
    est = PrivateRectangleClassifier(domain=(0, 63), constants="paper", interior_point="recconcave", random_state=0)
    X = np.arange(40).reshape(-1, 1)
    with pytest.raises(InvalidParameterError, match="RM-R8"):
        est.fit(np.column_stack([X[:, 0], X[:, 0]]), (X[:, 0] < 10).astype(int))
    # with a pure interior point the paper's calibration runs
    PrivateRectangleClassifier(domain=(0, 63), constants="paper", random_state=0).fit(
        np.column_stack([X[:, 0], X[:, 0]]), (X[:, 0] < 10).astype(int)
    )


# -- the whole release on neighbouring datasets -------------------------------------------------------

#: The saved-state fields that are private outputs of the mechanisms (or their post-processing):
#: the only fields allowed to differ between neighbouring datasets fitted with the same seed.
PRIVATE_OUTPUTS = {
    "center-point": {"center"},
    "linear-feasibility": {"solution"},
    "halfspace-feasibility": {"coef", "intercept", "degenerate"},
    "halfspace-tukey": {"coef", "intercept"},
    "halfspace-margin": {"coef", "intercept", "projected_coef"},
    "histogram": {"counts"},
    "k-point": {"database"},
    "san-points": {"database"},
    "san-thresholds": {"database"},
    "label-private": {"hypothesis"},
    "median": {"median_index"},
    "point": {"point", "released"},
    "rectangle": {"box", "thresholds", "details"},
    "threshold": {"threshold", "orientation"},
}


def _neighbour(args, fit_kw, labels_only=False):
    """Replace one record (the first) by another value of the domain; the shape stays the same.
    ``labels_only``: neighbours of a label-private learner differ in one label (the features are public)."""
    args, fit_kw = list(args), dict(fit_kw)
    if "counts" in fit_kw:  # weighted values: one record moves from the first value to the second
        counts = list(fit_kw["counts"])
        counts[0], counts[1] = counts[0] - 1, counts[1] + 1
        fit_kw["counts"] = counts
        return args, fit_kw
    if not labels_only:
        X = np.array(args[0], copy=True)
        X[0] = X[1]
        args[0] = X
    if len(args) > 1:
        y = np.array(args[1], copy=True)
        y[0] = 1 - y[0] if labels_only else y[1]
        args[1] = y
    return args, fit_kw


@pytest.mark.parametrize("name", sorted(MODELS))
def test_neighbours_change_the_private_outputs_only(name):
    """With the same seed, everything a fit saves (parameters, ledger, privacy, shape, every state
    field) is identical on neighbouring datasets, except the reviewed private outputs."""
    assert set(PRIVATE_OUTPUTS) == set(MODELS), "review the private outputs of a new model"
    kw, args, fit_kw = fit_arguments(name, 0)
    releases = []
    for a, k in ((args, fit_kw), _neighbour(args, fit_kw, labels_only=name == "label-private")):
        doc = model_to_dict(MODELS[name](**kw, random_state=3).fit(*a, **k))
        doc["state"] = {key: value for key, value in doc["state"].items() if key not in PRIVATE_OUTPUTS[name]}
        releases.append(doc)
    assert releases[0] == releases[1]

"""scikit-learn with ``array_api_dispatch=True`` on stridex arrays, against the same call on NumPy.

Not here, since they fail on array-api-strict as well (scikit-learn's limits, not stridex's):
``roc_auc_score`` (calls ``xp.diff`` with a positional ``n``, which the standard makes keyword-only) and
``LinearDiscriminantAnalysis(solver="eigen" or "lsqr")`` (``_class_cov`` computes with NumPy on the
array-API array); LinearDiscriminantAnalysis supports the array API with ``solver="svd"``.

The estimators here are the ones whose ``array_api_support`` tag is true in scikit-learn 1.9
(PCA, LinearDiscriminantAnalysis, Ridge, the scalers, ...); fitted attributes and results must be
stridex arrays, as scikit-learn documents for array-API inputs.
"""

import numpy as np
import pytest

from .conftest import require_scipy_array_api
from .helpers import assert_matches_numpy, is_stridex, np_copies, to_sx

pytest.importorskip("sklearn")
require_scipy_array_api()

import sklearn
from sklearn import metrics
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import LogisticRegression, Ridge, RidgeCV
from sklearn.metrics import pairwise
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import (
    LabelEncoder,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    PolynomialFeatures,
    StandardScaler,
    normalize,
)

rng = np.random.default_rng(7)
X = rng.normal(size=(30, 4))
Y = rng.normal(size=(5, 4))
y = X @ np.asarray([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=30)
y_pred = y + 0.3 * rng.normal(size=30)
labels = (y > 0).astype(np.int64) + (y > 1.5)
labels_pred = np.roll(labels, 3)
proba = rng.uniform(0.05, 0.95, size=30)


@pytest.fixture(autouse=True)
def array_api_dispatch():
    with sklearn.config_context(array_api_dispatch=True):
        yield


def _case(name, func, *args, rtol=1e-7, marks=()):
    return pytest.param(func, args, rtol, id=name, marks=marks)


FUNCTIONS = [
    _case("r2_score", metrics.r2_score, y, y_pred),
    _case("mean_squared_error", metrics.mean_squared_error, y, y_pred),
    _case("mean_absolute_error", metrics.mean_absolute_error, y, y_pred),
    _case("explained_variance_score", metrics.explained_variance_score, y, y_pred),
    _case("mean_tweedie_deviance", lambda a, b: metrics.mean_tweedie_deviance(a, b, power=0), y, y_pred),
    _case("accuracy_score", metrics.accuracy_score, labels, labels_pred),
    _case("zero_one_loss", metrics.zero_one_loss, labels, labels_pred),
    _case("f1_score", lambda a, b: metrics.f1_score(a, b, average="macro"), labels, labels_pred),
    _case("confusion_matrix", metrics.confusion_matrix, labels, labels_pred),
    _case("log_loss", metrics.log_loss, (labels > 0).astype(np.int64), proba),
    _case("euclidean_distances", pairwise.euclidean_distances, X, Y),
    _case("manhattan_distances", pairwise.manhattan_distances, X, Y),
    _case("cosine_similarity", pairwise.cosine_similarity, X, Y),
    _case("rbf_kernel", lambda a, b: pairwise.rbf_kernel(a, b, gamma=0.3), X, Y),
    _case("polynomial_kernel", lambda a, b: pairwise.polynomial_kernel(a, b, degree=2), X, Y),
    _case("linear_kernel", pairwise.linear_kernel, X, Y),
    _case("sigmoid_kernel", pairwise.sigmoid_kernel, X, Y),
    _case("pairwise_distances", lambda a: pairwise.pairwise_distances(a, metric="euclidean"), X),
    _case("pairwise_kernels", lambda a: pairwise.pairwise_kernels(a, metric="rbf"), X),
    _case("normalize-l2", normalize, X),
    _case("normalize-l1", lambda a: normalize(a, norm="l1", axis=0), X),
]


@pytest.mark.parametrize(("func", "args", "rtol"), FUNCTIONS)
def test_function_on_stridex_matches_numpy(func, args, rtol):
    expected = func(*np_copies(args))
    result = func(*(to_sx(a) for a in args))
    assert_matches_numpy(result, expected, rtol=rtol, atol=1e-10)


def _fit(est, *args):
    return est.fit(*(to_sx(a) for a in args)), sklearn.clone(est).fit(*args)


TRANSFORMERS = [
    pytest.param(lambda: StandardScaler(), ["mean_", "scale_", "var_"], id="StandardScaler"),
    pytest.param(lambda: MinMaxScaler(), ["data_min_", "data_max_", "scale_"], id="MinMaxScaler"),
    pytest.param(lambda: MaxAbsScaler(), ["max_abs_"], id="MaxAbsScaler"),
    pytest.param(lambda: Normalizer(), [], id="Normalizer"),
    pytest.param(lambda: PolynomialFeatures(degree=2), [], id="PolynomialFeatures"),
    pytest.param(lambda: PCA(n_components=2, svd_solver="full"), ["explained_variance_"], id="PCA-full"),
    pytest.param(lambda: PCA(n_components=2, svd_solver="covariance_eigh"), ["explained_variance_"], id="PCA-eigh"),
    pytest.param(lambda: Nystroem(n_components=10, random_state=0), [], id="Nystroem"),
]


@pytest.mark.parametrize(("make", "attrs"), TRANSFORMERS)
def test_transformer_fit_transform_on_stridex_matches_numpy(make, attrs):
    est_sx, est_np = _fit(make(), X)
    for attr in attrs:
        assert_matches_numpy(getattr(est_sx, attr), getattr(est_np, attr), atol=1e-10)
    got, want = est_sx.transform(to_sx(Y)), est_np.transform(Y)
    if isinstance(est_sx, PCA):  # component signs are arbitrary: compare up to a sign per column
        signs = np.sign(np.asarray(got)[0]) * np.sign(want[0])
        want = want * signs
    assert_matches_numpy(got, want, atol=1e-10)
    if hasattr(est_sx, "inverse_transform") and not isinstance(est_sx, (Normalizer, PCA)):
        assert_matches_numpy(est_sx.inverse_transform(got), est_np.inverse_transform(want), atol=1e-10)


def test_ridge_svd_on_stridex_matches_numpy():
    est_sx, est_np = _fit(Ridge(alpha=0.5, solver="svd"), X, y)
    assert_matches_numpy(est_sx.coef_, est_np.coef_)
    assert_matches_numpy(est_sx.intercept_, est_np.intercept_)
    assert_matches_numpy(est_sx.predict(to_sx(Y)), est_np.predict(Y))
    assert_matches_numpy(est_sx.score(to_sx(X), to_sx(y)), est_np.score(X, y))


def test_ridge_cv_on_stridex_matches_numpy():
    est_sx, est_np = _fit(RidgeCV(alphas=(0.1, 1.0, 10.0)), X, y)
    assert float(est_sx.alpha_) == float(est_np.alpha_)
    assert_matches_numpy(est_sx.coef_, est_np.coef_)
    assert_matches_numpy(est_sx.predict(to_sx(Y)), est_np.predict(Y))


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: LinearDiscriminantAnalysis(solver="svd"), id="LDA-svd"),
        pytest.param(lambda: GaussianNB(), id="GaussianNB"),
        pytest.param(lambda: LogisticRegression(solver="lbfgs", max_iter=200), id="LogisticRegression"),
    ],
)
def test_classifier_on_stridex_matches_numpy(make):
    est_sx, est_np = _fit(make(), X, labels)
    assert is_stridex(est_sx.classes_)
    assert_matches_numpy(est_sx.predict(to_sx(Y)), est_np.predict(Y))
    assert_matches_numpy(est_sx.predict_proba(to_sx(Y)), est_np.predict_proba(Y), rtol=1e-5, atol=1e-8)


def test_lda_transform_on_stridex_matches_numpy():
    est_sx, est_np = _fit(LinearDiscriminantAnalysis(n_components=2), X, labels)
    got, want = np.asarray(est_sx.transform(to_sx(Y))), est_np.transform(Y)
    np.testing.assert_allclose(np.abs(got), np.abs(want), rtol=1e-7, atol=1e-10)  # signs are arbitrary


def test_label_encoder_on_stridex_matches_numpy():
    enc_sx, enc_np = _fit(LabelEncoder(), labels * 3)
    assert_matches_numpy(enc_sx.classes_, enc_np.classes_)
    assert_matches_numpy(enc_sx.transform(to_sx(labels * 3)), enc_np.transform(labels * 3))


def test_float32_inputs_keep_float32():
    X32 = X.astype(np.float32)
    assert_matches_numpy(StandardScaler().fit_transform(to_sx(X32)), StandardScaler().fit_transform(X32), rtol=1e-5)
    assert_matches_numpy(pairwise.rbf_kernel(to_sx(X32)), pairwise.rbf_kernel(X32), rtol=1e-5)

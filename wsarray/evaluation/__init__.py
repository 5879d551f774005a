"""wsarray.evaluation: streaming metrics that evaluate a model batch by batch without keeping its
predictions (Deeplearning4j's IEvaluation family, scikit-learn's definitions).

* ``Evaluation`` (accuracy, precision, recall, F1, F-beta, Matthews correlation, top-N, confusion
  matrix; macro, micro and weighted averages), ``EvaluationBinary`` (multi-label outputs).
* ``ROC`` (exact, or binned with a stated AUC error bound), ``ROCBinary``, ``ROCMultiClass``.
* ``RegressionEvaluation`` (MSE, MAE, RMSE, RSE, R², Pearson), ``EvaluationCalibration``.
* ``evaluate(model, data, *metrics)``: one pass, each batch in a workspace cycle;
  ``report_html(path, *metrics)``: one self-contained page.

Every metric has ``update(labels, predictions, mask=None)``, ``merge(other)``, ``reset()``,
``stats()`` and pickles (to send partial results between processes).
"""

from ._evaluate import evaluate
from ._inputs import EvaluationError, EvaluationWarning
from ._metric import Metric
from ._plots import report_html
from .calibration import EvaluationCalibration
from .classification import Evaluation, EvaluationBinary
from .regression import RegressionEvaluation
from .roc import ROC, ROCBinary, ROCMultiClass

__all__ = ["Evaluation", "EvaluationBinary", "EvaluationCalibration", "EvaluationError", "EvaluationWarning",
           "Metric", "ROC", "ROCBinary", "ROCMultiClass", "RegressionEvaluation", "evaluate", "report_html"]

"""ParallelWrapper.fit(eval_data=..., metrics=..., evaluate_every=...): the averaged model is evaluated
between rounds, the results equal evaluating the model by hand, and listeners get them."""
import logging

import numpy as np
import pytest

import wsarray as wnp
from wsarray.data import PerformanceListener
from wsarray.evaluation import ROC, Evaluation, evaluate
from wsarray.parallel import ParallelWrapper

from test_parallel_wrapper import LogReg, dataset


class Classifier(LogReg):
    def output(self, x):
        return 1 / (1 + wnp.exp(-(wnp.asarray(x) @ self.params["w"] + self.params["b"])))


def test_each_epoch_is_evaluated_and_the_last_result_is_the_models(caplog):
    batches, x, y = dataset()
    held_out = [(x[i:i + 256], y[i:i + 256].astype(int)) for i in range(0, 1024, 256)]
    model = Classifier(8)
    listener = PerformanceListener(progress=False)
    seen = []
    ev, roc = Evaluation(2), ROC()
    with caplog.at_level(logging.INFO, logger="wsarray.data"):
        ParallelWrapper(model, workers=2, averaging_frequency=4).fit(
            batches, epochs=2, eval_data=held_out, metrics=[ev, roc], eval_listener=listener)
    wrapper = ParallelWrapper(Classifier(8), workers=2, averaging_frequency=4,
                              listener=lambda *a: None)
    wrapper.fit(batches, epochs=1, eval_data=held_out, metrics=[Evaluation(2)], evaluate_every=8,
                eval_listener=lambda it, epoch, metrics: seen.append((it, epoch, metrics[0].accuracy())))
    assert [e["epoch"] for e in listener.evaluations] == [0, 1]
    assert "evaluation at iteration" in caplog.text and "ROC.auc" in caplog.text
    by_hand_ev, by_hand_roc = evaluate(model, held_out, Evaluation(2), ROC())  # the final model
    np.testing.assert_array_equal(ev.confusion_matrix(), by_hand_ev.confusion_matrix())
    assert roc.auc() == pytest.approx(by_hand_roc.auc(), abs=1e-12) and roc.auc() > 0.8
    assert listener.evaluations[-1]["ROC.auc"] == pytest.approx(roc.auc())
    iterations = [it for it, _, _ in seen]
    assert len(seen) == len(wrapper.evaluations) >= 3 and all(b - a >= 8 for a, b in zip(iterations, iterations[1:]))
    assert all(0 <= acc <= 1 for _, _, acc in seen)


def test_evaluation_settings_are_checked_before_training():
    batches, x, y = dataset(n=256)
    held_out = [(x[:64], y[:64].astype(int))]
    wrapper = ParallelWrapper(Classifier(8), workers=2)
    with pytest.raises(ValueError, match="need eval_data"):
        wrapper.fit(batches, metrics=[Evaluation(2)])
    with pytest.raises(ValueError, match="give at least one metric"):
        wrapper.fit(batches, eval_data=held_out)
    with pytest.raises(TypeError, match="must be re-iterable"):
        wrapper.fit(batches, eval_data=iter(held_out), metrics=[Evaluation(2)])
    with pytest.raises(ValueError, match="evaluate_every must be a positive int"):
        wrapper.fit(batches, eval_data=held_out, metrics=[Evaluation(2)], evaluate_every=0)
    with pytest.raises(TypeError, match="model must be callable or have an output"):
        ParallelWrapper(LogReg(8), workers=2).fit(batches, eval_data=held_out, metrics=[Evaluation(2)])
    assert wrapper.stats()["iterations"] == 0  # nothing trained

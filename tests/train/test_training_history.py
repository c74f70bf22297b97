"""History: per-epoch values by name, a plain-dict round trip, and a plot."""

from __future__ import annotations

import json

import pytest
from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.train import History


def sample_history() -> History:
    return History(
        train_loss=[3.0, 2.0, 1.5],
        val_loss=[3.2, 2.5, 2.7],
        metrics={"accuracy": [0.2, 0.5, 0.4]},
        step_loss=[3.5, 2.5, 2.1, 1.9, 1.6, 1.4],
        grad_norm=[9.0, 4.0, 3.0, 2.0, 1.0, 1.0],
        best_epoch=2,
    )


def test_values_by_name() -> None:
    history = sample_history()
    assert history.epochs == 3
    assert history.values("val_loss") == [3.2, 2.5, 2.7]
    assert history.values("accuracy") == [0.2, 0.5, 0.4]
    with pytest.raises(KeyError, match="known: \\['train_loss', 'val_loss', 'accuracy'\\]"):
        history.values("bleu")


def test_dict_round_trip_is_json_ready() -> None:
    history = sample_history()
    record = json.loads(json.dumps(history.to_dict()))
    assert History.from_dict(record) == history
    assert record["best_epoch"] == 2 and record["stopped_early"] is False


def test_plot_draws_one_panel_per_quantity() -> None:
    figure = sample_history().plot()
    assert isinstance(figure, Figure)
    loss_axes, accuracy_axes = figure.axes
    assert [line.get_label() for line in loss_axes.get_lines()][:2] == ["train_loss", "val_loss"]
    assert list(loss_axes.get_lines()[1].get_ydata()) == [3.2, 2.5, 2.7]
    assert accuracy_axes.get_ylabel() == "accuracy" and loss_axes.get_ylabel() == "loss"
    assert figure.get_size_inches()[0] <= TEXT_COLUMN_WIDTH
    assert list(accuracy_axes.get_lines()[0].get_xdata()) == [1, 2, 3]
    assert len(History(train_loss=[1.0]).plot().axes) == 1

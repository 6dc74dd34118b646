"""Supervised fitting by shuffled minibatches with AdamW: one loop for the networks fitted here
(the BC policy, the learned progress model). torch is imported when it runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def fit_minibatches(module: Any, loss_of: Callable[[Any], Any], n: int, epochs: int, batch_size: int, lr: float,
                    weight_decay: float, seed: int) -> list[float]:
    """``epochs`` passes over rows ``0..n-1`` in a seeded random order, one AdamW step on
    ``loss_of(rows)`` (a scalar tensor, rows a LongTensor) per minibatch of ``module``'s
    parameters. Returns each epoch's mean loss per row."""
    import torch

    optimizer = torch.optim.AdamW(module.parameters(), lr=lr, weight_decay=weight_decay)
    generator = torch.Generator().manual_seed(seed)
    history = []
    for _ in range(epochs):
        order = torch.randperm(n, generator=generator)
        total = 0.0
        for i in range(0, n, batch_size):
            rows = order[i : i + batch_size]
            loss = loss_of(rows)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(rows)
        history.append(total / n)
    return history

"""A policy that scores menu slots by what they hold (a DRRN-style pointer), for state-dependent menus.

An ``mmenvs.wrappers`` menu whose slots change meaning with the state (MMToolSandbox's candidate
calls, MacAgent's click targets) defeats a policy whose output ``i`` is a fixed linear read-out of the
observation: the right call sits in a different slot in every episode. The Deep Reinforcement
Relevance Network (He et al., 2016) answers this for text games with admissible actions: embed the
state and each action separately and score every (state, action) pair with the same network. Here:

- the observation is a Dict with the key ``"menu"`` (``mmenvs.wrappers.MenuObservation``: row ``i`` the
  hashed label of slot ``i``, zeros when masked) and any context keys (hashed text, instruction, step);
- ``MenuContextExtractor`` concatenates the context keys into one vector and passes the menu rows on;
- ``SlotScorer`` embeds the context and every row, scores each row with one shared MLP over
  ``[context, row]``, and adds a learned bias per slot (what the slot's position means, e.g. "the
  first candidate call of the first relevant tool"); the scores are the logits, so slots share what
  they learn about content. The value head sees the context and the mean embedding of the available
  slots;
- ``SlotScoringPolicy`` is sb3-contrib's ``MaskableActorCriticPolicy`` with these two parts, for
  ``MaskablePPO`` (the menu's ``action_masks()`` keep masked slots out).

``mmenvs train ... --algo maskable_ppo`` uses it for a family whose ``policy`` is ``"slots"``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

MENU_KEY = "menu"


def _menu_shape(observation_space: spaces.Dict) -> tuple[int, int]:
    menu = observation_space.spaces.get(MENU_KEY) if isinstance(observation_space, spaces.Dict) else None
    if menu is None or len(menu.shape) != 2:
        raise ValueError(f"SlotScoringPolicy needs a Dict observation with a 2-D {MENU_KEY!r} key (MenuObservation, "
                         f"flat=False), got {observation_space}")
    return int(menu.shape[0]), int(menu.shape[1])


class MenuContextExtractor(BaseFeaturesExtractor):
    """``[context keys flattened and concatenated (sorted by name), menu rows flattened]``: the scorer
    splits it again (``context_dim`` first, then ``slots * row_dim``)."""

    def __init__(self, observation_space: spaces.Dict) -> None:
        slots, row_dim = _menu_shape(observation_space)
        self.context_keys = sorted(k for k in observation_space.spaces if k != MENU_KEY)
        for key in self.context_keys:
            space = observation_space.spaces[key]
            if not isinstance(space, spaces.Box) or space.dtype.kind != "f":
                raise ValueError(f"SlotScoringPolicy: context key {key!r} must be a float Box (encoded text, step ...), "
                                 f"got {space}; images need a CNN, which this policy does not have")
        self.context_dim = sum(int(np.prod(observation_space.spaces[k].shape)) for k in self.context_keys)
        self.slots, self.row_dim = slots, row_dim
        super().__init__(observation_space, features_dim=self.context_dim + slots * row_dim)

    def forward(self, observations: dict[str, th.Tensor]) -> th.Tensor:
        batch = observations[MENU_KEY].shape[0]
        parts = [observations[k].reshape(batch, -1) for k in self.context_keys]
        return th.cat([*parts, observations[MENU_KEY].reshape(batch, -1)], dim=1)


class SlotScorer(nn.Module):
    """The policy's latent: ``latent_pi`` is one score per slot (the logits), ``latent_vf`` a value feature."""

    def __init__(self, context_dim: int, slots: int, row_dim: int, hidden: int = 64) -> None:
        super().__init__()
        self.context_dim, self.slots, self.row_dim = context_dim, slots, row_dim
        self.latent_dim_pi, self.latent_dim_vf = slots, hidden
        self.context = nn.Sequential(nn.Linear(max(1, context_dim), hidden), nn.Tanh())
        self.row = nn.Sequential(nn.Linear(row_dim, hidden), nn.Tanh())
        self.pair = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.slot_bias = nn.Parameter(th.zeros(slots))
        self.value = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.Tanh())
        with th.no_grad():  # near-uniform first logits: exploration starts from the mask's uniform choice
            self.pair[-1].weight.mul_(0.01)
            self.pair[-1].bias.zero_()

    def _embed(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """The context embedding, every row's embedding, and which rows hold an option (a masked slot's row is zeros)."""
        batch = features.shape[0]
        context = features[:, : self.context_dim] if self.context_dim else features.new_zeros(batch, 1)
        rows = features[:, self.context_dim:].reshape(batch, self.slots, self.row_dim)
        present = (rows.abs().sum(dim=2, keepdim=True) > 0).float()
        return self.context(context), self.row(rows), present

    def _scores(self, context: th.Tensor, rows: th.Tensor) -> th.Tensor:
        pairs = th.cat([context.unsqueeze(1).expand(-1, self.slots, -1), rows], dim=2)
        return self.pair(pairs).squeeze(2) + self.slot_bias

    def _value(self, context: th.Tensor, rows: th.Tensor, present: th.Tensor) -> th.Tensor:
        pooled = (rows * present).sum(dim=1) / present.sum(dim=1).clamp(min=1.0)
        return self.value(th.cat([context, pooled], dim=1))

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        context, rows, _ = self._embed(features)
        return self._scores(context, rows)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self._value(*self._embed(features))

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        context, rows, present = self._embed(features)
        return self._scores(context, rows), self._value(context, rows, present)


class SlotScoringPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose logits are ``SlotScorer``'s per-slot scores (see the module).

    ``policy_kwargs``: ``hidden`` (64), the width of every embedding."""

    def __init__(self, observation_space: gym.Space, action_space: gym.Space, lr_schedule: Any, *, hidden: int = 64,
                 **kwargs: Any) -> None:
        slots, _ = _menu_shape(observation_space)
        if not isinstance(action_space, spaces.Discrete) or int(action_space.n) != slots:
            raise ValueError(f"SlotScoringPolicy: the action space must be Discrete({slots}), one action per menu row, "
                             f"got {action_space}")
        self.hidden = int(hidden)
        kwargs.setdefault("features_extractor_class", MenuContextExtractor)
        kwargs.setdefault("ortho_init", False)  # the scorer's default init keeps the first logits near uniform
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        extractor = self.features_extractor
        self.mlp_extractor = SlotScorer(extractor.context_dim, extractor.slots, extractor.row_dim, self.hidden)

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> Any:
        # The slot scores are the logits: no action_net layer mixes slots (it would tie logits to positions).
        return self.action_dist.proba_distribution(action_logits=latent_pi)

"""``baselines.rl.slot_policy``: the DRRN-style policy that scores menu slots by their rows.

- the scores are shared across slots: permuting the rows permutes the logits (with the per-slot bias
  at zero), and a masked (all-zero) row does not move the value;
- it learns what the content marks and carries it to slots it never saw it in: a bandit whose rewarded
  option sits in a random slot of the first half during training and of the second half at test,
  where an index policy (SB3's MultiInputPolicy over the flattened rows) is no better than chance;
- the MMToolSandbox ``records`` family builds the observation it needs (menu rows + context keys).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch as th
from gymnasium import spaces

from mmenvs.baselines.rl.slot_policy import MenuContextExtractor, SlotScorer, SlotScoringPolicy
from mmenvs.wrappers.observations import HashedText

SLOTS, ROW = 8, 16
LABELS = ("gold", "lead", "tin", "iron", "zinc", "copper", "nickel", "cobalt")


class FindTheGold(gym.Env):
    """One-step episodes: the menu holds 5 of the 8 metals in random slots (3 masked); choosing the slot
    that holds "gold" pays 1. The context is noise, so only the rows tell where gold is. Gold sits in
    one of ``gold_slots``."""

    def __init__(self, gold_slots: range = range(SLOTS)) -> None:
        self.gold_slots = list(gold_slots)
        self.observation_space = spaces.Dict({"menu": spaces.Box(-1.0, 1.0, (SLOTS, ROW), np.float32),
                                              "noise": spaces.Box(-1.0, 1.0, (4,), np.float32)})
        self.action_space = spaces.Discrete(SLOTS)
        self.encoder = HashedText(ROW, bigrams=False)
        self._gold = 0
        self._mask = np.ones(SLOTS, dtype=bool)

    def _observe(self) -> dict[str, np.ndarray]:
        rows = np.zeros((SLOTS, ROW), dtype=np.float32)
        gold = int(self.np_random.choice(self.gold_slots))
        slots = [gold, *self.np_random.permutation([s for s in range(SLOTS) if s != gold])[:4]]
        names = ["gold", *self.np_random.permutation(LABELS[1:])[:4]]
        self._mask = np.zeros(SLOTS, dtype=bool)
        for slot, name in zip(slots, names):
            rows[slot] = self.encoder(f"take the {name}")
            self._mask[slot] = True
        self._gold = int(slots[0])
        return {"menu": rows, "noise": self.np_random.uniform(-1, 1, 4).astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        return self._observe(), {"action_mask": self._mask.copy()}

    def step(self, action):
        reward = float(int(action) == self._gold)
        return self._observe(), reward, True, False, {"action_mask": self._mask.copy()}

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()


def _features(env: FindTheGold, obs: dict[str, np.ndarray]) -> th.Tensor:
    extractor = MenuContextExtractor(env.observation_space)
    return extractor({k: th.as_tensor(v)[None] for k, v in obs.items()})


def test_scores_follow_the_rows_not_the_slots():
    env = FindTheGold()
    obs, _ = env.reset(seed=0)
    th.manual_seed(0)
    scorer = SlotScorer(context_dim=4, slots=SLOTS, row_dim=ROW, hidden=16)
    with th.no_grad():
        scorer.pair[-1].weight.normal_()  # non-trivial scores (the default init keeps them near zero)
        logits, value = scorer(_features(env, obs))
        order = np.random.default_rng(1).permutation(SLOTS)
        permuted = {**obs, "menu": obs["menu"][order]}
        logits_p, value_p = scorer(_features(env, permuted))
    assert logits.shape == (1, SLOTS) and value.shape == (1, 16)
    np.testing.assert_allclose(logits_p[0].numpy(), logits[0].numpy()[order], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(value_p.numpy(), value.numpy(), rtol=1e-5, atol=1e-6)  # the pooled rows do not depend on order
    assert len({round(float(x), 5) for x in logits[0][env.action_masks()]}) > 1  # it does tell the options apart


def test_the_slot_bias_scores_positions():
    scorer = SlotScorer(context_dim=4, slots=SLOTS, row_dim=ROW, hidden=16)
    with th.no_grad():
        scorer.slot_bias.copy_(th.arange(SLOTS, dtype=th.float32))
        logits = scorer.forward_actor(th.zeros(1, 4 + SLOTS * ROW))
    np.testing.assert_allclose(np.diff(logits[0].numpy()), np.ones(SLOTS - 1), rtol=1e-5)


def test_the_policy_checks_its_spaces():
    env = FindTheGold()
    with pytest.raises(ValueError, match=r"Discrete\(8\), one action per menu row"):
        SlotScoringPolicy(env.observation_space, spaces.Discrete(5), lambda _: 1e-3)
    with pytest.raises(ValueError, match="2-D 'menu' key"):
        SlotScoringPolicy(spaces.Dict({"x": spaces.Box(0, 1, (3,))}), spaces.Discrete(3), lambda _: 1e-3)


def _success(model, env: FindTheGold, episodes: int, seed: int) -> float:
    obs, info = env.reset(seed=seed)
    wins = 0
    for _ in range(episodes):
        action, _ = model.predict(obs, deterministic=True, action_masks=info["action_mask"])
        obs, reward, _, _, info = env.step(action)
        wins += reward
    return wins / episodes


def test_it_carries_what_the_content_marks_to_new_slots_and_an_index_policy_does_not():
    from sb3_contrib import MaskablePPO

    th.set_num_threads(1)
    kwargs = {"n_steps": 128, "batch_size": 64, "n_epochs": 4, "learning_rate": 3e-3, "seed": 0, "device": "cpu"}
    seen, unseen = range(0, 4), range(4, SLOTS)
    slots = MaskablePPO(SlotScoringPolicy, FindTheGold(seen), policy_kwargs={"hidden": 32}, **kwargs).learn(3000)
    index = MaskablePPO("MultiInputPolicy", FindTheGold(seen), **kwargs).learn(3000)
    assert _success(slots, FindTheGold(seen), 200, seed=123) >= 0.9
    assert _success(index, FindTheGold(seen), 200, seed=123) >= 0.9  # both learn the slots they were trained on
    assert _success(slots, FindTheGold(unseen), 200, seed=123) >= 0.8  # the shared scorer reads the row
    assert _success(index, FindTheGold(unseen), 200, seed=123) <= 0.35  # chance is 1/5: its outputs are per position


def test_records_family_observes_the_menu_rows_and_context():
    from mmenvs.baselines.rl import FAMILIES

    family = FAMILIES["MMToolSandbox-v0"]["records"]
    env = family.make(split="eval")
    try:
        space = env.observation_space
        assert set(space.spaces) == {"instruction", "last_result", "menu", "step", "text"}
        assert space["menu"].shape == (env.action_space.n, family.menu_rows + 1)  # hashed label + how often sent
        obs, info = env.reset(options={"task_id": env.unwrapped.task_ids()[0]})
        present = np.abs(obs["menu"]).sum(axis=1) > 0
        np.testing.assert_array_equal(present, info["action_mask"])  # a row for every option the menu holds, no other
        assert env.unwrapped.task.metadata["app_group"] in ("contacts", "payments", "todo")
    finally:
        env.close()

"""Observation wrappers for RL libraries: image only, image + encoded text, and ``MultiInputPolicy`` dicts.

The envs' observations carry text (``UnicodeText``), which SB3 and most RL code cannot take. These
wrappers turn it into fixed-length numbers:

- ``ImageObservation`` (alias ``ImageOnly``, in ``discrete``): the ``(H, W, 3)`` uint8 image alone, for
  ``CnnPolicy``.
- ``ImageText``: ``Dict(image, text)``, the text a hashed bag-of-words vector (``HashedText``), for
  ``MultiInputPolicy``.
- ``MultiInputObservation``: any of ``image``, encoded text keys (``text``, ``instruction``, MacAgent's
  ``a11y``), the ``step`` count, the ``last_result`` of the previous action and the ``instruction``
  (encoded). ``ImageText`` is this with its defaults.
- ``MenuObservation``: adds ``"menu"``, the hashed label of every slot of an action menu, so a policy
  can score options by their content.

Text encoding (``HashedText``): lower-cased word tokens (``\\w+``) and their bigrams, each hashed with
BLAKE2b (stable across processes and runs, unlike ``hash()``) to one of ``dim`` buckets with a
sign (the "hashing trick"), counts summed and the vector scaled to unit L2 norm (all zero for empty
text). Values lie in [-1, 1], dtype float32.

The instruction: MacAgent observations carry it (``obs["instruction"]``); for the other envs it is the
text of the reset observation (the user's first message, the question), kept for the whole episode.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mmenvs.core import UnicodeText

_TOKEN = re.compile(r"\w+")


@lru_cache(maxsize=65_536)
def _bucket(token: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, (1.0 if (value >> 63) & 1 else -1.0)


class HashedText:
    """A fixed-length hashed bag-of-words encoder: ``encoder(text)`` -> float32 ``(dim,)`` (see module doc)."""

    def __init__(self, dim: int = 256, bigrams: bool = True, max_chars: int = 20_000) -> None:
        if dim < 2:
            raise ValueError(f"HashedText: dim must be at least 2, got {dim}")
        self.dim, self.bigrams, self.max_chars = int(dim), bool(bigrams), int(max_chars)

    @property
    def space(self) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, shape=(self.dim,), dtype=np.float32)

    def tokens(self, text: str) -> list[str]:
        """The features of ``text``: its words (lower-cased) and, with ``bigrams``, adjacent word pairs."""
        words = _TOKEN.findall(text[: self.max_chars].lower())
        return words + [f"{a} {b}" for a, b in zip(words, words[1:])] if self.bigrams else words

    def __call__(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float64)
        for token in self.tokens(text):
            index, sign = _bucket(token, self.dim)
            vector[index] += sign
        norm = float(np.linalg.norm(vector))
        if norm > 0:
            vector /= norm
        return vector.astype(np.float32)


class MultiInputObservation(gym.Wrapper):
    """A ``Dict`` of Boxes that SB3's ``MultiInputPolicy`` takes (see the module doc).

    Keys (each optional):

    - ``image``: the env's uint8 ``(H, W, 3)`` image (``image=True``).
    - one key per name in ``text_keys``: that text of the observation, encoded (``HashedText(text_dim)``).
      Default ``("text",)``: what the last action produced (or the reset text).
    - ``instruction`` (``instruction=True``): the task instruction, encoded.
    - ``step`` (``step=True``): ``Box(0, 1, (1,))``, the env's step count over its ``max_steps``.
    - ``last_result`` (``last_result=True``): ``Box(0, 1, (3,))``: [the last action failed
      (``info["action_error"]`` set), the last action made new images (``info["images"]`` non-empty),
      the last step's reward clipped to [0, 1]]; zeros after reset. The text the action produced is
      the ``text`` key.
    """

    def __init__(self, env: gym.Env, *, image: bool = True, text_keys: Sequence[str] = ("text",), instruction: bool = False,
                 step: bool = False, last_result: bool = False, text_dim: int = 256) -> None:
        super().__init__(env)
        source = env.observation_space
        if not isinstance(source, spaces.Dict):
            raise ValueError(f"{type(self).__name__}: the wrapped env's observation space must be a Dict, got {source}")
        for key in text_keys:
            if not isinstance(source.spaces.get(key), UnicodeText):
                raise ValueError(f"{type(self).__name__}: text_keys names {key!r}, which is not a text key of the observation "
                                 f"(text keys: {[k for k, v in source.spaces.items() if isinstance(v, UnicodeText)]})")
        if image and "image" not in source.spaces:
            raise ValueError(f"{type(self).__name__}: the observation has no 'image' key")
        if "instruction" in text_keys and instruction:
            raise ValueError(f"{type(self).__name__}: 'instruction' is both in text_keys and instruction=True")
        self.encoder = HashedText(text_dim)
        self.image, self.text_keys = bool(image), tuple(text_keys)
        self.instruction, self.step_count, self.last_result = bool(instruction), bool(step), bool(last_result)
        keys: dict[str, spaces.Space] = {}
        if self.image:
            keys["image"] = source["image"]
        for key in self.text_keys:
            keys[key] = self.encoder.space
        if self.instruction:
            keys["instruction"] = self.encoder.space
        if self.step_count:
            keys["step"] = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
        if self.last_result:
            keys["last_result"] = spaces.Box(0.0, 1.0, shape=(3,), dtype=np.float32)
        if not keys:
            raise ValueError(f"{type(self).__name__}: no observation key selected")
        self.observation_space = spaces.Dict(keys)
        self._instruction_vector = np.zeros(self.encoder.dim, dtype=np.float32)
        self._has_instruction_key = "instruction" in source.spaces

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        if self.instruction:
            text = obs["instruction"] if self._has_instruction_key else obs["text"]
            self._instruction_vector = self.encoder(text)
        return self._encode(obs, np.zeros(3, dtype=np.float32)), info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        result = np.array([bool(info.get("action_error")), bool(info.get("images")), min(1.0, max(0.0, float(reward)))],
                          dtype=np.float32)
        return self._encode(obs, result), reward, terminated, truncated, info

    def _encode(self, obs: dict[str, Any], result: np.ndarray) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        if self.image:
            out["image"] = obs["image"]
        for key in self.text_keys:
            out[key] = self.encoder(obs[key])
        if self.instruction:
            out["instruction"] = self._instruction_vector.copy()
        if self.step_count:
            base = self.env.unwrapped
            steps, cap = getattr(base, "steps", 0), getattr(base, "max_steps", 0) or 1
            out["step"] = np.array([min(1.0, steps / cap)], dtype=np.float32)
        if self.last_result:
            out["last_result"] = result
        return out


class ImageText(MultiInputObservation):
    """``Dict(image=uint8 (H, W, 3), text=float32 (text_dim,))``: the image and the hashed text of the
    observation; ``instruction=True`` adds the encoded instruction, ``step``/``last_result`` as in
    ``MultiInputObservation``."""

    def __init__(self, env: gym.Env, *, text_dim: int = 256, instruction: bool = False, step: bool = False,
                 last_result: bool = False) -> None:
        super().__init__(env, image=True, text_keys=("text",), instruction=instruction, step=step, last_result=last_result,
                         text_dim=text_dim)


class MenuObservation(gym.Wrapper):
    """Add what every slot of an action menu holds now to a Dict observation, as key ``"menu"``:
    ``Box(-1, 1, (n, dim))``, row ``i`` the hashed words of slot ``i``'s label (``HashedText(dim)``;
    zeros for a masked slot), so a policy can score options by their content (a call's tool and
    arguments, an element's role and name) rather than by an index whose meaning moves with the state.

    Wrap it outside the menu and the Dict observation wrapper, e.g.
    ``MenuObservation(MultiInputObservation(action_menu(env)))``; the menu is found through the wrappers
    (``describe()``). ``flat=True`` gives the rows as one ``(n * dim,)`` vector (what SB3's
    ``MultiInputPolicy`` flattens them to anyway, without its warning about a 2-D key); the key is large
    for big menus: keep ``dim`` small (16). ``taken=True`` adds a last column: how often the option the
    slot holds now (by its label) was already sent this episode, ``min(n, 3) / 3``, so a policy that
    acts on the observation alone can tell a call it just made (whose result did not change the
    observation) from a new one, instead of repeating it.
    """

    def __init__(self, env: gym.Env, *, dim: int = 16, key: str = "menu", flat: bool = False, taken: bool = False) -> None:
        super().__init__(env)
        if not isinstance(env.observation_space, spaces.Dict):
            raise ValueError(f"MenuObservation: the wrapped env's observation space must be a Dict, got {env.observation_space}")
        if key in env.observation_space.spaces:
            raise ValueError(f"MenuObservation: the observation already has a key {key!r}")
        try:
            self._describe = env.get_wrapper_attr("describe")
        except AttributeError:
            raise ValueError("MenuObservation: no action menu (a wrapper with describe()) inside this env") from None
        self.size = len(self._describe())
        self.key, self.encoder, self.flat, self.taken = key, HashedText(dim, bigrams=False), bool(flat), bool(taken)
        self._encoded: dict[str, np.ndarray] = {}
        self._sent: dict[str, int] = {}
        self.row_dim = self.encoder.dim + int(self.taken)
        shape = (self.size * self.row_dim,) if self.flat else (self.size, self.row_dim)
        self.observation_space = spaces.Dict({**env.observation_space.spaces, key: spaces.Box(-1.0, 1.0, shape=shape, dtype=np.float32)})

    #: Encoded labels kept within an episode (most slots hold the same option from one step to the next).
    CACHE_LABELS = 4096

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._encoded, self._sent = {}, {}
        return self._with_menu(obs), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if info.get("menu_valid"):  # the menu names the option it sent (a masked slot sends none)
            label = info["menu_action"]
            self._sent[label] = self._sent.get(label, 0) + 1
        return self._with_menu(obs), reward, terminated, truncated, info

    def _with_menu(self, obs: dict[str, Any]) -> dict[str, Any]:
        rows = np.zeros((self.size, self.row_dim), dtype=np.float32)
        if len(self._encoded) > self.CACHE_LABELS:
            self._encoded.clear()
        for i, label in enumerate(self._describe()):
            if label:
                row = self._encoded.get(label)
                if row is None:
                    row = self._encoded[label] = self.encoder(label)
                rows[i, : self.encoder.dim] = row
                if self.taken:  # how often this very option was sent this episode (0, 1/3, 2/3, 1 for 3 or more)
                    rows[i, -1] = min(self._sent.get(label, 0), 3) / 3.0
        return {**obs, self.key: rows.reshape(-1) if self.flat else rows}

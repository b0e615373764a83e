"""ROUGE-L on word tokens, written for MMToolSandbox's scoring and user simulator.

ROUGE-L compares two texts by the longest common subsequence (LCS) of their tokens:
with ``l = LCS(a, b)``, precision ``l / len(b)``, recall ``l / len(a)`` and the F-measure
``2PR / (P + R) = 2l / (len(a) + len(b))`` (beta = 1, symmetric in a and b). Two empty
texts are identical (F = 1); an empty text against a non-empty one scores 0.

Tokens are the lower-cased ``\\w+`` runs of the text, so punctuation and case never matter:
``"Buy milk, eggs!"`` -> ``("buy", "milk", "eggs")``.

The LCS length is computed bit-parallel (Hyyrö 2004): the positions of each token in ``a`` form a
bit mask, and one pass over ``b`` updates a bit vector with an add, a subtract and two logic ops
per token. With Python integers that works for any length. For all pairs of two lists,
``RougeLPairs`` first counts shared token occurrences with a sparse product (an upper bound of the
LCS, and its exact value when 0 or 1), then runs the recurrence on numpy ``uint32``/``uint64``
arrays over just the pairs that need it, many at once (texts up to 64 tokens; longer ones use the
integer version pair by pair). ``rouge_l_matrix`` is the all-exact result.
"""

from __future__ import annotations

import re
from itertools import chain
from typing import Hashable, Iterable, Sequence

import numpy as np
from scipy import sparse

__all__ = ["RougeLPairs", "lcs_length", "rouge_l", "rouge_l_matrix", "rouge_l_text", "tokenize"]

_WORD = re.compile(r"\w+")
_WORD_BITS = 64


def tokenize(text: object) -> tuple[str, ...]:
    """Lower-cased word tokens of ``text`` (``None`` has none; other values are formatted with ``str``)."""
    if text is None:
        return ()
    if not isinstance(text, str):
        text = str(text)
    return tuple(_WORD.findall(text.lower()))


def lcs_length(a: Sequence[Hashable], b: Iterable[Hashable]) -> int:
    """Length of the longest common subsequence of two token sequences."""
    m = len(a)
    if m == 0:
        return 0
    masks: dict[Hashable, int] = {}
    for position, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << position)
    full = (1 << m) - 1
    v = full
    for token in b:
        u = v & masks.get(token, 0)
        if u:
            v = ((v + u) | (v - u)) & full
    # each zero bit left in v marks one step of the LCS
    return m - v.bit_count()


def rouge_l(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """ROUGE-L F-measure of two token sequences (symmetric; 1.0 for two empty sequences)."""
    total = len(a) + len(b)
    if total == 0:
        return 1.0
    if len(a) == 0 or len(b) == 0:
        return 0.0
    return 2.0 * lcs_length(a, b) / total


def rouge_l_text(a: object, b: object) -> float:
    """ROUGE-L F-measure of two texts, tokenized with :func:`tokenize`."""
    return rouge_l(tokenize(a), tokenize(b))


def rouge_l_matrix(xs: Sequence[Sequence[Hashable]], ys: Sequence[Sequence[Hashable]]) -> np.ndarray:
    """ROUGE-L F-measure of every pair: a ``(len(xs), len(ys))`` float array."""
    return RougeLPairs(xs, ys).exact()


class RougeLPairs:
    """ROUGE-L F-measures of all pairs of two token-sequence lists, computed lazily.

    Construction is cheap: a sparse product of token-occurrence matrices gives, per pair, the
    number of shared token occurrences, which bounds the LCS from above and equals it when it is
    0 or 1 (the common case for unrelated texts); identical sequences are settled too. The other
    pairs hold an upper bound until :meth:`refine` (chosen pairs) or :meth:`exact` (all pairs) runs
    the bit-parallel LCS on them. An optimiser can work on :meth:`upper` and refine only the pairs
    it picks (see ``mmenvs.toolsandbox.scoring``).
    """

    def __init__(self, xs: Sequence[Sequence[Hashable]], ys: Sequence[Sequence[Hashable]]) -> None:
        self._xs, self._x_index = _unique(xs)
        self._ys, self._y_index = _unique(ys)
        lx = np.array([len(x) for x in self._xs], dtype=np.float64)
        ly = np.array([len(y) for y in self._ys], dtype=np.float64)
        self._total = lx[:, None] + ly[None, :]
        overlap = _occurrence_overlap(self._xs, self._ys) if self._xs and self._ys else np.zeros(self._total.shape, np.int64)
        self._lcs = overlap.astype(np.float64)  # upper bound of the LCS, exact where self._known
        self._known = overlap <= 1
        same = {y: j for j, y in enumerate(self._ys)}
        for i, x in enumerate(self._xs):
            j = same.get(x)
            if j is not None:
                self._lcs[i, j] = len(x)
                self._known[i, j] = True
        self._f = np.empty_like(self._lcs)
        self._update_f()
        self._f.flags.writeable = False
        self._known.flags.writeable = False
        # no duplicates on either side: the unique matrices are the answer as they are
        self._identity = len(self._xs) == len(xs) and len(self._ys) == len(ys)

    def _update_f(self, rows: np.ndarray | slice = slice(None), cols: np.ndarray | slice = slice(None)) -> None:
        total = self._total[rows, cols]
        with np.errstate(invalid="ignore", divide="ignore"):
            self._f[rows, cols] = np.where(total > 0, 2.0 * self._lcs[rows, cols] / total, 1.0)

    def _expand(self, unique: np.ndarray) -> np.ndarray:
        if self._identity:
            return unique
        return unique[np.ix_(self._x_index, self._y_index)]

    def upper(self) -> np.ndarray:
        """F-measure per pair: exact where known, an upper bound elsewhere (read-only)."""
        return self._expand(self._f)

    def known(self) -> np.ndarray:
        """Boolean mask of the pairs whose value in :meth:`upper` is exact (read-only)."""
        return self._expand(self._known)

    def value(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Current value (exact or bound) of the pairs ``(xs[rows[k]], ys[cols[k]])``."""
        return self._f[self._x_index[np.asarray(rows, dtype=np.intp)], self._y_index[np.asarray(cols, dtype=np.intp)]]

    def refine(self, rows: np.ndarray, cols: np.ndarray) -> int:
        """Compute the exact value of the pairs ``(xs[rows[k]], ys[cols[k]])``; returns how many changed state."""
        ux = self._x_index[np.asarray(rows, dtype=np.intp)]
        uy = self._y_index[np.asarray(cols, dtype=np.intp)]
        todo = ~self._known[ux, uy]
        if not todo.any():
            return 0
        pairs = np.unique(np.stack([ux[todo], uy[todo]]), axis=1)
        self._settle(pairs[0], pairs[1])
        return int(pairs.shape[1])

    def exact(self) -> np.ndarray:
        """F-measure of every pair, all exact."""
        px, py = np.nonzero(~self._known)
        if px.size:
            self._settle(px, py)
        return self.upper().copy()

    def _settle(self, px: np.ndarray, py: np.ndarray) -> None:
        self._known.flags.writeable = True
        self._f.flags.writeable = True
        self._known[px, py] = True
        is_long = np.array([len(x) > _WORD_BITS for x in self._xs])[px]
        for i, j in zip(px[is_long].tolist(), py[is_long].tolist()):
            self._lcs[i, j] = lcs_length(self._xs[i], self._ys[j])
        short_x, short_y = px[~is_long], py[~is_long]
        if short_x.size:
            self._lcs[short_x, short_y] = _lcs_pairs(self._xs, self._ys, short_x, short_y)
        self._update_f(px, py)
        self._known.flags.writeable = False
        self._f.flags.writeable = False


def _unique(seqs: Sequence[Sequence[Hashable]]) -> tuple[list[tuple], np.ndarray]:
    seen: dict[tuple, int] = {}
    index = np.empty(len(seqs), dtype=np.intp)
    for i, seq in enumerate(seqs):
        index[i] = seen.setdefault(tuple(seq), len(seen))
    return list(seen), index


def _occurrence_overlap(xs: list[tuple], ys: list[tuple]) -> np.ndarray:
    """Number of shared token occurrences (the k-th "the" of x meets the k-th "the" of y) per pair."""
    flat = [list(chain.from_iterable(seqs)) for seqs in (xs, ys)]
    vocab = {t: i for i, t in enumerate(dict.fromkeys(chain(*flat)))}
    sides = []
    for seqs, tokens_ in zip((xs, ys), flat):
        tokens = np.fromiter(map(vocab.__getitem__, tokens_), dtype=np.int64, count=len(tokens_))
        owner = np.repeat(np.arange(len(seqs), dtype=np.int64), [len(seq) for seq in seqs])
        sides.append((tokens, owner, _occurrence_rank(tokens, owner, len(vocab) + 1)))
    ranks = max(int(rank.max(initial=0)) for _, _, rank in sides) + 1
    width = max(len(vocab), 1) * ranks
    x, y = (sparse.csr_matrix((np.ones(tokens.size, dtype=np.int32), (owner, tokens * ranks + rank)), shape=(len(seqs), width))
            for (tokens, owner, rank), seqs in zip(sides, (xs, ys)))
    return np.asarray((x @ y.T).toarray(), dtype=np.int64)


def _occurrence_rank(tokens: np.ndarray, owner: np.ndarray, stride: int) -> np.ndarray:
    """For each token, how many equal tokens precede it in its sequence (0 for the first "the", 1 for the second)."""
    rank = np.zeros_like(tokens)
    if tokens.size == 0:
        return rank
    order = np.lexsort((np.arange(tokens.size), tokens, owner))
    key = owner[order] * stride + tokens[order]
    starts = np.r_[True, key[1:] != key[:-1]]
    run_start = np.maximum.accumulate(np.where(starts, np.arange(key.size), 0))
    rank[order] = np.arange(key.size) - run_start
    return rank


def _lcs_pairs(xs: list[tuple], ys: list[tuple], px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """LCS lengths of the pairs ``(xs[px[k]], ys[py[k]])``, all xs at most 64 tokens, vectorised."""
    x_ids = np.unique(px)
    longest_x = max(len(xs[int(i)]) for i in x_ids)
    dtype = np.uint32 if longest_x <= 32 else np.uint64  # half the memory traffic for short texts
    vocab: dict[Hashable, int] = {}
    cells: dict[tuple[int, int], int] = {}
    lengths = np.zeros(len(x_ids), dtype=np.int64)
    for c, i in enumerate(x_ids.tolist()):
        lengths[c] = len(xs[i])
        for position, token in enumerate(xs[i]):
            key = (vocab.setdefault(token, len(vocab)), c)
            cells[key] = cells.get(key, 0) | (1 << position)
    # row len(vocab) stays zero: it stands for y tokens that occur in no x and never match
    masks = np.zeros((len(vocab) + 1, len(x_ids)), dtype=dtype)
    rows, cols = zip(*cells)
    masks[list(rows), list(cols)] = np.array(list(cells.values()), dtype=dtype)
    full = np.array([(1 << int(n)) - 1 for n in lengths], dtype=dtype)

    y_ids = np.unique(py)
    y_tokens = [[vocab[t] for t in ys[j] if t in vocab] for j in y_ids.tolist()]
    longest_y = max((len(t) for t in y_tokens), default=0)
    padded = np.full((len(y_ids), max(longest_y, 1)), len(vocab), dtype=np.intp)
    y_len = np.zeros(len(y_ids), dtype=np.int64)
    for r, toks in enumerate(y_tokens):
        padded[r, : len(toks)] = toks
        y_len[r] = len(toks)

    cols_k = np.searchsorted(x_ids, px)
    rows_k = np.searchsorted(y_ids, py)
    order = np.argsort(-y_len[rows_k], kind="stable")  # longest ys first: the active pairs are a prefix
    cols_k, rows_k = cols_k[order], rows_k[order]
    # at step t the pairs whose y still has a token left: y_len > t
    active = np.searchsorted(-y_len[rows_k], -np.arange(longest_y), side="left")
    full_k = full[cols_k]
    v = full_k.copy()
    u = np.empty_like(v)
    s = np.empty_like(v)
    for step in range(longest_y):
        n = int(active[step])
        vs, us, ss = v[:n], u[:n], s[:n]
        np.bitwise_and(vs, masks[padded[rows_k[:n], step], cols_k[:n]], out=us)
        np.add(vs, us, out=ss)
        np.subtract(vs, us, out=vs)
        np.bitwise_or(vs, ss, out=vs)
        np.bitwise_and(vs, full_k[:n], out=vs)
    lcs_sorted = lengths[cols_k] - _popcount(v)
    result = np.empty_like(lcs_sorted)
    result[order] = lcs_sorted
    return result


def _popcount(values: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(values).astype(np.int64)
    as_bytes = values[..., None].view(np.uint8)  # numpy < 2.0 has no bitwise_count
    return _BYTE_POPCOUNT[as_bytes].sum(axis=-1, dtype=np.int64)


_BYTE_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)

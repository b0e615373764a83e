"""Tokenizer for AppleScript source.

Produces WORD (identifiers and keywords, compared case-insensitively), NUMBER, STRING, ORDINAL
(``2nd``), POSS (``'s``), OP (``& + - * / ^ = ≠ < > ≤ ≥ <= >= ( ) { } , : ÷``), NEWLINE and EOF
tokens with 0-based start/end offsets. Comments (``--``, ``#``, nested ``(* … *)``) and line
continuations (``¬`` before a line break) are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import syntax_error

WORD, NUMBER, STRING, ORDINAL, POSS, OP, NEWLINE, EOF = ("word", "number", "string", "ordinal", "poss",
                                                          "op", "newline", "eof")

_OPS2 = {"<=": "≤", ">=": "≥"}
_OPS1 = set("&+-*/^=≠<>≤≥(){},:÷")
_CONTRACTIONS = {"isn", "doesn", "don", "aren", "wasn", "can"}
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}


@dataclass(slots=True)
class Token:
    kind: str
    value: object   # str for WORD (lower-case), OP, STRING; int/float for NUMBER/ORDINAL
    text: str       # the source text (original case)
    start: int
    end: int

    def describe(self) -> str:
        """How the real compiler names this token in ``but found …``."""
        if self.kind == WORD:
            return "identifier"
        if self.kind in (NUMBER, ORDINAL):
            return "number"
        if self.kind == STRING:
            return "“\"”"
        if self.kind == NEWLINE:
            return "end of line"
        if self.kind == EOF:
            return "end of script"
        if self.kind == POSS:
            return "“'s”"
        return f"“{self.text}”"


def _is_ident_start(ch: str) -> bool:
    return ch.isalpha() or ch == "_"


def _is_ident_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def tokenize(source: str) -> list[Token]:
    """Split ``source`` into tokens; raises a positioned syntax error on a malformed token."""
    toks: list[Token] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch in " \t\f\v\u00a0":
            i += 1
            continue
        if ch == "¬":
            j = i + 1
            while j < n and source[j] in " \t":
                j += 1
            if j < n and source[j] == "-" and source.startswith("--", j):
                while j < n and source[j] not in "\r\n":
                    j += 1
            if j < n and source[j] in "\r\n":
                j += 2 if source.startswith("\r\n", j) else 1
                i = j
                continue
            if j >= n:
                i = j
                continue
            raise syntax_error("Expected expression but found unknown token.", i, i + 1, source)
        if ch in "\r\n\u2028\u2029":
            start = i
            i += 2 if source.startswith("\r\n", i) else 1
            if not toks or toks[-1].kind != NEWLINE:
                toks.append(Token(NEWLINE, "\n", "\n", start, i))
            continue
        if source.startswith("--", i) or ch == "#":
            while i < n and source[i] not in "\r\n":
                i += 1
            continue
        if source.startswith("(*", i):
            depth, j = 0, i
            while j < n:
                if source.startswith("(*", j):
                    depth += 1
                    j += 2
                elif source.startswith("*)", j):
                    depth -= 1
                    j += 2
                    if depth == 0:
                        break
                else:
                    j += 1
            if depth:
                raise syntax_error("Expected “*)” but found end of script.", n, n, source)
            i = j
            continue
        if ch in "\"“”":
            start = i
            close = "”" if ch == "“" else None
            i += 1
            buf: list[str] = []
            while True:
                if i >= n:
                    raise syntax_error("Expected “\"” but found end of script.", start, n, source)
                c = source[i]
                if c == "\\":
                    if i + 1 >= n:
                        raise syntax_error("Expected “\"” but found end of script.", start, n, source)
                    esc = source[i + 1]
                    if esc not in _ESCAPES:
                        raise syntax_error("Expected “\"” but found unknown token.", i, i + 2, source)
                    buf.append(_ESCAPES[esc])
                    i += 2
                    continue
                if (close and c == close) or (not close and c in "\"”"):
                    i += 1
                    break
                buf.append(c)
                i += 1
            toks.append(Token(STRING, "".join(buf), source[start:i], start, i))
            continue
        if ch == "|":
            start = i
            j = source.find("|", i + 1)
            if j < 0 or any(c in "\r\n" for c in source[i + 1:j]):
                raise syntax_error("Expected “|” but found end of line.", start, start + 1, source)
            name = source[i + 1:j]
            toks.append(Token(WORD, "|" + name.lower(), source[start:j + 1], start, j + 1))
            i = j + 1
            continue
        if ch.isdigit() or (ch == "." and i + 1 < n and source[i + 1].isdigit()):
            start = i
            while i < n and source[i].isdigit():
                i += 1
            is_real = False
            if i < n and source[i] == "." and i + 1 < n and source[i + 1].isdigit():
                is_real = True
                i += 1
                while i < n and source[i].isdigit():
                    i += 1
            elif i < n and source[i] == "." and not (i + 1 < n and _is_ident_start(source[i + 1])):
                is_real = True  # "1." is a real
                i += 1
            if i < n and source[i] in "eE":
                j = i + 1
                if j < n and source[j] in "+-":
                    j += 1
                if j < n and source[j].isdigit():
                    is_real = True
                    i = j
                    while i < n and source[i].isdigit():
                        i += 1
            text = source[start:i]
            suffix = source[i:i + 2].lower()
            if not is_real and suffix in ("st", "nd", "rd", "th") and not (i + 2 < n and _is_ident_char(source[i + 2])):
                toks.append(Token(ORDINAL, int(text), source[start:i + 2], start, i + 2))
                i += 2
                continue
            if i < n and _is_ident_start(source[i]):
                raise syntax_error("A identifier can’t go after this number.", i, i + 1, source, -2740)
            value: int | float = float(text) if is_real else int(text)
            toks.append(Token(NUMBER, value, text, start, i))
            continue
        if _is_ident_start(ch):
            start = i
            while i < n and _is_ident_char(source[i]):
                i += 1
            # contractions are single words: isn't, doesn't, don't, aren't
            if source[i:i + 2] in ("'t", "’t") and source[start:i].lower() in _CONTRACTIONS \
                    and not (i + 2 < n and _is_ident_char(source[i + 2])):
                i += 2
            text = source[start:i]
            toks.append(Token(WORD, text.lower().replace("’", "'"), text, start, i))
            continue
        if ch in "'’" and source[i + 1:i + 2].lower() == "s" and not (i + 2 < n and _is_ident_char(source[i + 2])):
            toks.append(Token(POSS, "'s", source[i:i + 2], i, i + 2))
            i += 2
            continue
        two = source[i:i + 2]
        if two in _OPS2:
            toks.append(Token(OP, _OPS2[two], two, i, i + 2))
            i += 2
            continue
        if ch in _OPS1:
            toks.append(Token(OP, ch, ch, i, i + 1))
            i += 1
            continue
        raise syntax_error("Expected expression but found unknown token.", i, i + 1, source)
    toks.append(Token(EOF, "", "", n, n))
    return toks

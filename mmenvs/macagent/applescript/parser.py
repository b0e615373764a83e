"""Parser: AppleScript source → :mod:`.nodes` tree.

Like the real compiler, the parser reads the dictionary (:class:`~.model.Terminology`) of every
``tell application "X"`` target so that multi-word terms (``start date``, ``dark mode``) and the
app's classes and commands are recognised. Outside any tell block only AppleScript's own terms
(and the Standard Additions used by scripts: ``do shell script``, ``display dialog`` …) exist.

Hostile input is bounded: nesting of blocks and expressions is limited (``Stack overflow.``),
long operator chains are flat (no deep trees), and nothing is ever ``eval``-ed.
"""

from __future__ import annotations

from collections.abc import Callable

from . import nodes as N
from .errors import ERR_STACK_OVERFLOW, AppleScriptError, syntax_error
from .lexer import EOF, NEWLINE, NUMBER, OP, ORDINAL, POSS, STRING, WORD, Token, tokenize
from .model import STANDARD_COMMANDS, Terminology
from .values import MONTHS, WEEKDAYS, Constant

# ------------------------------------------------------------------------------ vocabulary
BUILTIN_CLASSES = {
    "item": "items", "character": "characters", "word": "words", "paragraph": "paragraphs",
    "text item": "text items", "text": "texts", "string": "strings", "integer": "integers",
    "real": "reals", "number": "numbers", "list": "lists", "record": "records",
    "boolean": "booleans", "date": "dates", "application": "applications", "unicode text": "unicode texts",
    "alias": "aliases", "file": "files", "constant": "constants", "class": "classes",
    "reference": "references", "styled text": "styled texts",
}
BUILTIN_PROPERTIES = {
    "length", "class", "contents", "rest", "reverse", "year", "month", "day", "weekday", "hours",
    "minutes", "seconds", "time", "date string", "time string", "short date string",
    "text item delimiters", "quoted form", "posix path", "name", "id", "properties", "clipboard",
    "running", "frontmost", "version", "button returned", "text returned", "gave up",
}
CONSTANT_VALUES: dict[str, object] = {
    "yes": Constant("yes"), "no": Constant("no"), "ask": Constant("ask"), "pi": 3.14159265359,
    "tab": "\t", "return": "\r", "linefeed": "\n", "space": " ", "quote": '"',
    "minutes": 60, "hours": 3600, "days": 86400, "weeks": 604800, "missing value": None,
    "command down": Constant("command down"), "shift down": Constant("shift down"),
    "option down": Constant("option down"), "control down": Constant("control down"),
    "up": Constant("up"), "down": Constant("down"), "toward zero": Constant("toward zero"),
    "to nearest": Constant("to nearest"), "as taught in school": Constant("as taught in school"),
    "critical": Constant("critical"), "informational": Constant("informational"),
    "warning": Constant("warning"), "caution": Constant("caution"), "stop": Constant("stop"),
}
for _m in MONTHS:
    CONSTANT_VALUES[_m.lower()] = Constant(_m)
for _d in WEEKDAYS:
    CONSTANT_VALUES[_d.lower()] = Constant(_d)

# Standard Additions / AppleScript commands parsed here (label → named parameter)
BUILTIN_COMMANDS: dict[str, tuple[str, ...]] = {
    "get": (), "count": (), "exists": (), "make": (), "delete": (),
    "do shell script": ("user name", "password"),
    "display dialog": ("default answer", "buttons", "default button", "cancel button", "with title",
                       "with icon", "giving up after"),
    "display notification": ("with title", "subtitle", "sound name"),
    "display alert": ("message", "as", "buttons", "default button", "cancel button", "giving up after"),
    "current date": (), "offset": (), "ascii character": (), "ascii number": (), "round": ("rounding",),
    "random number": ("from", "to", "with seed"), "path to": (), "posix file": (), "beep": (),
    "say": ("using", "speaking rate"), "open location": (),
}
BUILTIN_COMMANDS.update(STANDARD_COMMANDS)

ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                 "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "last": -1, "middle": "middle",
                 "some": "some", "front": 1, "back": -1}

KEYWORDS = {
    "of", "in", "to", "then", "else", "and", "or", "not", "is", "isn't", "contains", "contain", "thru",
    "through", "whose", "where", "with", "without", "at", "by", "from", "as", "div", "mod", "end",
    "given", "into", "for", "equals", "equal", "starts", "begins", "ends", "does",
    "doesn't", "comes", "come", "before", "after", "it", "its", "me", "my", "exists", "exist", "named",
    "every", "true", "false", "if", "tell", "repeat", "set", "copy", "try", "on", "error", "exit",
    "while", "until", "times", "than", "greater", "less", "but", "global", "local", "property",
    "considering", "ignoring", "script", "new", "index", "onto", "that", "returning",
    "considering", "timeout", "using", "terms", "transaction", "application", "app",
} | set(ORDINAL_WORDS)

# word sequences of the comparison operators, longest first when matched
_CMP = {
    ("is", "not", "equal", "to"): "≠", ("isn't", "equal", "to"): "≠", ("does", "not", "equal"): "≠",
    ("doesn't", "equal"): "≠", ("is", "not"): "≠", ("isn't",): "≠",
    ("is", "equal", "to"): "=", ("equal", "to"): "=", ("is", "equal"): "=", ("equals",): "=", ("is",): "=",
    ("is", "less", "than", "or", "equal", "to"): "≤", ("is", "less", "than", "or", "equal"): "≤",
    ("less", "than", "or", "equal", "to"): "≤", ("is", "not", "greater", "than"): "≤",
    ("isn't", "greater", "than"): "≤", ("does", "not", "come", "after"): "≤", ("doesn't", "come", "after"): "≤",
    ("is", "greater", "than", "or", "equal", "to"): "≥", ("is", "greater", "than", "or", "equal"): "≥",
    ("greater", "than", "or", "equal", "to"): "≥", ("is", "not", "less", "than"): "≥",
    ("isn't", "less", "than"): "≥", ("does", "not", "come", "before"): "≥", ("doesn't", "come", "before"): "≥",
    ("is", "less", "than"): "<", ("less", "than"): "<", ("comes", "before"): "<",
    ("is", "greater", "than"): ">", ("greater", "than"): ">", ("comes", "after"): ">",
    ("contains",): "contains", ("contain",): "contains", ("does", "not", "contain"): "!contains",
    ("doesn't", "contain"): "!contains", ("is", "in"): "in", ("is", "contained", "by"): "in",
    ("is", "not", "in"): "!in", ("isn't", "in"): "!in", ("is", "not", "contained", "by"): "!in",
    ("isn't", "contained", "by"): "!in",
    ("starts", "with"): "starts", ("start", "with"): "starts", ("begins", "with"): "starts",
    ("begin", "with"): "starts", ("does", "not", "start", "with"): "!starts",
    ("doesn't", "start", "with"): "!starts", ("does", "not", "begin", "with"): "!starts",
    ("doesn't", "begin", "with"): "!starts",
    ("ends", "with"): "ends", ("end", "with"): "ends", ("does", "not", "end", "with"): "!ends",
    ("doesn't", "end", "with"): "!ends",
}
_CMP_BY_FIRST: dict[str, list[tuple[str, ...]]] = {}
for _seq in sorted(_CMP, key=len, reverse=True):
    _CMP_BY_FIRST.setdefault(_seq[0], []).append(_seq)
_SYMBOL_CMP = {"=": "=", "≠": "≠", "<": "<", ">": ">", "≤": "≤", "≥": "≥"}
_END_WORDS = {"tell", "if", "repeat", "try", "considering", "ignoring", "timeout", "using", "error",
              "script", "transaction"}


class TermTable:
    """Phrase → kinds for one scope (AppleScript's terms plus one application's)."""

    def __init__(self, app: Terminology | None) -> None:
        self.table: dict[tuple[str, ...], dict[str, str]] = {}
        for s, p in BUILTIN_CLASSES.items():
            self._add(s, "class", s)
            self._add(p, "plural", s)
        for name in BUILTIN_PROPERTIES:
            self._add(name, "prop", name)
        for name in CONSTANT_VALUES:
            self._add(name, "const", name)
        for name in BUILTIN_COMMANDS:
            self._add(name, "command", name)
        self.commands: dict[str, tuple[str, ...]] = dict(BUILTIN_COMMANDS)
        if app is not None:
            for s, p in app.classes.items():
                self._add(s, "class", s, override=True)
                self._add(p, "plural", s, override=True)
            for name in app.properties:
                self._add(name, "prop", name, override=True)
            for name in app.constants:
                self._add(name, "const", name, override=True)
            for name, labels in app.commands.items():
                self._add(name, "command", name, override=True)
                self.commands[name.lower()] = tuple(labels)
        self.max_len = max(len(k) for k in self.table)

    def _add(self, phrase: str, kind: str, canonical: str, override: bool = False) -> None:
        key = tuple(phrase.lower().split())
        kinds = self.table.setdefault(key, {})
        if override and kind in ("class", "plural") and key in self.table:
            kinds.pop("const", None)  # an app class (``list``) wins over a same-named constant
        kinds[kind] = canonical


# compiled term tables, shared across parses: looked up by the Terminology object's identity (fast),
# built once per distinct dictionary (every episode makes new app objects with equal terminologies,
# which must not each hold their own table)
_TABLE_CACHE: dict[int, tuple[Terminology | None, TermTable]] = {}
_TABLES_BY_CONTENT: dict[tuple, TermTable] = {}


def _content_key(terms: Terminology | None) -> tuple:
    if terms is None:
        return ()
    return (tuple(sorted(terms.classes.items())), tuple(sorted(terms.properties)),
            tuple(sorted((k, tuple(v)) for k, v in terms.commands.items())), tuple(sorted(terms.constants)))


class Parser:
    """Recursive-descent parser; use :func:`parse`."""

    def __init__(self, source: str, terminology: Callable[[str], Terminology | None] | None = None,
                 max_nesting: int = 60) -> None:
        self.source = source
        self.toks: list[Token] = tokenize(source)
        self.pos = 0
        self.terminology = terminology
        self.max_nesting = max_nesting
        self.depth = 0
        self._tables: dict[int, TermTable] = {}
        self._term_memo: dict[tuple[int, int], tuple[int, dict[str, str]] | None] = {}
        self.scopes: list[TermTable] = [self._table(None)]
        self.no_in_of = 0        # >0 while parsing a command's direct parameter (``in`` is a label there)
        self.as_is_label = 0     # >0 while parsing the parameters of a command that has an ``as`` label
        self.handlers: dict[str, N.HandlerDef] = {}
        self.properties: list[N.PropertyDecl] = []

    # ---------------------------------------------------------------- token helpers
    def _table(self, terms: Terminology | None) -> TermTable:
        key = id(terms)
        if key not in self._tables:
            cached = _TABLE_CACHE.get(key)
            if cached is None or cached[0] is not terms:
                if len(_TABLE_CACHE) > 256:
                    _TABLE_CACHE.clear()
                content = _content_key(terms)
                table = _TABLES_BY_CONTENT.get(content)
                if table is None:
                    if len(_TABLES_BY_CONTENT) > 64:
                        _TABLES_BY_CONTENT.clear()
                    table = _TABLES_BY_CONTENT[content] = TermTable(terms)
                cached = (terms, table)
                _TABLE_CACHE[key] = cached
            self._tables[key] = cached[1]
        return self._tables[key]

    @property
    def terms(self) -> TermTable:
        return self.scopes[-1]

    def peek(self, k: int = 0) -> Token:
        i = min(self.pos + k, len(self.toks) - 1)
        return self.toks[i]

    def next(self) -> Token:
        tok = self.toks[self.pos]
        if tok.kind != EOF:
            self.pos += 1
        return tok

    def word(self, k: int = 0) -> str | None:
        t = self.peek(k)
        return t.value if t.kind == WORD else None  # type: ignore[return-value]

    def at_word(self, *words: str) -> bool:
        return self.word() in words

    def at_words(self, seq: tuple[str, ...]) -> bool:
        return all(self.word(i) == w for i, w in enumerate(seq))

    def accept(self, w: str) -> bool:
        if self.word() == w:
            self.pos += 1
            return True
        return False

    def at_op(self, op: str) -> bool:
        t = self.peek()
        return t.kind == OP and t.value == op

    def error(self, expected: str, tok: Token | None = None) -> AppleScriptError:
        tok = tok or self.peek()
        found = tok.describe()
        if tok.kind == WORD and tok.value in KEYWORDS:
            found = f"“{tok.text}”"
        return syntax_error(f"Expected {expected} but found {found}.", tok.start, tok.end, self.source)

    def expect_word(self, w: str, expected: str | None = None) -> Token:
        if self.word() != w:
            raise self.error(expected or f"“{w}”")
        return self.next()

    def expect_op(self, op: str) -> Token:
        if not self.at_op(op):
            raise self.error(f"“{op}”")
        return self.next()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > self.max_nesting:
            tok = self.peek()
            raise syntax_error("Stack overflow.", tok.start, tok.end, self.source, ERR_STACK_OVERFLOW)

    def leave(self) -> None:
        self.depth -= 1

    def skip_articles(self) -> None:
        while self.word() == "the":
            self.pos += 1

    def match_term(self, pos: int | None = None) -> tuple[int, dict[str, str]] | None:
        """Longest dictionary phrase starting at ``pos``: (number of words, kinds)."""
        start = self.pos if pos is None else pos
        key = (start, id(self.terms))
        if key in self._term_memo:
            return self._term_memo[key]
        found = self._match_term(start)
        self._term_memo[key] = found
        return found

    def _match_term(self, start: int) -> tuple[int, dict[str, str]] | None:
        words: list[str] = []
        for i in range(self.terms.max_len):
            t = self.toks[min(start + i, len(self.toks) - 1)]
            if t.kind != WORD:
                break
            words.append(t.value)  # type: ignore[arg-type]
        for n in range(len(words), 0, -1):
            kinds = self.terms.table.get(tuple(words[:n]))
            if kinds:
                return n, kinds
        return None

    def end_of_statement(self) -> bool:
        t = self.peek()
        return t.kind in (NEWLINE, EOF)

    def skip_newlines(self) -> None:
        while self.peek().kind == NEWLINE:
            self.pos += 1

    # ---------------------------------------------------------------- script & blocks
    def parse_script(self) -> N.Script:
        body = self.parse_block(top=True)
        if self.peek().kind != EOF:
            raise self.error("end of line")
        return N.Script(0, len(self.source), body, self.handlers, self.properties)

    def parse_block(self, top: bool = False, stops: tuple[str, ...] = ("end",)) -> list[N.Node]:
        self.enter()
        body: list[N.Node] = []
        while True:
            self.skip_newlines()
            t = self.peek()
            if t.kind == EOF:
                break
            if t.kind == WORD and t.value in stops:
                if t.value == "end" and top:
                    raise self.error("end of line")
                break
            if t.kind == WORD and t.value == "on" and self.word(1) == "error" and "on error" in stops:
                break
            stmt = self.parse_statement(top)
            if stmt is not None:
                body.append(stmt)
            if not self.end_of_statement():
                raise self.error("end of line")
        self.leave()
        return body

    def parse_end(self, kind: str) -> None:
        """``end`` or ``end <kind>``; ``kind`` may be a handler name."""
        t = self.peek()
        if t.kind == EOF:
            raise syntax_error(f"Expected “end” or “end {kind}” but found end of script.", t.start, t.end,
                               self.source)
        self.expect_word("end", f"“end” or “end {kind}”")
        w = self.word()
        if w is None or self.peek().kind != WORD:
            return
        if kind == "using terms from" and w == "using":
            for part in ("using", "terms", "from"):
                self.expect_word(part)
            return
        if w == kind or (kind == "try" and w == "error") or (kind == "timeout" and w == "timeout"):
            self.pos += 1
            return
        if w in _END_WORDS or w == kind:
            tok = self.peek()
            raise syntax_error(f"Expected “end” or “end {kind}” but found “end {tok.text}”.", t.start, tok.end,
                               self.source)
        if self.peek().kind == WORD and w not in KEYWORDS:
            tok = self.peek()
            raise syntax_error(f"Expected “end” or “end {kind}” but found “end {tok.text}”.", t.start, tok.end,
                               self.source)

    def parse_statement(self, top: bool = False) -> N.Node | None:
        self.enter()
        try:
            return self._statement(top)
        finally:
            self.leave()

    def _statement(self, top: bool) -> N.Node | None:
        t = self.peek()
        w = self.word()
        start = t.start
        if w == "tell":
            return self.parse_tell()
        if w == "if":
            return self.parse_if()
        if w == "repeat":
            return self.parse_repeat()
        if w == "try":
            return self.parse_try()
        if w in ("on", "to") and top and self.peek(1).kind == WORD:
            return self.parse_handler()
        if w in ("on", "to") and self.peek(1).kind == WORD:
            raise syntax_error("Expected end of line, etc. but found “on”.", t.start, t.end, self.source)
        if w == "return":
            self.next()
            value = None if self.end_of_statement() or self.at_word("else") else self.parse_expr()
            return N.Return(start, self.prev_end(), value)
        if w == "exit":
            self.next()
            self.accept("repeat")
            return N.Exit(start, self.prev_end())
        if w == "error":
            return self.parse_raise()
        if w == "set":
            self.next()
            target = self.parse_target()
            self.expect_word("to")
            value = self.parse_expr()
            return N.Set(start, self.prev_end(), target, value)
        if w == "copy":
            self.next()
            value = self.parse_expr()
            self.expect_word("to")
            target = self.parse_target()
            return N.Copy(start, self.prev_end(), value, target)
        if w == "property" and self.peek(1).kind == WORD:
            self.next()
            name = self.next().value
            if not (self.at_op(":") or self.at_word("is")):
                raise self.error("“:”")
            self.next()
            value = self.parse_expr()
            decl = N.PropertyDecl(start, self.prev_end(), name, value)  # type: ignore[arg-type]
            self.properties.append(decl)
            return None
        if w in ("global", "local") and self.peek(1).kind == WORD:
            self.next()
            names = [self.parse_identifier()]
            while self.at_op(","):
                self.next()
                names.append(self.parse_identifier())
            return N.Declare(start, self.prev_end(), w, names)
        if w == "log":
            self.next()
            return N.Log(start, self.prev_end(), self.parse_expr())
        if w == "delay":
            self.next()
            value = None if self.end_of_statement() else self.parse_expr()
            return N.Delay(start, self.prev_end(), value)
        if w in ("considering", "ignoring"):
            return self.parse_considering()
        if w == "with" and self.word(1) in ("timeout", "transaction"):
            self.next()
            kind = self.next().value
            if kind == "timeout":
                self.accept("of")
                self.parse_expr()
                self.accept("seconds") or self.accept("second")
            elif not self.end_of_statement():
                self.parse_expr()
            body = self.parse_block()
            self.parse_end(str(kind))
            return N.Block(start, self.prev_end(), body)
        if w == "using" and self.word(1) == "terms" and self.word(2) == "from":
            self.pos += 3
            target = self.parse_expr()
            self.scopes.append(self._app_scope(target))
            body = self.parse_block()
            self.scopes.pop()
            self.parse_end("using terms from")
            return N.Block(start, self.prev_end(), body)
        if w == "script":
            raise syntax_error("Script objects are not supported by this simulator.", t.start, t.end, self.source)
        if w in ("else", "end"):
            raise self.error("end of line" if w == "else" else "expression")
        expr = self.parse_expr()
        return N.ExprStmt(start, self.prev_end(), expr)

    def prev_end(self) -> int:
        return self.toks[self.pos - 1].end if self.pos else 0

    def parse_identifier(self) -> str:
        t = self.peek()
        if t.kind != WORD or t.value in KEYWORDS:
            raise self.error("variable name")
        self.next()
        return t.value  # type: ignore[return-value]

    def _app_scope(self, target: N.Node) -> TermTable:
        node = target
        if isinstance(node, N.AppSpec) and isinstance(node.name, N.Lit) and isinstance(node.name.value, str):
            terms = None
            if self.terminology is not None:
                try:
                    terms = self.terminology(node.name.value)
                except AppleScriptError:
                    terms = None  # unknown app: the tell fails when it runs, as "Can’t get application"
            return self._table(terms)
        return self.terms

    def parse_tell(self) -> N.Tell:
        start = self.next().start
        target = self.parse_expr()
        scope = self._app_scope(target)
        self.scopes.append(scope)
        try:
            if self.accept("to"):
                stmt = self.parse_statement()
                body = [stmt] if stmt is not None else []
                return N.Tell(start, self.prev_end(), target, body)
            if not self.end_of_statement():
                raise self.error("end of line")
            body = self.parse_block()
            self.parse_end("tell")
            return N.Tell(start, self.prev_end(), target, body)
        finally:
            self.scopes.pop()

    def parse_if(self) -> N.If:
        start = self.next().start
        cond = self.parse_expr()
        self.accept("then")
        if not self.end_of_statement():
            stmt = self.parse_statement()
            orelse = None
            if self.accept("else"):
                other = self.parse_statement()
                orelse = [other] if other is not None else []
            return N.If(start, self.prev_end(), [(cond, [stmt] if stmt else [])], orelse)
        branches = [(cond, self.parse_block(stops=("end", "else")))]
        orelse = None
        while self.at_word("else"):
            self.next()
            if self.at_word("if"):
                self.next()
                c = self.parse_expr()
                self.accept("then")
                branches.append((c, self.parse_block(stops=("end", "else"))))
                continue
            orelse = self.parse_block(stops=("end",))
            break
        self.parse_end("if")
        return N.If(start, self.prev_end(), branches, orelse)

    def parse_repeat(self) -> N.Repeat:
        start = self.next().start
        kind, var, a, b, step = "forever", None, None, None, None
        if self.accept("while"):
            kind, a = "while", self.parse_expr()
        elif self.accept("until"):
            kind, a = "until", self.parse_expr()
        elif self.accept("with"):
            var = self.parse_identifier()
            if self.accept("from"):
                kind = "from"
                a = self.parse_expr()
                self.expect_word("to")
                b = self.parse_expr()
                if self.accept("by"):
                    step = self.parse_expr()
            elif self.accept("in"):
                kind = "in"
                a = self.parse_expr()
            else:
                raise self.error("“from” or “in”")
        elif not self.end_of_statement():
            kind, a = "times", self.parse_expr()
            self.accept("times")
        body = self.parse_block()
        self.parse_end("repeat")
        return N.Repeat(start, self.prev_end(), kind, body, var, a, b, step)

    def parse_try(self) -> N.Try:
        start = self.next().start
        body = self.parse_block(stops=("end", "on error"))
        node = N.Try(start, start, body, None)
        if self.at_word("on") and self.word(1) == "error":
            self.pos += 2
            if self.peek().kind == WORD and self.word() not in ("number", "from", "partial", "to"):
                node.msg_var = self.parse_identifier()
            while not self.end_of_statement():
                if self.accept("number"):
                    node.num_var = self.parse_identifier()
                elif self.accept("from"):
                    node.from_var = self.parse_identifier()
                elif self.at_word("partial") and self.word(1) == "result":
                    self.pos += 2
                    node.partial_var = self.parse_identifier()
                elif self.accept("to"):
                    node.to_var = self.parse_identifier()
                else:
                    raise self.error("end of line")
            node.handler = self.parse_block()
        self.parse_end("try")
        node.end = self.prev_end()
        return node

    def parse_raise(self) -> N.Raise:
        start = self.next().start
        msg = None
        if not self.end_of_statement() and not self.at_word("number", "from", "partial", "to"):
            msg = self.parse_expr()
        num = frm = partial = None
        while not self.end_of_statement():
            if self.accept("number"):
                num = self.parse_expr()
            elif self.accept("from"):
                frm = self.parse_expr()
            elif self.at_word("partial") and self.word(1) == "result":
                self.pos += 2
                partial = self.parse_expr()
            elif self.accept("to"):
                self.parse_expr()
            else:
                break
        return N.Raise(start, self.prev_end(), msg, num, frm, partial)

    def parse_handler(self) -> None:
        start = self.next().start
        name_tok = self.next()
        name = str(name_tok.value)
        if name in KEYWORDS and name != "error":
            raise self.error("identifier", name_tok)
        params: list[str] = []
        if self.at_op("("):
            self.next()
            if not self.at_op(")"):
                params.append(self.parse_identifier())
                while self.at_op(","):
                    self.next()
                    params.append(self.parse_identifier())
            self.expect_op(")")
        elif name == "run" and self.peek().kind == WORD:
            params.append(self.parse_identifier())
        elif not self.end_of_statement():
            raise self.error("“(” or end of line")
        if name in self.handlers:
            raise syntax_error(f"The {name} handler is specified more than once.", name_tok.start, name_tok.end,
                               self.source, -2752)
        body = self.parse_block()
        self.parse_end(name)
        self.handlers[name] = N.HandlerDef(start, self.prev_end(), name, params, body)
        return None

    def parse_considering(self) -> N.Considering:
        t = self.next()
        considered = t.value == "considering"
        attrs: dict[str, bool] = {}
        names = {"case", "white space", "diacriticals", "hyphens", "punctuation", "numeric strings",
                 "expansion", "application responses"}
        while not self.end_of_statement():
            if self.accept("but"):
                w = self.next().value
                considered = w == "considering"
                continue
            if self.at_op(",") or self.at_word("and"):
                self.next()
                continue
            two = f"{self.word()} {self.word(1)}"
            if two in names:
                self.pos += 2
                attrs[two] = considered
            elif self.word() in names:
                attrs[str(self.next().value)] = considered
            else:
                raise self.error("attribute")
        body = self.parse_block()
        self.parse_end(str(t.value))
        return N.Considering(t.start, self.prev_end(), attrs, body)

    def parse_target(self) -> N.Node:
        if self.at_op("{"):
            node = self.parse_primary()
            if not isinstance(node, N.ListLit):
                raise self.error("variable name")
            return node
        t = self.peek()
        node = self.parse_ref()
        if not isinstance(node, (N.Var, N.Prop, N.Elements, N.Insertion)):
            raise syntax_error(f"Can’t set {self.source[t.start:self.prev_end()]}.", t.start, self.prev_end(),
                               self.source, -10006)
        return node

    # ---------------------------------------------------------------- expressions
    def parse_expr(self) -> N.Node:
        self.enter()
        try:
            return self.parse_or()
        finally:
            self.leave()

    def _chain(self, sub: Callable[[], N.Node], ops: Callable[[], str | None]) -> N.Node:
        first = sub()
        rest: list[tuple[str, N.Node]] = []
        while True:
            op = ops()
            if op is None:
                break
            rest.append((op, sub()))
        if not rest:
            return first
        return N.Chain(first.start, rest[-1][1].end, first, rest)

    def _word_op(self, *names: str) -> str | None:
        w = self.word()
        if w in names:
            self.next()
            return w
        return None

    def parse_or(self) -> N.Node:
        return self._chain(self.parse_and, lambda: self._word_op("or"))

    def parse_and(self) -> N.Node:
        return self._chain(self.parse_not, lambda: self._word_op("and"))

    def parse_not(self) -> N.Node:
        if self.at_word("not"):
            t = self.next()
            self.enter()
            operand = self.parse_not()
            self.leave()
            return N.Unary(t.start, operand.end, "not", operand)
        return self.parse_comparison()

    def _cmp_op(self) -> str | None:
        t = self.peek()
        if t.kind == OP and t.value in _SYMBOL_CMP:
            self.next()
            return _SYMBOL_CMP[t.value]  # type: ignore[index]
        if t.kind != WORD:
            return None
        if self.at_words(("is", "running")) or self.at_words(("is", "not", "running")) \
                or self.at_words(("isn't", "running")):
            return None
        for seq in _CMP_BY_FIRST.get(t.value, ()):  # type: ignore[arg-type]
            if self.at_words(seq):
                self.pos += len(seq)
                return _CMP[seq]
        return None

    def parse_comparison(self) -> N.Node:
        node = self._chain(self.parse_as, self._cmp_op)
        # ``application "X" is running`` / ``is not running`` read the app's ``running`` property
        for seq, negate in ((("is", "running"), False), (("is", "not", "running"), True),
                            (("isn't", "running"), True)):
            if self.at_words(seq):
                self.pos += len(seq)
                prop = N.Prop(node.start, self.prev_end(), "running", node)
                return N.Unary(node.start, self.prev_end(), "not", prop) if negate else prop
        return node

    def parse_as(self) -> N.Node:
        node = self.parse_concat()
        # ``export d to file f as PDF``: a command whose dictionary has an ``as`` label takes it as
        # its parameter, as the real compiler does (in parentheses it is a coercion again)
        while self.at_word("as") and not self.as_is_label:
            self.next()
            name = self.parse_type_name()
            node = N.Coerce(node.start, self.prev_end(), node, name)
        return node

    def parse_type_name(self) -> str:
        self.skip_articles()
        if self.at_words(("alias", "list")):
            self.pos += 2
            return "alias list"
        m = self.match_term()
        if m and ("class" in m[1] or "plural" in m[1]):
            n, kinds = m
            self.pos += n
            return kinds.get("class") or kinds["plural"]
        if self.at_words(("posix", "file")):
            self.pos += 2
            return "posix file"
        if self.peek().kind == WORD:
            return str(self.next().value)
        raise self.error("class name")

    def parse_concat(self) -> N.Node:
        return self._chain(self.parse_additive, lambda: self._sym_op("&"))

    def _sym_op(self, *ops: str) -> str | None:
        t = self.peek()
        if t.kind == OP and t.value in ops:
            self.next()
            return t.value  # type: ignore[return-value]
        return None

    def parse_additive(self) -> N.Node:
        return self._chain(self.parse_multiplicative, lambda: self._sym_op("+", "-"))

    def parse_multiplicative(self) -> N.Node:
        def op() -> str | None:
            s = self._sym_op("*", "/", "÷")
            if s:
                return "/" if s == "÷" else s
            return self._word_op("div", "mod")
        return self._chain(self.parse_power, op)

    def parse_power(self) -> N.Node:
        base = self.parse_unary()
        if self.at_op("^"):
            self.next()
            self.enter()
            exponent = self.parse_power()
            self.leave()
            return N.Chain(base.start, exponent.end, base, [("^", exponent)])
        return base

    def parse_unary(self) -> N.Node:
        t = self.peek()
        if t.kind == OP and t.value in ("-", "+"):
            self.next()
            self.enter()
            operand = self.parse_unary()
            self.leave()
            if t.value == "-" and isinstance(operand, N.Lit) and isinstance(operand.value, (int, float)) \
                    and not isinstance(operand.value, bool):
                return N.Lit(t.start, operand.end, -operand.value)
            return N.Unary(t.start, operand.end, str(t.value), operand)
        node = self.parse_ref()
        if self.at_word("exists"):
            self.next()
            node = N.Exists(node.start, self.prev_end(), node)
        return node

    # ---------------------------------------------------------------- references
    def parse_ref(self, allow_whose: bool = True) -> N.Node:
        self.enter()
        try:
            if self.at_op("{"):
                plist = self._property_list_of()
                if plist is not None:
                    return plist
            node = self.parse_primary()
            node = self.parse_possessive(node)
            if self._open_container(node) and (self.at_word("of") or (
                    self.at_word("in") and isinstance(node, N.Elements) and not self.no_in_of)):
                self.next()
                container = self.parse_ref(allow_whose=False)
                node.container = container  # type: ignore[union-attr]
                node.end = container.end
                node = self.parse_possessive(node)
            if allow_whose and self.at_word("whose", "where"):
                target = self._whose_target(node)
                if target is None:
                    raise self.error("end of line")
                self.next()
                target.filter = self.parse_expr()
                node.end = target.filter.end
            return node
        finally:
            self.leave()

    def _property_list_of(self) -> N.PropList | None:
        """``{name, body} of note 1`` / ``{hours, minutes} of d``: a list of property names followed by
        ``of``. AppleScript distributes the ``of`` over the items; anything else is a list literal."""
        depth, i = 0, self.pos
        while i < len(self.toks) - 1:  # find the matching ``}``
            t = self.toks[i]
            if t.kind == OP and t.value == "{":
                depth += 1
            elif t.kind == OP and t.value == "}":
                depth -= 1
                if depth == 0:
                    break
            elif t.kind in (NEWLINE, EOF) and not (i > 0 and self.toks[i - 1].kind == OP
                                                  and self.toks[i - 1].value in (",", "{")):
                return None
            i += 1
        after = self.toks[min(i + 1, len(self.toks) - 1)]
        if depth != 0 or after.kind != WORD or after.value != "of":
            return None
        saved, start = self.pos, self.peek().start
        try:
            self.next()
            items: list[N.Node] = []
            while True:
                self.skip_newlines()
                item = self.parse_term_after_possessive()
                if not isinstance(item, (N.Prop, N.Elements)) or item.container is not None:
                    raise self.error("property name")
                items.append(item)
                self.skip_newlines()
                if self.at_op(","):
                    self.next()
                    continue
                self.expect_op("}")
                break
        except AppleScriptError:
            self.pos = saved  # not a property list (``{1, 2} of x``): parse it as a list and fail there
            return None
        self.expect_word("of")
        container = self.parse_ref()
        return N.PropList(start, container.end, items, container)

    @staticmethod
    def _open_container(node: N.Node) -> bool:
        return isinstance(node, (N.Prop, N.Elements, N.Insertion)) and node.container is None

    @staticmethod
    def _whose_target(node: N.Node) -> N.Elements | None:
        cur: N.Node | None = node
        while cur is not None:
            if isinstance(cur, N.Elements) and cur.sel in ("every", "ordinal", "range") and cur.filter is None:
                return cur
            cur = getattr(cur, "container", None)
        return None

    def parse_possessive(self, node: N.Node) -> N.Node:
        while self.peek().kind == POSS:
            self.next()
            base = node
            if isinstance(base, N.Var) and base.name == "applescript":
                base = N.ScriptObj(base.start, base.end)
            nxt = self.parse_term_after_possessive()
            nxt.container = base  # type: ignore[union-attr]
            nxt.start = base.start
            node = nxt
        return node

    def parse_term_after_possessive(self) -> N.Node:
        t = self.peek()
        self.skip_articles()
        if t.kind == ORDINAL or self.word() in ORDINAL_WORDS or self.word() == "every":
            return self.parse_primary()
        m = self.match_term()
        if m:
            n, kinds = m
            if "class" in kinds or "plural" in kinds:
                if "prop" not in kinds or self._sel_arg_follows(self.pos + n):
                    return self.parse_primary()
            if "prop" in kinds:
                self.pos += n
                return N.Prop(t.start, self.prev_end(), kinds["prop"], None)
        if t.kind == WORD:
            self.next()
            return N.Prop(t.start, t.end, str(t.value), None)
        raise self.error("property name")

    def _sel_arg_follows(self, i: int) -> bool:
        t = self.toks[min(i, len(self.toks) - 1)]
        if t.kind in (NUMBER, STRING):
            return True
        if t.kind == OP and t.value in ("(", "-"):
            return True
        if t.kind == WORD:
            w = str(t.value)
            if w in ("id", "index", "named"):
                return True
            if w in KEYWORDS or w == "the":
                return False
            nt = self.toks[min(i + 1, len(self.toks) - 1)]
            if nt.kind == OP and nt.value == "(":
                return False
            saved = self.pos
            self.pos = i
            m = self.match_term()
            self.pos = saved
            return m is None
        return False

    def parse_sel_arg(self) -> N.Node:
        t = self.peek()
        if t.kind in (NUMBER, STRING):
            self.next()
            return N.Lit(t.start, t.end, t.value)
        if t.kind == OP and t.value == "-":
            self.next()
            num = self.peek()
            if num.kind != NUMBER:
                raise self.error("number")
            self.next()
            return N.Lit(t.start, num.end, -num.value)  # type: ignore[operator]
        if t.kind == OP and t.value == "(":
            self.next()
            e = self.parse_expr()
            self.expect_op(")")
            e.start, e.end = t.start, self.prev_end()
            return e
        if t.kind == OP and t.value == "{":
            return self.parse_braces()
        if t.kind == WORD:
            self.next()
            return N.Var(t.start, t.end, str(t.value), t.text)
        raise self.error("expression")

    def parse_elements(self, cls: str, text: str, start: int) -> N.Node:
        """After a singular class name: the key form that selects elements."""
        if self.at_word("id"):
            self.next()
            arg = self.parse_sel_arg()
            return N.Elements(start, self.prev_end(), cls, "id", arg, text=text)
        if self.at_word("index"):
            self.next()
            arg = self.parse_sel_arg()
            return N.Elements(start, self.prev_end(), cls, "index", arg, text=text)
        if self.at_word("named"):
            self.next()
            arg = self.parse_sel_arg()
            return N.Elements(start, self.prev_end(), cls, "name", arg, text=text)
        arg = self.parse_sel_arg()
        if self.at_word("thru", "through"):
            self.next()
            arg2 = self.parse_sel_arg()
            return N.Elements(start, self.prev_end(), cls, "range", arg, arg2, text=text)
        return N.Elements(start, self.prev_end(), cls, "index", arg, text=text)

    def parse_class_word(self) -> tuple[str, str, bool]:
        """A class name (singular or plural): (singular, text, was_plural)."""
        self.skip_articles()
        m = self.match_term()
        t = self.peek()
        if not m or not ("class" in m[1] or "plural" in m[1]):
            raise self.error("class name")
        n, kinds = m
        self.pos += n
        text = self.source[t.start:self.prev_end()]
        if "class" in kinds:
            return kinds["class"], text, False
        return kinds["plural"], text, True

    def parse_primary(self) -> N.Node:
        self.skip_articles()
        t = self.peek()
        if t.kind == NUMBER or t.kind == STRING:
            self.next()
            return N.Lit(t.start, t.end, t.value)
        if t.kind == OP:
            if t.value == "(":
                self.next()
                saved, saved_as = self.no_in_of, self.as_is_label
                self.no_in_of = self.as_is_label = 0
                e = self.parse_expr()
                self.no_in_of, self.as_is_label = saved, saved_as
                self.expect_op(")")
                if isinstance(e, N.Chain):
                    return N.Chain(t.start, self.prev_end(), e, [])
                e.start, e.end = t.start, self.prev_end()  # error ranges include the parentheses
                return e
            if t.value == "{":
                return self.parse_braces()
            raise self.error("expression")
        if t.kind == ORDINAL:
            self.next()
            return self.parse_ordinal(int(t.value), t.start)  # type: ignore[arg-type]
        if t.kind != WORD:
            raise self.error("expression")
        w = str(t.value)
        # keywords that start an expression
        if w == "every":
            self.next()
            cls, text, _ = self.parse_class_word()
            return N.Elements(t.start, self.prev_end(), cls, "every", text=text)
        if w in ORDINAL_WORDS and self._class_follows(1):
            self.next()
            return self.parse_ordinal(ORDINAL_WORDS[w], t.start)
        if w == "it":
            self.next()
            return N.Its(t.start, t.end)
        if w == "its":
            self.next()
            nxt = self.parse_term_after_possessive()
            nxt.container = N.Its(t.start, t.end)  # type: ignore[union-attr]
            nxt.start = t.start
            return nxt
        if w == "me":
            self.next()
            return N.Me(t.start, t.end)
        if w == "my":
            self.next()
            nt = self.peek()
            if nt.kind == WORD and self.peek(1).kind == OP and self.peek(1).value == "(":
                call = self.parse_call()
                call.my = True
                call.start = t.start
                return call
            nxt = self.parse_term_after_possessive()
            nxt.container = N.Me(t.start, t.end)  # type: ignore[union-attr]
            nxt.start = t.start
            return nxt
        if w in ("true", "false"):
            self.next()
            return N.Lit(t.start, t.end, w == "true")
        if w in ("end", "beginning") and self.word(1) == "of":
            self.next()
            return N.Insertion(t.start, t.end, w, None)
        if w in ("application", "app") and self._value_follows(1):
            self.next()
            if self.at_word("id"):
                self.next()
            arg = self.parse_sel_arg()
            return N.AppSpec(t.start, self.prev_end(), arg)
        if w == "applescript":
            self.next()
            return N.Var(t.start, t.end, "applescript", t.text)
        m = self.match_term()
        if m is not None:
            n, kinds = m
            if "command" in kinds:
                return self.parse_command(kinds["command"], n, t)
            if w == "date" and n == 1 and self._value_follows(1):
                self.next()
                arg = self.parse_sel_arg()
                return N.DateLit(t.start, self.prev_end(), arg)
            if w == "number" and n == 1 and self.word(1) == "of":
                self.pos += 2
                direct = self.parse_as()
                return N.Command(t.start, self.prev_end(), "count", direct)
            after = self.pos + n
            next_tok = self.toks[min(after, len(self.toks) - 1)]
            next_is_of = next_tok.kind == WORD and next_tok.value == "of"
            if "prop" in kinds and next_is_of:
                self.pos += n
                return N.Prop(t.start, self.prev_end(), kinds["prop"], None)
            if "class" in kinds:
                self.pos += n
                text = self.source[t.start:self.prev_end()]
                if self._sel_arg_follows(self.pos):
                    return self.parse_elements(kinds["class"], text, t.start)
                if "prop" in kinds:
                    return N.Prop(t.start, self.prev_end(), kinds["prop"], None)
                return N.Lit(t.start, self.prev_end(), Constant(kinds["class"]))
            if "plural" in kinds:
                self.pos += n
                text = self.source[t.start:self.prev_end()]
                if self._sel_arg_follows(self.pos) and not self.at_word("id", "named", "index"):
                    saved = self.pos
                    arg = self.parse_sel_arg()
                    if self.at_word("thru", "through"):
                        self.next()
                        arg2 = self.parse_sel_arg()
                        return N.Elements(t.start, self.prev_end(), kinds["plural"], "range", arg, arg2, text=text)
                    self.pos = saved
                return N.Elements(t.start, self.prev_end(), kinds["plural"], "every", text=text)
            if "const" in kinds and not ("prop" in kinds and next_is_of):
                self.pos += n
                name = kinds["const"]
                value = CONSTANT_VALUES.get(name, Constant(name))
                return N.Lit(t.start, self.prev_end(), value)
            if "prop" in kinds:
                self.pos += n
                return N.Prop(t.start, self.prev_end(), kinds["prop"], None)
        if w in KEYWORDS:
            raise self.error("expression")
        if self.peek(1).kind == OP and self.peek(1).value == "(":
            return self.parse_call()
        self.next()
        if self.at_word("of"):
            # a user-defined label: ``body of r`` on a record
            return N.Prop(t.start, t.end, w, None)
        return N.Var(t.start, t.end, w, t.text)

    def _class_follows(self, k: int) -> bool:
        m = self.match_term(self.pos + k) if self.word(k) is not None else None
        if m is None and self.word(k) == "the":
            m = self.match_term(self.pos + k + 1)
        return m is not None and ("class" in m[1] or "plural" in m[1])

    def _value_follows(self, k: int) -> bool:
        t = self.peek(k)
        if t.kind in (STRING, NUMBER):
            return True
        if t.kind == OP and t.value == "(":
            return True
        if t.kind == WORD and t.value == "id" and k == 1:
            return True
        if t.kind == WORD and t.value not in KEYWORDS:
            return self.match_term(self.pos + k) is None
        return False

    def parse_ordinal(self, which: object, start: int) -> N.Elements:
        cls, text, _ = self.parse_class_word()
        return N.Elements(start, self.prev_end(), cls, "ordinal", ordinal=which, text=text)

    def parse_call(self) -> N.Call:
        t = self.next()
        self.expect_op("(")
        args: list[N.Node] = []
        if not self.at_op(")"):
            args.append(self.parse_expr())
            while self.at_op(","):
                self.next()
                args.append(self.parse_expr())
        self.expect_op(")")
        return N.Call(t.start, self.prev_end(), str(t.value), args)

    def parse_braces(self) -> N.Node:
        t = self.next()
        self.enter()
        saved_as, self.as_is_label = self.as_is_label, 0  # inside a list or record ``as`` coerces again
        try:
            self.skip_newlines()
            if self.at_op("}"):
                self.next()
                return N.ListLit(t.start, self.prev_end(), [])
            if self._record_label_len() is not None:
                pairs: list[tuple[str, N.Node]] = []
                while True:
                    self.skip_newlines()
                    n = self._record_label_len()
                    if n is None:
                        raise self.error("property label")
                    label_toks = self.toks[self.pos:self.pos + n]
                    m = self.match_term()
                    if m and m[0] == n and "prop" in m[1]:
                        label = m[1]["prop"]  # a dictionary term keeps its declared spelling (``URL``)
                    else:
                        label = " ".join(x.text for x in label_toks).strip("|")  # user label: keep its case
                    self.pos += n
                    self.expect_op(":")
                    pairs.append((label, self.parse_expr()))
                    self.skip_newlines()
                    if self.at_op(","):
                        self.next()
                        continue
                    self.expect_op("}")
                    return N.RecordLit(t.start, self.prev_end(), pairs)
            items = [self.parse_expr()]
            self.skip_newlines()
            while self.at_op(","):
                self.next()
                self.skip_newlines()
                items.append(self.parse_expr())
                self.skip_newlines()
            self.expect_op("}")
            return N.ListLit(t.start, self.prev_end(), items)
        finally:
            self.as_is_label = saved_as
            self.leave()

    def _record_label_len(self) -> int | None:
        """Number of word tokens forming a record label at the cursor (followed by ``:``)."""
        n = 0
        while self.peek(n).kind == WORD and n < 6:
            n += 1
            nt = self.peek(n)
            if nt.kind == OP and nt.value == ":":
                return n
        return None

    # ---------------------------------------------------------------- commands
    def _starts_value(self, labels: tuple[tuple[str, ...], ...]) -> bool:
        t = self.peek()
        if t.kind in (NUMBER, STRING, ORDINAL):
            return True
        if t.kind == OP:
            return t.value in ("(", "{", "-", "+")
        if t.kind != WORD:
            return False
        if any(self.at_words(lab) for lab in labels):
            return False
        w = str(t.value)
        if w in ("every", "it", "its", "me", "my", "true", "false", "not", "application", "app", "the",
                 "applescript") or w in ORDINAL_WORDS:
            return True
        if w in ("end", "beginning"):
            return self.word(1) == "of" or self.match_term() is not None
        return w not in KEYWORDS or self.match_term() is not None

    def parse_direct(self) -> N.Node:
        self.no_in_of += 1
        try:
            return self.parse_as()
        finally:
            self.no_in_of -= 1

    def parse_command(self, name: str, nwords: int, t: Token) -> N.Node:
        self.pos += nwords
        key = name.lower()
        start = t.start
        if key == "current date":
            return N.Command(start, self.prev_end(), "current date", None)
        if key == "make":
            self.expect_word("new")
            cls, _, _ = self.parse_class_word()
            node = N.Command(start, start, "make", None, cls=cls)
            while True:
                if self.accept("at"):
                    node.params["at"] = self.parse_direct()
                elif self.at_words(("with", "properties")):
                    self.pos += 2
                    node.params["with properties"] = self.parse_direct()
                elif self.at_words(("with", "data")):
                    self.pos += 2
                    node.params["with data"] = self.parse_direct()
                else:
                    break
            node.end = self.prev_end()
            return node
        if key == "offset":
            self.expect_word("of")
            self.no_in_of += 1
            needle = self.parse_as()
            self.no_in_of -= 1
            self.expect_word("in")
            hay = self.parse_direct()
            return N.Command(start, self.prev_end(), "offset", needle, {"in": hay})
        if key == "count":
            self.accept("of")
            direct = self.parse_as()
            return N.Command(start, self.prev_end(), "count", direct)
        if key == "path to":
            words: list[str] = []
            while self.peek().kind == WORD and self.word() not in ("as", "from", "of", "then", "to"):
                words.append(str(self.next().value))
            if not words:
                raise self.error("folder name")
            if self.at_words(("from", "user", "domain")) or self.at_words(("from", "local", "domain")) \
                    or self.at_words(("from", "system", "domain")):
                self.pos += 3
            return N.Command(start, self.prev_end(), "path to", N.Lit(start, start, " ".join(words)))
        if key == "posix file":
            arg = self.parse_sel_arg()
            return N.FileLit(start, self.prev_end(), arg, "file")
        labels = tuple(sorted((tuple(x.split()) for x in self.terms.commands.get(key, ())), key=len,
                              reverse=True))
        direct = None
        as_label = ("as",) in labels
        self.as_is_label += as_label
        try:
            if not self.end_of_statement() and self._starts_value(labels) and key not in ("beep",) or (
                    key == "beep" and self.peek().kind == NUMBER):
                direct = self.parse_direct()
            params = self._command_params(labels, start)
        finally:
            self.as_is_label -= as_label
        # builtins dispatch on their lower-case key; app commands keep the dictionary's spelling
        return N.Command(start, self.prev_end(), key if key in BUILTIN_COMMANDS else name, direct, params)

    def _command_params(self, labels: tuple[tuple[str, ...], ...], start: int) -> dict[str, N.Node]:
        params: dict[str, N.Node] = {}
        while not self.end_of_statement():
            lab = next((lab for lab in labels if self.at_words(lab)), None)
            if lab is not None:
                self.pos += len(lab)
                label = " ".join(lab)
                if label == "rounding":
                    m = self.match_term()
                    if m is None or "const" not in m[1]:
                        raise self.error("rounding direction")
                    tok = self.peek()
                    self.pos += m[0]
                    params[label] = N.Lit(tok.start, self.prev_end(), CONSTANT_VALUES.get(m[1]["const"]))
                    continue
                params[label] = self.parse_direct()
                continue
            if self.at_word("with", "without"):
                flag_on = self.next().value == "with"
                while True:
                    words = []
                    while self.peek().kind == WORD and self.word() not in ("and", "with", "without") and \
                            not any(self.at_words(lab) for lab in labels):
                        words.append(str(self.next().value))
                    if not words:
                        raise self.error("parameter name")
                    params[" ".join(words)] = N.Lit(start, start, flag_on)
                    if self.at_op(",") or self.at_word("and"):
                        self.next()
                        continue
                    break
                continue
            break
        return params


def parse(source: str, terminology: Callable[[str], Terminology | None] | None = None,
          max_nesting: int = 60, max_chars: int = 1_000_000) -> N.Script:
    """Compile ``source``; raises :class:`AppleScriptError` (``kind="syntax"``) with the position."""
    if len(source) > max_chars:
        raise syntax_error(f"The script is too long ({len(source)} characters; the limit is {max_chars}).",
                           max_chars, len(source), source[:0] or " ", -2741)
    return Parser(source, terminology, max_nesting).parse_script()

"""Tests of the AppleScript interpreter used by MacAgent-v0's simulated desktop.

Fake Notes / Reminders / Calendar apps are built with ``RecordStoreApp`` (the same way the sim's
apps can be) and scripted the way task getters and agents do.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mmenvs.macagent.applescript import (AppleScriptError, AppleScriptHost, AppObject, ClassSpec, Constant,
                                         DialogReply, FileRef, Limits, ObjectRef, RecordStoreApp, ScriptableApp,
                                         ShellResult, StepBudgetExceeded, SystemEventsApp, evaluate,
                                         run_applescript)
from mmenvs.macagent.applescript.errors import line_col
from mmenvs.macagent.applescript.lexer import tokenize
from mmenvs.macagent.applescript.values import format_real, parse_date

NOW = datetime(2025, 3, 3, 10, 0, 0)  # a Monday


def make_notes() -> RecordStoreApp:
    notes = RecordStoreApp("Notes", [
        ClassSpec("account", properties={"name": ""}, elements=("folder",)),
        ClassSpec("folder", properties={"name": ""}, elements=("note",), parent_class="account"),
        ClassSpec("note", properties={"name": "", "body": "", "creation date": datetime(2025, 1, 1)},
                  parent_class="folder", readonly=frozenset({"creation date"}), id_format="x-coredata://notes/p{n}"),
    ], app_elements=("account", "folder", "note"))
    acc = notes.add("account", {"name": "iCloud"})
    inbox = notes.add("folder", {"name": "Notes"}, parent=acc)
    work = notes.add("folder", {"name": "Work"}, parent=acc)
    notes.add("note", {"name": "Groceries", "body": "milk, eggs"}, parent=inbox)
    notes.add("note", {"name": "Project Ideas", "body": "ship it"}, parent=work)
    notes.add("note", {"name": "Todo", "body": "call mom"}, parent=inbox)
    return notes


def make_reminders() -> RecordStoreApp:
    rem = RecordStoreApp("Reminders", [
        ClassSpec("list", properties={"name": ""}, elements=("reminder",)),
        ClassSpec("reminder", properties={"name": "", "body": "", "completed": False, "due date": None,
                                          "priority": 0}, parent_class="list"),
    ], app_elements=("list", "reminder"))
    lst = rem.add("list", {"name": "Reminders"})
    for i, (name, done) in enumerate([("Pay rent", False), ("Buy milk", True), ("Call bank", False)]):
        rem.add("reminder", {"name": name, "completed": done, "due date": datetime(2025, 3, 3 + i, 9, 0)}, parent=lst)
    return rem


def make_calendar() -> RecordStoreApp:
    cal = RecordStoreApp("Calendar", [
        ClassSpec("calendar", properties={"name": ""}, elements=("event",)),
        ClassSpec("event", properties={"summary": "", "start date": datetime(2000, 1, 1),
                                       "end date": datetime(2000, 1, 1), "location": ""}, parent_class="calendar"),
    ], app_elements=("calendar",))
    cal.add("calendar", {"name": "Home"})
    cal.add("calendar", {"name": "Work"})
    return cal


@pytest.fixture
def apps() -> dict[str, RecordStoreApp]:
    return {"Notes": make_notes(), "Reminders": make_reminders(), "Calendar": make_calendar()}


@pytest.fixture
def host(apps: dict[str, RecordStoreApp]) -> AppleScriptHost:
    h = AppleScriptHost(dict(apps), now=NOW)
    processes = [{"name": "Finder", "frontmost": True, "visible": True},
                 {"name": "Notes", "frontmost": False, "visible": True}]
    activated: list[str] = []
    h.activated = activated  # type: ignore[attr-defined]
    h._apps["System Events"] = SystemEventsApp(h, processes=lambda: processes, activate=activated.append)  # type: ignore[index]
    return h


def run(src: str, host: AppleScriptHost | None = None) -> str:
    return run_applescript(src, host or AppleScriptHost(now=NOW))


def err(src: str, host: AppleScriptHost | None = None) -> AppleScriptError:
    with pytest.raises(AppleScriptError) as info:
        run(src, host)
    return info.value


# ------------------------------------------------------------------------------------ lexer
def test_lexer_tokens_comments_continuation_and_contractions() -> None:
    toks = tokenize('set x to 1.5 -- c\n# c2\n(* a (* nested *) b *) x ¬\n & "a\\"b" isn\'t 2nd')
    kinds = [(t.kind, t.value) for t in toks]
    assert ("number", 1.5) in kinds
    assert ("string", 'a"b') in kinds
    assert ("word", "isn't") in kinds
    assert ("ordinal", 2) in kinds
    # the comment lines collapse into one newline, the ¬ joins the lines
    assert [k for k, _ in kinds].count("newline") == 1


def test_lexer_pipes_possessive_and_curly_quotes() -> None:
    toks = tokenize("|my var|'s name & “curly”")
    assert toks[0].kind == "word" and toks[0].text == "|my var|"
    assert toks[1].kind == "poss"
    assert toks[-2].value == "curly"


@pytest.mark.parametrize("src,message,start", [
    ('set x to "abc', 'Expected “"” but found end of script.', 9),
    ("(* open", "Expected “*)” but found end of script.", 7),
    ("set x to 1 ~ 2", "Expected expression but found unknown token.", 11),
    ('"bad \\q escape"', 'Expected “"” but found unknown token.', 5),
])
def test_lexer_errors_are_positioned_syntax_errors(src: str, message: str, start: int) -> None:
    e = err(src)
    assert e.kind == "syntax"
    assert e.message == message
    assert e.start == start
    assert e.number == -2741


# ------------------------------------------------------------------------------------ syntax errors
@pytest.mark.parametrize("src,text", [
    ("set x to", "8:8: syntax error: Expected expression but found end of script. (-2741)"),
    ("foo bar", "4:7: syntax error: Expected end of line but found identifier. (-2741)"),
    ("return 1 2", "9:10: syntax error: Expected end of line but found number. (-2741)"),
    ('tell application "Notes"\nget 1', "30:30: syntax error: Expected “end” or “end tell” but found end of script. (-2741)"),
    ("if true then\n1", "14:14: syntax error: Expected “end” or “end if” but found end of script. (-2741)"),
    ("repeat 3 times\nend tell", "15:23: syntax error: Expected “end” or “end repeat” but found “end tell”. (-2741)"),
    ("x = = 1", "4:5: syntax error: Expected expression but found “=”. (-2741)"),
    ("{1, 2", "5:5: syntax error: Expected “}” but found end of script. (-2741)"),
    ("end tell", "0:3: syntax error: Expected end of line but found “end”. (-2741)"),
])
def test_syntax_errors_print_like_osascript(src: str, text: str) -> None:
    assert str(err(src)) == text


def test_syntax_error_line_and_column() -> None:
    e = err('set a to 1\nset b to 2\nset c to "x" "y"')
    assert (e.line, e.column) == (3, 14)
    assert line_col("ab\r\ncd", 4) == (2, 1)


def test_syntax_error_stops_before_anything_runs(host: AppleScriptHost, apps: dict) -> None:
    with pytest.raises(AppleScriptError):
        run('tell application "Notes" to delete note "Groceries"\nset x to', host)
    assert run('tell application "Notes" to count notes', host) == "3"


# ------------------------------------------------------------------------------------ formatting
@pytest.mark.parametrize("src,out", [
    ('"hello"', "hello"),
    ("{1, 2, 3}", "1, 2, 3"),
    ('{"a", {"b", "c"}}', "a, b, c"),
    ('{name:"x", body:"y"}', "name:x, body:y"),
    ("true", "true"),
    ("missing value", "missing value"),
    ("{true, missing value}", "true, missing value"),
    ("10 / 4", "2.5"),
    ("10 / 3", "3.333333333333"),
    ("4 / 2", "2.0"),
    ("12345.678", "1.2345678E+4"),
    ("0.00001", "1.0E-5"),
    ("536870911 + 1", "5.36870912E+8"),
    ("2 ^ 10", "1024.0"),
    ('date "Monday, 3 March 2025 at 10:00:00"', "Monday, 3 March 2025 at 10:00:00"),
    ('{date "3 March 2025"}', "date Monday, 3 March 2025 at 00:00:00"),
    ("{}", ""),
    ("set x to 5", "5"),
    ("class of 1", "integer"),
    ("class of {a:1}", "record"),
    ("month of (current date)", "March"),
])
def test_results_print_like_osascript(src: str, out: str) -> None:
    assert run(src) == out


def test_format_real_thresholds() -> None:
    assert format_real(9999.5) == "9999.5"
    assert format_real(10000.0) == "1.0E+4"
    assert format_real(-0.25) == "-0.25"


def test_commands_without_result_print_nothing(host: AppleScriptHost) -> None:
    assert run('tell application "Notes" to activate', host) == ""
    assert run('display notification "hi"', host) == ""


# ------------------------------------------------------------------------------------ operators
@pytest.mark.parametrize("src,out", [
    ("1 + 2 * 3", "7"),
    ("(1 + 2) * 3", "9"),
    ("-2 ^ 2", "4.0"),
    ("2 ^ 3 ^ 2", "512.0"),
    ("7 div 2", "3"),
    ("-7 div 2", "-3"),
    ("7 mod 3", "1"),
    ("-7 mod 3", "-1"),
    ('"3" + 4', "7"),
    ('"a" & 1 & true', "a1true"),
    ("1 & 2", "1, 2"),
    ("{1} & {2, 3}", "1, 2, 3"),
    ("{a:1} & {b:2, a:9}", "a:1, b:2"),
    ('"ABC" = "abc"', "true"),
    ('1 = "1"', "false"),
    ("1 = 1.0", "true"),
    ('"abc" is not "abd"', "true"),
    ("3 > 2 and 2 ≥ 2", "true"),
    ("3 <= 2 or not false", "true"),
    ("3 is greater than 2", "true"),
    ("2 is less than or equal to 2", "true"),
    ('"apple" comes before "banana"', "true"),
    ('"Hello World" contains "world"', "true"),
    ('"Hello" does not contain "x"', "true"),
    ('"hello" starts with "HE"', "true"),
    ('"hello" ends with "lo"', "true"),
    ("{1, 2, 3} contains {2, 3}", "true"),
    ("{1, 2, 3} contains 4", "false"),
    ("2 is in {1, 2}", "true"),
    ("5 is not in {1, 2}", "true"),
    ("{1, 2} starts with 1", "true"),
    ("{a:1, b:2} contains {b:2}", "true"),
    ('"10" < 9', "true"),
    ("10 < \"9\"", "false"),
])
def test_operators(src: str, out: str) -> None:
    assert run(src) == out


def test_considering_case_changes_text_comparison() -> None:
    assert run('considering case\n"ABC" = "abc"\nend considering') == "false"
    assert run('considering case\nignoring case\n"ABC" = "abc"\nend ignoring\nend considering') == "true"


def test_and_or_short_circuit() -> None:
    assert run("false and (1 / 0)") == "false"
    assert run("true or undefinedVar") == "true"


@pytest.mark.parametrize("src,out", [
    ('"42" as integer', "42"),
    ('"3.7" as integer', "4"),
    ("2.5 as integer", "2"),
    ('"2.5" as real', "2.5"),
    ('"7" as number', "7"),
    ("3 as text", "3"),
    ("1.5 as string", "1.5"),
    ('"true" as boolean', "true"),
    ("5 as list", "5"),
    ("{1, 2} as text", "12"),
    ("{a:1, b:2} as list", "1, 2"),
    ('"3 March 2025" as date', "Monday, 3 March 2025 at 00:00:00"),
    ("March as integer", "3"),
])
def test_coercions(src: str, out: str) -> None:
    assert run(src) == out


def test_coercion_errors() -> None:
    assert str(err('"abc" as integer')) == '0:16: execution error: Can’t make "abc" into type integer. (-1700)'
    assert err("{a:1} as text").number == -1700
    assert err("{1, 2} as boolean").number == -1700


def test_arithmetic_errors() -> None:
    assert str(err("1 / 0")) == "0:5: execution error: Can’t divide 1.0 by zero. (-2701)"
    assert err("5 mod 0").number == -2701
    assert err('"x" + 1').number == -1700
    assert err("2 ^ 10000").number == -2702


# ------------------------------------------------------------------------------------ text
@pytest.mark.parametrize("src,out", [
    ("length of \"hello\"", "5"),
    ("count of \"hello\"", "5"),
    ("count {1, 2, 3}", "3"),
    ("the number of items in {1, 2}", "2"),
    ('characters 1 thru 3 of "abcdef"', "a, b, c"),
    ('text 2 thru 4 of "abcdef"', "bcd"),
    ('text -3 thru -1 of "abcdef"', "def"),
    ('character -1 of "abc"', "c"),
    ('last character of "abc"', "c"),
    ('words of "Hello, big world! It\'s 3.5"', "Hello, big, world, It's, 3.5"),
    ('count words of "one two  three"', "3"),
    ('paragraphs of ("a" & return & "b" & linefeed & "c")', "a, b, c"),
    ('paragraph 2 of "x\ny"', "y"),
    ('quoted form of "it\'s"', "'it'\\''s'"),
    ('offset of "c" in "abcd"', "3"),
    ('offset of "z" in "abcd"', "0"),
    ('"a" & tab & "b"', "a\tb"),
    ('ASCII character 65', "A"),
    ('ASCII number "a"', "97"),
    ('id of "A"', "65"),
    ('"tab\\there"', "tab\there"),
    ("rest of {1, 2, 3}", "2, 3"),
    ("reverse of {1, 2, 3}", "3, 2, 1"),
    ("items 2 thru -1 of {1, 2, 3, 4}", "2, 3, 4"),
    ("first item of {5, 6}", "5"),
    ("item -1 of {5, 6}", "6"),
    ('integers of {1, "a", 2.5, 3}', "1, 3"),
    ('count (every text of {1, "a", "b"})', "2"),
])
def test_text_and_list_elements(src: str, out: str) -> None:
    assert run(src) == out


def test_text_item_delimiters() -> None:
    src = ('set AppleScript\'s text item delimiters to ","\n'
           'set parts to text items of "a,b,c"\n'
           "set AppleScript's text item delimiters to \" - \"\n"
           "set joined to parts as text\n"
           "set AppleScript's text item delimiters to \"\"\n"
           "{count of parts, joined}")
    assert run(src) == "3, a - b - c"
    assert run('set text item delimiters to {"-", "/"}\ntext items of "a-b/c"') == "a, b, c"
    assert run("text item delimiters") == ""


def test_element_errors_name_the_value() -> None:
    assert str(err("item 5 of {1, 2, 3}")) == "0:19: execution error: Can’t get item 5 of {1, 2, 3}. (-1728)"
    assert err('character 10 of "abc"').message == 'Can’t get character 10 of "abc".'
    assert err("item 0 of {1}").number == -1728


# ------------------------------------------------------------------------------------ dates
def test_date_literals_and_parsing() -> None:
    for text in ("Monday, 3 March 2025 at 10:00:00", "3 March 2025 10:00", "March 3, 2025 10:00 AM",
                 "2025-03-03 10:00", "03/03/2025 10:00:00", "2025-03-03T10:00:00"):
        assert parse_date(text, NOW) == datetime(2025, 3, 3, 10, 0), text
    assert parse_date("3:30 PM", NOW) == datetime(2025, 3, 3, 15, 30)
    assert parse_date("15 April 2026", NOW) == datetime(2026, 4, 15)
    with pytest.raises(AppleScriptError):
        parse_date("not a date", NOW)
    assert err('date "31 February 2025"').number == -30720


def test_date_arithmetic_and_properties() -> None:
    src = ('set d to date "Monday, 3 March 2025 at 10:00:00"\n'
           "set d to d + 2 * days + 3 * hours + 15 * minutes\n"
           "{year of d, month of d as integer, day of d, weekday of d, hours of d, minutes of d, "
           "time string of d, date string of d, short date string of d, time of d}")
    assert run(src) == "2025, 3, 5, Wednesday, 13, 15, 13:15:00, Wednesday, 5 March 2025, 05/03/2025, 47700"
    assert run('(date "4 March 2025") - (date "3 March 2025")') == "86400"
    assert run("(current date) + 1 * weeks") == "Monday, 10 March 2025 at 10:00:00"
    assert run('date "10 March 2025" > date "3 March 2025"') == "true"
    assert run("(current date) - 3600") == "Monday, 3 March 2025 at 09:00:00"


def test_set_date_components() -> None:
    src = "set d to current date\nset day of d to 20\nset hours of d to 8\nset time of d to 0\nd"
    assert run(src) == "Thursday, 20 March 2025 at 00:00:00"
    assert run("set d to current date\nset month of d to April\nset year of d to 2026\nd") == \
        "Friday, 3 April 2026 at 10:00:00"


def test_current_date_comes_from_the_injected_clock() -> None:
    host = AppleScriptHost(now=lambda: datetime(2030, 1, 2, 3, 4, 5))
    assert run("current date", host) == "Wednesday, 2 January 2030 at 03:04:05"
    assert isinstance(evaluate("current date", host), datetime)


# ------------------------------------------------------------------------------------ control flow
def test_if_else_if_else_and_single_line_if() -> None:
    src = "set x to {}\nrepeat with n in {1, 5, 10}\nif n < 3 then\nset end of x to \"small\"\n" \
          "else if n < 8 then\nset end of x to \"mid\"\nelse\nset end of x to \"big\"\nend if\nend repeat\nx"
    assert run(src) == "small, mid, big"
    assert run("if 1 > 2 then return 1 else return 2") == "2"
    assert run("set y to 0\nif true then set y to 7\ny") == "7"


@pytest.mark.parametrize("src,out", [
    ("set s to 0\nrepeat with i from 1 to 10\nset s to s + i\nend repeat\ns", "55"),
    ("set s to {}\nrepeat with i from 10 to 1 by -3\nset end of s to i\nend repeat\ns", "10, 7, 4, 1"),
    ("set s to 0\nrepeat 4 times\nset s to s + 2\nend repeat\ns", "8"),
    ("set i to 0\nrepeat while i < 5\nset i to i + 1\nend repeat\ni", "5"),
    ("set i to 0\nrepeat until i ≥ 3\nset i to i + 1\nend repeat\ni", "3"),
    ("set i to 0\nrepeat\nset i to i + 1\nif i = 4 then exit repeat\nend repeat\ni", "4"),
    ('set out to ""\nrepeat with c in "abc"\nset out to c & out\nend repeat\nout', "cba"),
    ("set i to 0\nrepeat with x in {}\nset i to 1\nend repeat\ni", "0"),
])
def test_repeat_forms(src: str, out: str) -> None:
    assert run(src) == out


def test_repeat_in_binds_a_reference_like_real_applescript() -> None:
    # the famous gotcha: the loop variable is `item i of l`, and `=` does not look through it
    src = 'set c to 0\nrepeat with x in {"a", "b"}\nif x = "a" then set c to c + 1\nend repeat\nc'
    assert run(src) == "0"
    assert run(src.replace('if x = "a"', 'if contents of x = "a"')) == "1"
    assert run('set r to ""\nrepeat with x in {"a", "b"}\nset r to r & x\nend repeat\nr') == "ab"
    assert run("repeat with x in {7, 8}\nreturn x\nend repeat") == "item 1 of {7, 8}"


def test_handlers_parameters_recursion_and_return() -> None:
    src = "on fact(n)\nif n ≤ 1 then return 1\nreturn n * fact(n - 1)\nend fact\nfact(10)"
    assert run(src) == "3628800"
    assert run("on add(a, b)\nreturn a + b\nend add\nadd(2, 3)") == "5"
    assert run("to greet(who)\n\"hi \" & who\nend greet\ngreet(\"bob\")") == "hi bob"  # implicit result
    assert run("on noargs()\nreturn 1\nend noargs\nnoargs() + 1") == "2"


def test_handler_scoping_follows_applescript() -> None:
    e = err("set x to 1\non foo()\nreturn x\nend foo\nfoo()")
    assert e.message == "The variable x is not defined."
    assert e.number == -2753
    assert run("global x\nset x to 1\non foo()\nreturn x\nend foo\nfoo()") == "1"
    assert run("property counter : 0\non bump()\nset counter to counter + 1\nend bump\nbump()\nbump()\ncounter") == "2"
    assert run("property p : 5\nmy p") == "5"


def test_handler_errors() -> None:
    assert err("on f(a)\nreturn a\nend f\nf(1, 2)").number == -1721
    assert err("nothere()").message == "«script» doesn’t understand the “nothere” message."
    assert err("on f(n)\nreturn f(n + 1)\nend f\nf(1)").message == "Stack overflow."
    assert err("on f()\nreturn 1\nend f\non f()\nreturn 2\nend f").kind == "syntax"


def test_run_handler() -> None:
    assert run("on run\nreturn 42\nend run") == "42"
    assert run("on run argv\nreturn count of argv\nend run") == "0"


def test_try_on_error_and_error_statement() -> None:
    src = 'try\nerror "boom" number 42\non error msg number num\nreturn msg & " " & num\nend try'
    assert run(src) == "boom 42"
    assert run("try\n1 / 0\nend try\n\"went on\"") == "went on"
    assert str(err('error "boom"')) == "0:12: execution error: boom (-2700)"
    assert str(err("error number 5")) == "0:14: execution error: An error of type 5 has occurred. (5)"
    src = 'try\nerror "inner" number 7\non error m number n\nerror "outer: " & m number n + 1\nend try'
    e = err(src)
    assert (e.message, e.number) == ("outer: inner", 8)
    assert run('try\nerror "x" from {1}\non error from f\nreturn f\nend try') == "1"


def test_variables_lists_records_and_copy() -> None:
    assert err("x").message == "The variable x is not defined."
    assert run("set {a, b} to {1, 2}\na + b") == "3"
    assert run("set l to {1, 2}\nset m to l\nset end of m to 3\nl") == "1, 2, 3"  # set shares
    assert run("set l to {1, 2}\ncopy l to m\nset end of m to 3\nl") == "1, 2"    # copy duplicates
    assert run("set l to {1, 2, 3}\nset item 2 of l to 9\nset beginning of l to 0\nl") == "0, 1, 9, 3"
    assert run('set r to {name:"x", body:"y"}\nset name of r to "z"\n{name of r, r\'s body}') == "z, y"
    assert run("set Foo to 3\nfoo") == "3"  # identifiers ignore case
    assert run("set |my var| to 2\n|my var| * 2") == "4"
    assert err('set r to {a:1}\nb of r').message == "Can’t get b of {a:1}."


def test_result_variable_and_log(host: AppleScriptHost) -> None:
    assert run("3 + 4\nresult * 2") == "14"
    run('log "hello"\nlog {1, "a"}', host)
    assert host.logs == ["hello", "1, a"]


def test_comments_continuations_and_blank_scripts() -> None:
    assert run("set x to 5 -- comment\n# hash comment\n(* block (* nested *) *) x") == "5"
    assert run("set x to 1 + ¬\n  2\nx") == "3"
    assert run("") == ""
    assert run("  \n\n-- only a comment\n") == ""


def test_constants() -> None:
    assert run("pi") == "3.14159265359"
    assert run("{yes, no, ask}") == "yes, no, ask"
    assert run('"a" & space & quote & "b" & quote') == 'a "b"'
    assert run("2 * days") == "172800"
    assert run("round 2.5") == "2"
    assert run("round 2.5 rounding as taught in school") == "3"
    assert run("round -2.5 rounding up") == "-2"
    assert run("round 2.7 rounding down") == "2"


def test_random_number_is_deterministic_per_host_seed() -> None:
    a = run("random number from 1 to 100", AppleScriptHost(seed=3))
    b = run("random number from 1 to 100", AppleScriptHost(seed=3))
    assert a == b
    assert 1 <= int(a) <= 100


# ------------------------------------------------------------------------------------ object model
def test_getters_like_benchmark_tasks(host: AppleScriptHost) -> None:
    assert run('tell application "Notes" to get body of note "Groceries"', host) == "milk, eggs"
    assert run('tell application "Notes" to get name of every note', host) == "Groceries, Project Ideas, Todo"
    assert run('tell application "Reminders" to count of (every reminder whose completed is false)', host) == "2"
    assert run('tell application "Notes" to count notes', host) == "3"
    assert run('tell application "Notes" to return count of notes in folder "Notes"', host) == "2"
    assert run('tell application "Notes" to number of notes of folder "Work"', host) == "1"
    assert run('tell application "Notes"\nget name of notes of folder "Notes"\nend tell', host) == "Groceries, Todo"


@pytest.mark.parametrize("filt,names", [
    ("completed is false", "Pay rent, Call bank"),
    ("completed = true", "Buy milk"),
    ("not completed", "Pay rent, Call bank"),
    ('name is not "Pay rent"', "Buy milk, Call bank"),
    ('name contains "MILK"', "Buy milk"),
    ('name starts with "Ca"', "Call bank"),
    ('name ends with "rent"', "Pay rent"),
    ('name does not contain "a"', "Buy milk"),
    ('due date > date "3 March 2025 12:00"', "Buy milk, Call bank"),
    ("due date < (current date)", "Pay rent"),
    ('completed is false and name contains "bank"', "Call bank"),
    ('completed is true or name starts with "Pay"', "Pay rent, Buy milk"),
    ('its name is in {"Pay rent", "Call bank"}', "Pay rent, Call bank"),
    ("priority ≥ 0", "Pay rent, Buy milk, Call bank"),
])
def test_whose_filters(host: AppleScriptHost, filt: str, names: str) -> None:
    src = f'tell application "Reminders" to get name of every reminder whose {filt}'
    assert run(src, host) == names
    assert run(src.replace("every reminder whose", "reminders where"), host) == names


def test_element_selectors(host: AppleScriptHost, apps: dict) -> None:
    t = 'tell application "Reminders" to get name of '
    assert run(t + "reminder 1", host) == "Pay rent"
    assert run(t + "first reminder", host) == "Pay rent"
    assert run(t + "second reminder", host) == "Buy milk"
    assert run(t + "last reminder", host) == "Call bank"
    assert run(t + "reminder -1", host) == "Call bank"
    assert run(t + "middle reminder", host) == "Buy milk"
    assert run(t + "3rd reminder", host) == "Call bank"
    assert run(t + "reminders 1 thru 2", host) == "Pay rent, Buy milk"
    assert run(t + 'reminder "buy milk"', host) == "Buy milk"
    assert run(t + 'reminder named "Buy milk"', host) == "Buy milk"
    assert run(t + "reminder index 2", host) == "Buy milk"
    rid = apps["Reminders"].all("reminder")[1].id
    assert run(t + f'reminder id "{rid}"', host) == "Buy milk"
    assert run(t + "first reminder whose completed is false", host) == "Pay rent"
    assert run(t + "last reminder whose completed is false", host) == "Call bank"
    assert run(t + "list 1", host) == "Reminders"
    assert run('tell application "Reminders" to get reminder 1\'s name', host) == "Pay rent"
    assert run('tell application "Notes" to get name of note 1 of folder "Work"', host) == "Project Ideas"
    assert run('tell application "Notes" to get name of every note of folder "Notes" whose body contains "mom"',
               host) == "Todo"


def test_object_results_print_as_references(host: AppleScriptHost) -> None:
    assert run('tell application "Notes" to get note 1', host) == 'note id "x-coredata://notes/p4" of application "Notes"'
    value = evaluate('tell application "Notes" to get note "Todo"', host)
    assert isinstance(value, AppObject) and value.ref == ObjectRef("note", "x-coredata://notes/p6")
    assert run('tell application "Notes" to get name of container of note "Todo"', host) == "Notes"
    assert run('tell application "Notes" to get class of note 1', host) == "note"


def test_missing_objects_raise_the_real_error(host: AppleScriptHost) -> None:
    e = err('tell application "Notes" to get body of note "Nope"', host)
    assert e.message == 'Notes got an error: Can’t get note "Nope".'
    assert e.number == -1728
    assert str(e).endswith('execution error: Notes got an error: Can’t get note "Nope". (-1728)')
    assert err('tell application "Notes" to get note 9', host).message == "Notes got an error: Can’t get note 9."
    e = err('tell application "Reminders" to get name of first reminder whose name is "zz"', host)
    assert e.message == 'Reminders got an error: Can’t get first reminder whose name is "zz".'
    e = err('tell application "Notes" to get note "x" of folder "Work"', host)
    assert e.message.startswith('Notes got an error: Can’t get note "x" of folder "Work"')
    src = 'tell application "Notes"\ntry\nget note "x"\non error m number n\nreturn m & "|" & n\nend try\nend tell'
    assert run(src, host) == 'Notes got an error: Can’t get note "x".|-1728'


def test_error_position_is_the_failing_range(host: AppleScriptHost) -> None:
    src = 'set a to 1\ntell application "Notes" to get body of note "Nope"'
    e = err(src, host)
    assert src[e.start:e.end] == 'note "Nope"'
    assert (e.line, e.column) == (2, 41)


def test_unknown_application(host: AppleScriptHost) -> None:
    e = err('tell application "Foo" to activate', host)
    assert e.message == 'Can’t get application "Foo".'
    assert e.number == -1728


def test_exists(host: AppleScriptHost) -> None:
    assert run('tell application "Notes" to exists note "Todo"', host) == "true"
    assert run('tell application "Notes" to exists note "Nope"', host) == "false"
    assert run('tell application "Notes" to note "Nope" exists', host) == "false"
    assert run('tell application "Notes" to exists (every note whose name is "zz")', host) == "false"
    assert run('tell application "Notes"\nif not (exists note "Nope") then return "absent"\nend tell', host) == "absent"


def test_make_set_delete(host: AppleScriptHost, apps: dict) -> None:
    notes = apps["Notes"]
    out = run('tell application "Notes" to make new note at folder "Work" with properties '
              '{name:"Meeting Notes", body:"agenda"}', host)
    assert out.startswith('note id "x-coredata://notes/p') and out.endswith('of application "Notes"')
    assert run('tell application "Notes" to get name of notes of folder "Work"', host) == "Project Ideas, Meeting Notes"
    run('tell application "Notes" to set body of note "Meeting Notes" to body of note "Meeting Notes" & '
        '"<br>Reviewed on Tuesday."', host)
    made = [r for r in notes.all("note") if notes.record(r)["name"] == "Meeting Notes"][0]
    assert notes.record(made)["body"] == "agenda<br>Reviewed on Tuesday."
    # make without `at` uses the class's default container (the first folder)
    run('tell application "Notes" to make new note with properties {name:"Loose"}', host)
    assert run('tell application "Notes" to get name of notes of folder "Notes"', host) == "Groceries, Todo, Loose"
    # make inside `tell folder` puts it there
    run('tell application "Notes" to tell folder "Work" to make new note with properties {name:"W2"}', host)
    assert "W2" in run('tell application "Notes" to get name of notes of folder "Work"', host)
    run('tell application "Notes" to delete (every note whose name starts with "W")', host)
    assert run('tell application "Notes" to get name of notes of folder "Work"', host) == "Project Ideas, Meeting Notes"
    run('tell application "Notes" to delete note "Loose"', host)
    assert run('tell application "Notes" to count notes', host) == "4"


def test_make_at_end_of_elements_and_dates(host: AppleScriptHost, apps: dict) -> None:
    src = ('tell application "Calendar" to make new event at end of events of calendar "Work" with properties '
           '{summary:"Standup", start date:date "Monday, 3 March 2025 at 10:00:00", '
           'end date:date "Monday, 3 March 2025 at 10:15:00"}')
    run(src, host)
    assert run('tell application "Calendar" to get summary of every event of calendar "Work"', host) == "Standup"
    assert run('tell application "Calendar" to get start date of first event of calendar "Work"', host) == \
        "Monday, 3 March 2025 at 10:00:00"
    src = ('tell application "Calendar"\nset e to first event of calendar "Work" whose summary is "Standup"\n'
           "((end date of e) - (start date of e)) / minutes\nend tell")
    assert run(src, host) == "15.0"
    # without `at` the event goes to the default container (the first calendar)
    run('tell application "Calendar" to make new event with properties {summary:"x"}', host)
    assert run('tell application "Calendar" to get summary of events of calendar "Home"', host) == "x"
    e = err('tell application "Calendar" to make new widget', host)
    assert e.kind == "syntax" and e.message == "Expected class name but found identifier."


def test_reminders_make_in_new_list(host: AppleScriptHost) -> None:
    src = ('tell application "Reminders"\nmake new list with properties {name:"Apple Systems"}\n'
           'make new reminder at end of reminders of list "Apple Systems" with properties '
           '{name:"Sequoia Release", due date:date "2024-01-01"}\n'
           'get {name, due date} of reminder 1 of list "Apple Systems"\nend tell')
    # ``{a, b} of x`` reads each property of x (real scripts do ``{position, size} of window 1``)
    assert run(src, host) == "Sequoia Release, date Monday, 1 January 2024 at 00:00:00"
    src = src.replace('get {name, due date} of reminder 1 of list "Apple Systems"',
                      'get (name of reminder 1 of list "Apple Systems") & " " & '
                      '(year of (due date of reminder 1 of list "Apple Systems"))')
    assert run(src, host) == "Sequoia Release 2024"


def test_set_on_plural_and_type_coercion(host: AppleScriptHost, apps: dict) -> None:
    run('tell application "Reminders" to set completed of every reminder whose name contains "a" to true', host)
    assert run('tell application "Reminders" to get completed of reminders', host) == "true, true, true"
    run('tell application "Reminders" to set priority of reminder 1 to "5"', host)
    assert apps["Reminders"].record(apps["Reminders"].all("reminder")[0])["priority"] == 5
    e = err('tell application "Reminders" to set completed of reminder 1 to "yes"', host)
    assert e.message == 'Reminders got an error: Can’t make "yes" into type boolean.'
    e = err('tell application "Notes" to set creation date of note 1 to current date', host)
    assert e.number == -10006 and e.message.startswith("Notes got an error: Can’t set creation date of note id")


def test_repeat_over_objects_and_tell_object(host: AppleScriptHost) -> None:
    src = ('tell application "Notes"\nset out to {}\nrepeat with f in folders\n'
           'set end of out to (name of f) & ":" & (count of notes of f)\nend repeat\nout\nend tell')
    assert run(src, host) == "Notes:2, Work:1"
    src = 'tell application "Notes"\ntell note "Todo"\nset body to "done"\nget body\nend tell\nend tell'
    assert run(src, host) == "done"
    assert run('tell application "Notes" to tell note "Todo" to get its name', host) == "Todo"
    assert run('tell application "Notes" to get properties of note "Todo"', host).startswith(
        "class:note, id:x-coredata://notes/p6, name:Todo, body:")


def test_application_properties_and_commands(host: AppleScriptHost, apps: dict) -> None:
    assert run('tell application "Notes" to get frontmost', host) == "false"
    run('tell application "Notes" to activate', host)
    assert run('tell application "Notes" to get frontmost', host) == "true"
    assert run('application "Notes" is running', host) == "true"
    run('quit application "Notes"', host)
    assert run('application "Notes" is running', host) == "false"
    assert run('if application "Notes" is not running then "off"', host) == "off"
    assert run('name of application "Notes"', host) == "Notes"
    e = err('tell application "Notes" to frobnicate', host)
    assert e.number == -2753  # not a term of Notes: an undefined variable, as in the real compiler


def test_handler_calls_inside_tell_need_my(host: AppleScriptHost) -> None:
    src = 'on helper()\nreturn 1\nend helper\ntell application "Notes"\n{0} helper()\nend tell'
    e = err(src.format(""), host)
    assert e.message == "Notes got an error: Can’t continue helper."
    assert e.number == -1708
    assert run(src.format("my"), host) == "1"


def test_nested_tells_and_tell_to_chains(host: AppleScriptHost) -> None:
    src = 'tell application "Notes"\ntell folder "Work"\nget name of every note\nend tell\nend tell'
    assert run(src, host) == "Project Ideas"
    src = 'tell application "Notes" to tell folder "Work" to get name of note 1'
    assert run(src, host) == "Project Ideas"
    src = 'tell application "Notes"\nset n to name of note 1\ntell application "Reminders" to get name of list 1\nend tell'
    assert run(src, host) == "Reminders"


# ------------------------------------------------------------------------------------ System Events
def test_system_events_appearance(host: AppleScriptHost) -> None:
    se = host.app("System Events")
    run('tell application "System Events" to tell appearance preferences to set dark mode to true', host)
    assert se.appearance["dark mode"] is True  # type: ignore[attr-defined]
    assert run('tell application "System Events" to get dark mode of appearance preferences', host) == "true"
    run('tell application "System Events"\ntell appearance preferences\nset dark mode to not dark mode\n'
        'end tell\nend tell', host)
    assert se.appearance["dark mode"] is False  # type: ignore[attr-defined]
    e = err('tell application "System Events" to set dark mode of appearance preferences to "x"', host)
    assert e.number == -1700


def test_system_events_processes_and_keys(host: AppleScriptHost) -> None:
    assert run('tell application "System Events" to get name of every process', host) == "Finder, Notes"
    assert run('tell application "System Events" to get name of every process whose frontmost is true', host) == "Finder"
    assert run('tell application "System Events" to get visible of process "Notes"', host) == "true"
    run('tell application "System Events" to set frontmost of process "Notes" to true', host)
    assert host.activated == ["Notes"]  # type: ignore[attr-defined]
    run('tell application "System Events" to keystroke "n" using {command down, shift down}', host)
    run('tell application "System Events" to key code 36', host)
    run('tell application "System Events" to keystroke "hello"', host)
    assert host.keystrokes == [("keystroke", "n", ["command down", "shift down"]),
                               ("key code", 36, []), ("keystroke", "hello", [])]


# ------------------------------------------------------------------------------------ host services
def test_do_shell_script() -> None:
    calls: list[str] = []

    def shell(cmd: str) -> ShellResult | str:
        calls.append(cmd)
        if cmd.startswith("ls"):
            return ShellResult(1, "", "ls: x: No such file or directory\n")
        return "line1\nline2\n"

    host = AppleScriptHost(shell=shell)
    assert run('do shell script "echo hi"', host) == "line1\rline2"  # as the real command does
    # without altering line endings: stdout exactly as written, trailing newline included
    assert run('do shell script "echo hi" without altering line endings', host) == "line1\nline2\n"
    e = err('do shell script "ls x"', host)
    assert (e.message, e.number) == ("ls: x: No such file or directory", 1)
    run('set p to "/tmp/a b"\ndo shell script "cat " & quoted form of p', host)
    assert calls[-1] == "cat '/tmp/a b'"
    assert err('do shell script "x"', AppleScriptHost()).number == 127


def test_dialogs() -> None:
    seen = []

    def dialog(req):  # type: ignore[no-untyped-def]
        seen.append(req)
        return DialogReply("OK", "typed")

    host = AppleScriptHost(dialog=dialog)
    assert run('display dialog "Name?" default answer ""', host) == "button returned:OK, text returned:typed"
    assert seen[-1].buttons == ["Cancel", "OK"] and seen[-1].default_answer == ""
    assert run('button returned of (display dialog "x" buttons {"No", "OK"} default button 2)', host) == "OK"
    assert seen[-1].default_button == "OK"
    cancel_host = AppleScriptHost(dialog=lambda req: "Cancel")
    e = err('display dialog "Continue?"', cancel_host)
    assert (e.message, e.number) == ("User canceled.", -128)
    assert run('display alert "Done" message "All good"', AppleScriptHost()) == "button returned:OK"
    assert err('display dialog "x" buttons {"a", "b", "c", "d"}').number == -50


def test_notifications_clipboard_and_paths() -> None:
    host = AppleScriptHost(home="/Users/agent")
    run('display notification "Saved" with title "Notes" subtitle "ok"', host)
    assert host.notifications == [("Saved", "Notes", "ok")]
    assert run('set the clipboard to "copied"\nthe clipboard', host) == "copied"
    assert run("POSIX path of (path to desktop)", host) == "/Users/agent/Desktop/"
    assert run("path to documents folder as text", host) == "Macintosh HD:Users:agent:Documents:"
    assert run('POSIX path of (POSIX file "/Users/agent/a.txt")', host) == "/Users/agent/a.txt"
    assert run('POSIX path of "Macintosh HD:Users:agent:x.txt"', host) == "/Users/agent/x.txt"


# ------------------------------------------------------------------------------------ limits
def test_step_budget_stops_endless_loops() -> None:
    host = AppleScriptHost(limits=Limits(max_steps=5000))
    with pytest.raises(StepBudgetExceeded) as info:
        run("repeat\nend repeat", host)
    assert info.value.number == -1712
    assert "step budget" in info.value.message
    # a try block cannot swallow the budget
    with pytest.raises(StepBudgetExceeded):
        run("repeat\ntry\nset x to 1\non error\nend try\nend repeat", host)
    with pytest.raises(StepBudgetExceeded):
        run("set i to 0\nrepeat while true\nset i to i + 1\nend repeat", host)


def test_memory_and_recursion_limits() -> None:
    e = err('set s to "ab"\nrepeat 40 times\nset s to s & s\nend repeat')
    assert e.number == -108 and e.message.startswith("Out of memory: a text would hold more than 5,000,000 characters")
    assert "script_value_chars" in e.message
    host = AppleScriptHost(limits=Limits(max_list_length=1000))
    assert err("set l to {}\nrepeat 2000 times\nset end of l to 1\nend repeat", host).number == -108
    assert err("set l to {}\nrepeat 3000 times\nset l to {l}\nend repeat\nl").message == "Stack overflow."
    host = AppleScriptHost(limits=Limits(max_call_depth=50))
    assert err("on f(n)\nif n = 0 then return 0\nreturn 1 + f(n - 1)\nend f\nf(60)", host).number == -2706
    assert run("on f(n)\nif n = 0 then return 0\nreturn 1 + f(n - 1)\nend f\nf(40)", host) == "40"


@pytest.mark.parametrize("src", [
    "(" * 500 + "1" + ")" * 500,
    "{" * 500 + "1" + "}" * 500,
    "not " * 500 + "true",
    "if true then\n" * 200 + "1\n" + "end if\n" * 200,
    "x of " * 300 + "y",
    'tell application "Notes" to ' * 100 + "1",
], ids=["parens", "braces", "not", "if-blocks", "of-chain", "tell-to-chain"])
def test_deep_nesting_is_a_syntax_error_not_a_crash(src: str) -> None:
    e = err(src)
    assert (e.kind, e.message, e.number) == ("syntax", "Stack overflow.", -2706)


def test_long_flat_scripts_and_chains_run() -> None:
    assert run(" + ".join(["1"] * 3000)) == "3000"
    assert len(run(" & ".join(['"a"'] * 3000))) == 3000
    assert run("set x to 1\n" * 1500 + "x") == "1"
    e = err("-- " + "x" * 300_000)
    assert e.kind == "syntax" and "too long" in e.message


def test_source_must_be_text() -> None:
    with pytest.raises(TypeError):
        run_applescript(b"1", AppleScriptHost())  # type: ignore[arg-type]


_TOKENS = ["tell", "application", '"Notes"', "to", "get", "note", "1", "of", "every", "whose", "name", "is",
           "(", ")", "{", "}", ",", ":", "&", "+", "set", "x", "repeat", "end", "if", "then", "\n", "'s",
           "count", "notes", "folder", '"Work"', "make", "new", "with", "properties", "delete", "exists",
           "try", "on", "error", "my", "it", "its", "first", "last", "thru", "date", '"3 March 2025"', "-",
           "not", "and", "or", "as", "text", "item", "character", "return", "¬", "--", "(*", "*)", "=", "≠"]


_FUZZ_NOTES = make_notes()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_TOKENS), max_size=25))
def test_fuzz_token_soup_only_raises_applescript_errors(words: list[str]) -> None:
    host = AppleScriptHost({"Notes": _FUZZ_NOTES}, limits=Limits(max_steps=2000))
    try:
        run_applescript(" ".join(words), host)
    except AppleScriptError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_fuzz_arbitrary_text_only_raises_applescript_errors(text: str) -> None:
    try:
        run_applescript(text, AppleScriptHost(limits=Limits(max_steps=2000)))
    except AppleScriptError as e:
        assert str(e).count(":") >= 3


# ------------------------------------------------------------------------------------ model API
def test_record_store_app_is_a_scriptable_app_and_validates_declarations() -> None:
    notes = make_notes()
    assert isinstance(notes, ScriptableApp)
    assert notes.class_plural("notes") == "note"
    assert "creation date" in notes.terminology.properties
    with pytest.raises(ValueError, match="unknown class 'page'"):
        RecordStoreApp("X", [ClassSpec("doc", elements=("page",))])
    with pytest.raises(ValueError, match="app_elements names unknown class 'nope'"):
        RecordStoreApp("X", [ClassSpec("doc")], app_elements=("nope",))
    with pytest.raises(ValueError, match="has no property 'colour'"):
        notes.add("note", {"colour": "red"})


def test_record_store_extra_commands_and_constants() -> None:
    def open_location(app: RecordStoreApp, direct: object, params: dict) -> None:
        app.app_properties["last url"] = direct

    safari = RecordStoreApp("Safari", [ClassSpec("window", properties={"name": ""})], app_elements=("window",),
                            commands={"open location": open_location}, app_properties={"last url": None})
    host = AppleScriptHost({"Safari": safari})
    run('tell application "Safari" to open location "https://www.apple.com/"', host)
    assert safari.app_properties["last url"] == "https://www.apple.com/"
    assert run('tell application "Safari" to get last url', host) == "https://www.apple.com/"


def test_app_bugs_become_script_errors() -> None:
    class Broken(RecordStoreApp):
        def get_property(self, obj, prop):  # type: ignore[no-untyped-def]
            raise KeyError(prop)

    app = Broken("Broken", [ClassSpec("thing", properties={"name": ""})], app_elements=("thing",))
    app.add("thing", {"name": "a"})
    e = err('tell application "Broken" to get name of thing 1', AppleScriptHost({"Broken": app}))
    assert e.message == "Broken got an error: AppleEvent handler failed."
    assert e.number == -10000


def test_evaluate_returns_python_values() -> None:
    host = AppleScriptHost(now=NOW)
    assert evaluate("{1, 2.5, \"a\", true, missing value}", host) == [1, 2.5, "a", True, None]
    assert evaluate('{name:"x", start date:date "3 March 2025"}', host) == {"name": "x",
                                                                          "start date": datetime(2025, 3, 3)}
    assert evaluate("March", host) == Constant("March")
    assert evaluate("set x to 1\nlog x", host) == 1
    assert evaluate('display notification "x"', host) is None


def test_record_labels_keep_their_case_but_match_any_case() -> None:
    assert run("{Foo:1, url:2}") == "Foo:1, url:2"
    assert run("set r to {Foo:1}\nset FOO of r to 3\n{foo of r, r}") == "3, Foo:3"
    assert run("{a:1} & {A:2}") == "a:1"
    assert run("{a:1} = {A:1}") == "true"
    assert run("{a:1, b:2} contains {B:2}") == "true"


def test_dictionary_terms_keep_their_declared_case(host: AppleScriptHost) -> None:
    safari = RecordStoreApp("Safari", [
        ClassSpec("window", properties={"name": ""}, elements=("tab",)),
        ClassSpec("tab", properties={"name": "", "URL": ""}, parent_class="window")], app_elements=("window",))
    safari.add("window", {"name": "w"})
    host = AppleScriptHost({"Safari": safari})
    run('tell application "Safari" to make new tab at end of tabs of window 1 with properties {URL:"https://x.org"}',
        host)
    assert run('tell application "Safari" to get URL of every tab of window 1', host) == "https://x.org"
    assert run('tell application "Safari" to get url of tab 1 of front window', host) == "https://x.org"


def test_agent_style_scripts(host: AppleScriptHost) -> None:
    src = ('set dueDate to current date\nset year of dueDate to 2026\nset month of dueDate to 4\n'
           'set day of dueDate to 15\nset hours of dueDate to 9\nset minutes of dueDate to 30\n'
           'set seconds of dueDate to 0\n'
           'tell application "Reminders"\nset myList to list "Reminders"\ntell myList\n'
           'make new reminder with properties {name:"Dentist follow-up", due date:dueDate}\nend tell\n'
           'get due date of reminder "Dentist follow-up"\nend tell')
    assert run(src, host) == "Wednesday, 15 April 2026 at 09:30:00"
    src = ('tell application "Notes"\nset theNotes to notes whose name contains "o"\nset out to ""\n'
           'repeat with i from 1 to count of theNotes\nset n to item i of theNotes\n'
           'set out to out & name of n & ";"\nend repeat\nreturn out\nend tell')
    assert run(src, host) == "Groceries;Project Ideas;Todo;"
    assert run('tell application "Notes" to get name of folder "Work"\'s first note', host) == "Project Ideas"
    assert run('"Reviewed on " & (weekday of (current date) as string)', host) == "Reviewed on Monday"
    assert run('tell application "Notes" to get name of every note as text', host) == "GroceriesProject IdeasTodo"
    assert run('set x to missing value\n{x is missing value, x is not missing value}') == "true, false"
    assert run('date "Monday, March 3, 2025 at 10:00:00 PM"') == "Monday, 3 March 2025 at 22:00:00"
    e = err('tell application "Notes"\nset ns to every note\nname of ns\nend tell', host)
    assert e.message.startswith("Can’t get name of {note id")  # a stored list is not a reference


def test_copy_duplicates_lists_but_not_app_objects(host: AppleScriptHost, apps: dict) -> None:
    src = ('tell application "Notes"\ncopy every note to ns\nset name of item 1 of ns to "Renamed"\n'
           'get name of note 1\nend tell')
    assert run(src, host) == "Renamed"  # the copied list still refers to the live note
    assert run("set a to {1, {2}}\ncopy a to b\nset item 1 of item 2 of b to 9\na") == "1, 2"


def test_run_handler_receives_osascript_arguments() -> None:
    src = 'on run argv\nreturn (item 1 of argv) & "+" & (count of argv)\nend run'
    assert run_applescript(src, AppleScriptHost(), argv=["a", "b"]) == "a+2"
    assert evaluate("on run argv\nargv\nend run", AppleScriptHost(), argv=["x"]) == ["x"]


def test_system_events_tell_process_and_special_keys(host: AppleScriptHost) -> None:
    run('tell application "System Events" to tell process "Notes" to set frontmost to true', host)
    assert host.activated == ["Notes"]  # type: ignore[attr-defined]
    run('tell application "System Events"\nkeystroke return\nkey code 53 using command down\nend tell', host)
    assert host.keystrokes[-2:] == [("keystroke", "\r", []), ("key code", 53, ["command down"])]
    assert run('tell application "System Events" to get name of every process whose background only is false',
               host) == "Finder, Notes"


def test_posix_files_exist_through_the_host() -> None:
    files = {"/Users/user/Desktop/a.txt"}
    host = AppleScriptHost(path_exists=files.__contains__)
    assert run('exists POSIX file "/Users/user/Desktop/a.txt"', host) == "true"
    assert run('exists POSIX file "/Users/user/Desktop/b.txt"', host) == "false"
    assert run('POSIX file "/Users/user/Desktop/a.txt" as alias', host) == "alias Macintosh HD:Users:user:Desktop:a.txt"
    e = err('POSIX file "/Users/user/nope.txt" as alias', host)
    assert (e.message, e.number) == ("File Macintosh HD:Users:user:nope.txt wasn’t found.", -43)
    assert err('exists POSIX file "/x"').number == -1728  # no file system given to this host


@pytest.mark.parametrize("src,name", [("round", "round"), ("ASCII character", "ascii character"),
                                      ("exists", "exists")])
def test_commands_missing_their_parameter(src: str, name: str) -> None:
    e = err(src)
    assert (e.message, e.number) == (f"Some parameter is missing for {name}.", -1701)
    assert err("offset of").message == "Expected expression but found end of script."


@pytest.mark.parametrize("src", ["(-8) ^ (1 / 3)", "1.0E+308 * 10", "1.0E+308 + 1.0E+308"])
def test_out_of_range_arithmetic(src: str) -> None:
    assert str(err(src)) == f"0:{len(src)}: execution error: Result is out of range. (-2702)"


def test_stack_overflow_is_catchable_and_positioned_even_from_a_deep_python_stack() -> None:
    src = "on f(n)\nreturn 1 + f(n + 1)\nend f\ntry\nf(1)\non error m number k\nreturn m & k\nend try"
    assert run(src) == "Stack overflow.-2706"

    def deep(k: int) -> str:
        if k:
            return deep(k - 1)
        return str(err("on f(n)\nreturn 1 + f(n + 1)\nend f\nf(1)"))

    assert deep(700) == "19:27: execution error: Stack overflow. (-2706)"


def test_make_at_end_of_elements_inside_tell_object(host: AppleScriptHost) -> None:
    src = ('tell application "Calendar"\ntell calendar "Work"\nmake new event at end of events with properties '
           '{summary:"Lab Meeting", start date:date "10 March 2025 10:00"}\nend tell\n'
           'get summary of events of calendar "Work"\nend tell')
    assert run(src, host) == "Lab Meeting"
    src = ('tell application "Reminders"\nset due date of reminder "Pay rent" to missing value\n'
           'get name of reminders whose due date is missing value\nend tell')
    assert run(src, host) == "Pay rent"


def test_text_from_code_points() -> None:
    assert run("character id 65") == "A"
    assert run("string id {72, 105}") == "Hi"
    assert run('id of "Hi"') == "72, 105"
    assert err("character id -1").number == -1700


def test_commands_with_an_application_direct_parameter_go_to_that_app(host: AppleScriptHost, apps: dict) -> None:
    run('tell application "Reminders" to activate application "Notes"', host)
    assert apps["Notes"].app_properties["frontmost"] is True
    assert apps["Reminders"].app_properties["frontmost"] is False
    run('quit app "Notes"', host)
    assert apps["Notes"].app_properties["running"] is False
    assert run("activate", host) == ""
    assert err("open", host).message == "«script» doesn’t understand the “open” message."


def test_record_store_extra_properties_are_dictionary_terms() -> None:
    class Notes(RecordStoreApp):
        def get_property(self, obj, prop):  # type: ignore[no-untyped-def]
            if obj is None and prop == "default account":
                return self.all("account")[0]
            return super().get_property(obj, prop)

    app = Notes("Notes", [ClassSpec("account", properties={"name": ""})], app_elements=("account",),
                extra_properties=("default account",))
    app.add("account", {"name": "iCloud"})
    assert run('tell application "Notes" to get name of default account', AppleScriptHost({"Notes": app})) == "iCloud"


def test_host_failures_become_script_errors() -> None:
    def shell(cmd: str) -> str:
        raise TimeoutError("command timed out after 10 s")

    e = err('do shell script "sleep 100"', AppleScriptHost(shell=shell))
    assert (e.message, e.number) == ("command timed out after 10 s", -2700)
    assert run('try\ndo shell script "sleep 100"\non error m\nreturn m\nend try', AppleScriptHost(shell=shell)) == \
        "command timed out after 10 s"


def test_evaluate_dereferences_loop_variables_and_plurals(host: AppleScriptHost) -> None:
    assert evaluate("repeat with x in {7, 8}\nreturn x\nend repeat", host) == 7
    names = evaluate('tell application "Notes" to get name of every note', host)
    assert type(names) is list and names == ["Groceries", "Project Ideas", "Todo"]


# ------------------------------------------------------------------------------------ parse trees
def _expr(src: str, host: AppleScriptHost | None = None):  # type: ignore[no-untyped-def]
    from mmenvs.macagent.applescript import compile_script
    script = compile_script(src, host or AppleScriptHost())
    return script.body[-1].expr  # type: ignore[attr-defined]


def compile_script_body(src: str, host: AppleScriptHost):  # type: ignore[no-untyped-def]
    from mmenvs.macagent.applescript import compile_script
    return compile_script(src, host).body[0]


def test_parse_precedence_and_reference_shapes(host: AppleScriptHost) -> None:
    from mmenvs.macagent.applescript import nodes as N
    e = _expr('"a" & 1 as text')             # `as` binds looser than `&`
    assert isinstance(e, N.Coerce) and isinstance(e.operand, N.Chain) and e.operand.rest[0][0] == "&"
    e = _expr("not 1 = 2")                    # `not` binds looser than `=`
    assert isinstance(e, N.Unary) and e.op == "not" and isinstance(e.operand, N.Chain)
    e = _expr("1 + 2 * 3 ^ 2")
    assert isinstance(e, N.Chain) and e.rest[0][0] == "+" and e.rest[0][1].rest[0][0] == "*"
    src = 'tell application "Notes" to name of note 1 of folder "Work"'
    tell = compile_script_body(src, host)
    prop = tell.body[0].expr
    assert isinstance(prop, N.Prop) and prop.name == "name"
    assert isinstance(prop.container, N.Elements) and prop.container.cls == "note"
    assert isinstance(prop.container.container, N.Elements) and prop.container.container.cls == "folder"
    # `whose` attaches to the plural reference, not to its container
    tell = compile_script_body('tell application "Notes" to name of every note of folder "Work" whose name is "a"', host)
    notes_ref = tell.body[0].expr.container
    assert notes_ref.cls == "note" and notes_ref.filter is not None and notes_ref.container.filter is None
    # multi-word dictionary terms
    tell = compile_script_body('tell application "Reminders" to due date of reminder 1', host)
    assert tell.body[0].expr.name == "due date"
    # possessive chains read right to left
    e = _expr("s's length's class")
    assert isinstance(e, N.Prop) and e.name == "class" and e.container.name == "length"



def test_parse_handlers_and_properties_are_collected() -> None:
    from mmenvs.macagent.applescript import compile_script
    script = compile_script("property a : 1\non f(x, y)\nreturn x\nend f\nto g()\nend g\nf(1, 2)", AppleScriptHost())
    assert set(script.handlers) == {"f", "g"} and script.handlers["f"].params == ["x", "y"]
    assert [p.name for p in script.properties] == ["a"]
    assert len(script.body) == 1


def test_system_events_desktop_picture_and_process_visibility() -> None:
    hidden: list[str] = []
    wallpaper: dict = {"picture": "/System/Library/Desktop Pictures/A.heic", "display name": "Built-in"}
    host = AppleScriptHost()
    host._apps["System Events"] = SystemEventsApp(  # type: ignore[index]
        host, processes=lambda: [{"name": "Notes", "frontmost": False, "visible": True}], hide=hidden.append,
        desktop=wallpaper)
    run('tell application "System Events" to set picture of every desktop to "/Users/user/Pictures/b.jpg"', host)
    assert wallpaper["picture"] == "/Users/user/Pictures/b.jpg"
    run('tell application "System Events" to tell current desktop to set picture to POSIX file "/tmp/c.png"', host)
    assert run('tell application "System Events" to get picture of desktop 1', host) == "/tmp/c.png"
    run('tell application "System Events" to set visible of process "Notes" to false', host)
    assert hidden == ["Notes"]


def test_app_commands_keep_their_dictionary_spelling() -> None:
    seen: list[tuple] = []
    safari = RecordStoreApp("Safari", [ClassSpec("document", properties={"name": ""})], app_elements=("document",),
                            commands={"do JavaScript": lambda app, d, p: seen.append((d, p)) or "42"},
                            command_params={"do JavaScript": ("in",)})
    safari.add("document", {"name": "d"})
    out = run('tell application "Safari" to do JavaScript "1 + 1" in document 1', AppleScriptHost({"Safari": safari}))
    assert out == "42"
    assert seen == [("1 + 1", {"in": ObjectRef("document", "1")})]


def test_record_store_move_and_duplicate(host: AppleScriptHost, apps: dict) -> None:
    out = run('tell application "Notes" to move note "Todo" to folder "Work"', host)
    assert out == 'note id "x-coredata://notes/p6" of application "Notes"'
    assert run('tell application "Notes" to get name of notes of folder "Work"', host) == "Project Ideas, Todo"
    run('tell application "Notes" to duplicate note "Groceries" to folder "Work"', host)
    assert run('tell application "Notes" to get name of notes of folder "Work"', host) == "Project Ideas, Todo, Groceries"
    assert run('tell application "Notes" to count (notes whose name is "Groceries")', host) == "2"
    run('tell application "Notes" to move (every note of folder "Work" whose name starts with "P") to folder "Notes"',
        host)
    assert run('tell application "Notes" to get name of notes of folder "Notes"', host) == "Groceries, Project Ideas"
    e = err('tell application "Notes" to move note "Todo" to note "Groceries"', host)
    assert e.number == -10024
    e = err('tell application "Notes" to move note "Todo"', host)
    assert e.message.startswith("Notes got an error: Can’t move note")


def test_a_list_of_properties_of_one_object(host: AppleScriptHost) -> None:
    # AppleScript distributes ``of`` over a list of property names: {a, b} of x = {a of x, b of x}
    assert run('tell application "Notes" to get {name, body} of note "Groceries"', host) == "Groceries, milk, eggs"
    assert evaluate('tell application "Notes" to {name, body} of note "Todo"', host) == ["Todo", "call mom"]
    assert run('get {hours, minutes} of (current date)') == "10, 0"
    assert run('set {y, m} to {year, month} of date "3 March 2025"\n{y, m as integer}') == "2025, 3"
    assert run('{b, a} of {a:1, b:2, c:3}') == "2, 1"
    # each item becomes a list when the object is plural
    assert evaluate('tell application "Notes" to {name, body} of every note of folder "Notes"', host) == [
        ["Groceries", "Todo"], ["milk, eggs", "call mom"]]
    # a plain list is still a list, and values are not property names
    assert run('item 2 of {1, 2}') == "2"
    assert err('{1, 2} of x').kind == "syntax"
    assert "Can’t get nope of" in err('tell application "Notes" to get {name, nope} of note 1', host).message


def test_contents_of_an_object_asks_the_app_when_its_dictionary_has_contents() -> None:
    term = RecordStoreApp("Terminal", [ClassSpec("window", properties={"name": "", "contents": ""})],
                          app_elements=("window",))
    term.add("window", {"name": "zsh", "contents": "user@Mac ~ % ls\n"})
    notes = make_notes()
    host = AppleScriptHost({"Terminal": term, "Notes": notes})
    assert run('tell application "Terminal" to get contents of window 1', host) == "user@Mac ~ % ls\n"
    assert run('tell application "Terminal" to tell window 1 to get contents', host) == "user@Mac ~ % ls\n"
    # the loop idiom ``set w to contents of w`` still gives the item
    assert run('tell application "Terminal"\nrepeat with w in windows\nset w to contents of w\nend repeat\n'
               'get name of w\nend tell', host) == "zsh"
    # without a ``contents`` property, the contents of a reference is the object itself
    assert run('tell application "Notes" to get name of (contents of note 1)', host) == "Groceries"
    assert run('set l to {5, 6}\nrepeat with x in l\nset y to contents of x\nend repeat\ny', host) == "6"


def test_app_objects_are_coerced_by_their_app() -> None:
    class Files(RecordStoreApp):
        def coerce(self, obj: ObjectRef, type_name: str):  # type: ignore[no-untyped-def]
            if type_name == "alias":
                return FileRef("/Users/user/" + self.get_property(obj, "name"), "alias")
            return NotImplemented

    app = Files("Finder", [ClassSpec("file", properties={"name": ""})], app_elements=("file",))
    app.add("file", {"name": "a.txt"})
    host = AppleScriptHost({"Finder": app}, path_exists=lambda p: p == "/Users/user/a.txt")
    assert run('tell application "Finder" to get file 1 as alias', host) == "alias Macintosh HD:Users:user:a.txt"
    assert run('tell application "Finder" to POSIX path of (file 1 as alias)', host) == "/Users/user/a.txt"
    e = err('tell application "Finder" to get file 1 as date', host)  # NotImplemented: AppleScript's own rules
    assert e.number == -1700
    assert evaluate('tell application "Finder" to get every file as alias list', host) == [FileRef("/Users/user/a.txt", "alias")]
    assert run('POSIX file "/Users/user/a.txt" as alias list', host) == "alias Macintosh HD:Users:user:a.txt"
    assert err('POSIX file "/Users/user/b.txt" as alias list', host).number == -43

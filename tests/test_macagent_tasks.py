"""MacAgent task format: metrics, getters of every type, validation errors, variant expansion, setup."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import datetime

import numpy as np
import pytest

from mmenvs.macagent.checkpoints import (
    GETTERS, METRICS, Checkpoint, GetterContext, GetterError, evaluate_checkpoint, parse_datetime, run_getter,
)
from mmenvs.macagent.tasks import (
    TaskFormatError, TaskSetupError, load_suite, run_setup, substitute, task_from_data, validate_seed,
)
from test_macagent_env_fake import FakeBackend


# ---------------------------------------------------------------------------------------------- metrics
@pytest.mark.parametrize("name, got, expected, options, result", [
    ("equals", "  Hello   world ", "Hello world", {}, True),
    ("equals", "hello", "Hello", {}, False),
    ("equals", "hello", "Hello", {"ignore_case": True}, True),
    ("equals", "a  b", "a b", {"collapse_space": False}, False),
    ("equals", "42\n", 42, {}, True),
    ("equals", "41", 42, {}, False),
    ("equals", "true", True, {}, True),
    ("equals", "no", True, {}, False),
    ("equals", None, "x", {}, False),
    ("equals", [1, 2], [1, 2], {}, True),
    ("not_equals", "a", "b", {}, True),
    ("not_equals", "a", "a", {}, False),
    ("contains", "Reviewed on Tuesday.", "on Tuesday", {}, True),
    ("contains", "Reviewed", "tuesday", {}, False),
    ("contains", ["Milk", "Eggs"], "eggs", {"ignore_case": True}, True),
    ("contains", ["Milk", "Eggs"], ["Milk", "Bread"], {}, False),
    ("contains", None, "x", {}, False),
    ("not_contains", "all good", "error", {}, True),
    ("not_contains", ["a", "b"], ["c", "b"], {}, False),
    ("not_contains", None, "x", {}, True),
    ("regex", "otp_code: 123456", r"^otp_code: \d{6}$", {}, True),
    ("regex", "otp_code: 12345", r"^otp_code: \d{6}$", {}, False),
    ("regex", "ABC", "abc", {"ignore_case": True, "full_match": True}, True),
    ("regex", "xabc", "abc", {"full_match": True}, False),
    ("number_close", "Total: 12.51 MB", 12.5, {"abs_tol": 0.02}, True),
    ("number_close", "12.6", 12.5, {"abs_tol": 0.02}, False),
    ("number_close", 100.0, 104, {"rel_tol": 0.05}, True),
    ("number_close", "no digits", 1, {}, False),
    ("number_in_range", "7 files", [5, 9], {}, True),
    ("number_in_range", 10, [5, 9], {}, False),
    ("json_equal", '{"b": [1, 2], "a": 1}', {"a": 1, "b": [1, 2]}, {}, True),
    ("json_equal", '{"b": [2, 1], "a": 1}', {"a": 1, "b": [1, 2]}, {}, False),
    ("json_equal", '{"b": [2, 1], "a": 1}', {"a": 1, "b": [1, 2]}, {"ignore_list_order": True}, True),
    ("json_equal", "not json", {}, {}, False),
    ("set_equal", "b\na\n", ["a", "b"], {}, True),
    ("set_equal", ["a"], ["a", "b"], {}, False),
    ("lines_equal", "one\n\n two \n", ["one", "two"], {}, True),
    ("lines_equal", "two\none", ["one", "two"], {}, False),
    ("length_equals", ["x", "y", "z"], 3, {}, True),
    ("length_equals", "a\nb", 3, {}, False),
    ("one_of", "Dark", ["Light", "Dark"], {}, True),
    ("one_of", "Auto", ["Light", "Dark"], {}, False),
    ("truthy", "yes", None, {}, True),
    ("truthy", [], None, {}, False),
    ("falsy", "0", None, {}, True),
    ("falsy", "on", None, {}, False),
    ("file_exists", True, None, {}, True),
    ("file_exists", {"a": True, "b": False}, None, {}, False),
    ("not_exists", {"a": False, "b": False}, None, {}, True),
    ("not_exists", True, None, {}, False),
    ("unchanged", "abc", "abc", {}, True),
    ("unchanged", "abd", "abc", {}, False),
    ("datetime_equals", 'date "Wednesday, April 15, 2026 at 9:30:00 AM"', "2026-04-15 09:30", {}, True),
    ("datetime_equals", "2026-04-15T09:40:00", "2026-04-15 09:30", {"tolerance_minutes": 5}, False),
    ("datetime_equals", "2026-04-15T18:00", "2026-04-15", {"date_only": True}, True),
])
def test_every_metric(name, got, expected, options, result):
    assert METRICS[name](got, expected, **options) is result


def test_metric_table_is_covered_by_the_cases():
    cases = test_every_metric.pytestmark[0].args[1]
    assert {case[0] for case in cases} == set(METRICS)
    for name in METRICS:  # each metric is seen both passing and failing
        assert {case[4] for case in cases if case[0] == name} == {True, False}, name


def test_parse_datetime_forms():
    assert parse_datetime("2026-03-10 09:05") == datetime(2026, 3, 10, 9, 5)
    assert parse_datetime("Tuesday, March 10, 2026 at 9:05:00 PM") == datetime(2026, 3, 10, 21, 5)
    assert parse_datetime('date "Tuesday, 10 March 2026 at 09:30:00"') == datetime(2026, 3, 10, 9, 30)
    assert parse_datetime("someday") is None


# ---------------------------------------------------------------------------------------------- getters
@pytest.fixture()
def ctx(tmp_path):
    backend = FakeBackend()
    backend.reset(now=datetime(2026, 3, 10, 9, 0), home=tmp_path / "home")
    return GetterContext(backend)


def test_shell_getter_outputs(ctx):
    ctx.shell("printf 'a\\nb\\n' > ~/Desktop/l.txt; echo '{\"k\": [1]}' > ~/Desktop/j.json")
    assert run_getter({"type": "shell", "command": "cat ~/Desktop/l.txt"}, ctx) == "a\nb"
    assert run_getter({"type": "shell", "command": "cat ~/Desktop/l.txt", "output": "lines"}, ctx) == ["a", "b"]
    assert run_getter({"type": "shell", "command": "cat ~/Desktop/j.json", "output": "json"}, ctx) == {"k": [1]}
    assert run_getter({"type": "shell", "command": "wc -l < ~/Desktop/l.txt", "output": "int"}, ctx) == 2
    assert run_getter({"type": "shell", "command": "test -e ~/nope", "output": "exit_code"}, ctx) == 1
    with pytest.raises(GetterError, match="exited with code 1"):
        run_getter({"type": "shell", "command": "cat ~/nope"}, ctx)


def test_applescript_getter_outputs(ctx):
    ctx.applescript('tell application "Notes" to make new note with properties {name:"A", body:"x"}')
    ctx.applescript('tell application "Notes" to make new note with properties {name:"B, C", body:"y"}')
    assert run_getter({"type": "applescript", "script": 'tell application "Notes" to count notes', "output": "int"}, ctx) == 2
    assert run_getter({"type": "applescript", "script": 'tell application "Notes" to get name of every note'}, ctx) == "A, B, C"
    spec = {"type": "python", "function": "applescript_records", "args": {"app": "Notes", "element": "note", "properties": ["name", "body"]}}
    # osascript prints lists as "a, b": a name holding ", " is ambiguous, and the getter says so instead of guessing
    with pytest.raises(GetterError, match="different counts"):
        run_getter(spec, ctx)
    ctx.backend.notes[1]["name"] = "B"
    assert run_getter(spec, ctx) == [{"name": "A", "body": "x"}, {"name": "B", "body": "y"}]


def test_python_getters(ctx):
    ctx.shell("mkdir -p ~/Documents/sub && printf 'x,y\\n1,2\\n' > ~/Documents/t.csv && printf ' hi \\n\\nthere\\n' > ~/Documents/'a b.txt'"
              " && echo '[1, 2]' > ~/Documents/v.json && touch ~/Documents/c.txt")
    py = lambda fn, **args: run_getter({"type": "python", "function": fn, "args": args}, ctx)  # noqa: E731
    assert py("path_exists", path="~/Documents/a b.txt") is True
    assert py("path_exists", path=["~/Documents/t.csv", "~/Nope"]) == {"~/Documents/t.csv": True, "~/Nope": False}
    assert py("file_text", path="~/Documents/a b.txt") == "hi \n\nthere"
    assert py("file_text", path="~/missing.txt") is None
    assert py("file_lines", path="~/Documents/a b.txt") == ["hi", "there"]
    assert py("file_json", path="~/Documents/v.json") == [1, 2]
    assert py("file_csv", path="~/Documents/t.csv") == [["x", "y"], ["1", "2"]]
    assert py("file_digest", path="~/Documents/t.csv") == hashlib.sha256(b"x,y\n1,2\n").hexdigest()
    assert py("files_equal", path="~/Documents/t.csv", other="~/Documents/t.csv") is True
    assert py("files_equal", path="~/Documents/t.csv", other="~/Documents/v.json") is False
    assert py("files_equal", path="~/Documents/t.csv", other="~/Documents/none") is False
    assert py("dir_listing", path="~/Documents", pattern="*.txt") == ["a b.txt", "c.txt"]
    assert py("dir_listing", path="~/Documents", kind="dir") == ["sub"]
    assert py("dir_listing", path="~/Nowhere") is None
    assert py("count_files", path="~/Documents") == 4
    with pytest.raises(GetterError, match="not hold valid JSON"):
        py("file_json", path="~/Documents/t.csv")


def test_large_files_are_read_in_chunks_past_the_output_cap(ctx):
    ctx.shell("head -c 70000 /dev/urandom > ~/Desktop/big.bin")
    data = (ctx.backend.home / "Desktop/big.bin").read_bytes()
    assert len(ctx.shell("base64 < ~/Desktop/big.bin").stdout) == 20_000  # the cap bites
    digest = run_getter({"type": "python", "function": "file_digest", "args": {"path": "~/Desktop/big.bin"}}, ctx)
    assert digest == hashlib.sha256(data).hexdigest()


def test_image_size_getter(ctx):
    from mmenvs.macagent.tasks import file_bytes
    import base64
    data = file_bytes({"generator": {"name": "png", "args": {"width": 31, "height": 17}}})
    ctx.shell(f"printf %s {base64.b64encode(data).decode()} | base64 -d > ~/Desktop/p.png")
    assert run_getter({"type": "python", "function": "image_size", "args": {"path": "~/Desktop/p.png"}}, ctx) == [31, 17]


def test_safari_bookmarks_getter_reads_safaris_plist(ctx):
    import base64
    import plistlib
    leaf = lambda title, url: {"WebBookmarkType": "WebBookmarkTypeLeaf", "URLString": url, "URIDictionary": {"title": title}}  # noqa: E731
    tree = {"WebBookmarkType": "WebBookmarkTypeList", "Title": "", "Children": [
        {"WebBookmarkType": "WebBookmarkTypeList", "Title": "BookmarksBar", "Children": [
            leaf("Apple", "https://www.apple.com/"),
            {"WebBookmarkType": "WebBookmarkTypeList", "Title": "agent task", "Children": [leaf("Docs", "https://docs.example/")]}]},
        {"WebBookmarkType": "WebBookmarkTypeList", "Title": "BookmarksMenu", "Children": []}]}
    spec = {"type": "python", "function": "safari_bookmarks", "args": {}}
    assert run_getter(spec, ctx) == []
    payload = base64.b64encode(plistlib.dumps(tree, fmt=plistlib.FMT_BINARY)).decode()
    ctx.shell(f"mkdir -p ~/Library/Safari && printf %s {payload} | base64 -d > ~/Library/Safari/Bookmarks.plist")
    assert run_getter(spec, ctx) == [
        {"title": "Apple", "url": "https://www.apple.com/", "folder": "BookmarksBar"},
        {"title": "Docs", "url": "https://docs.example/", "folder": "BookmarksBar/agent task"},
    ]


def test_failing_getter_fails_the_checkpoint_with_the_reason(ctx):
    cp = Checkpoint("note", "app_state", {"type": "applescript", "script": "bogus"}, {"type": "equals", "expected": "x"})
    result = evaluate_checkpoint(cp, ctx)
    assert not result.passed and "syntax error" in result.error
    assert result.as_dict()["error"] == result.error


# ---------------------------------------------------------------------------------------------- format
SEED = {
    "id": "notes-make",
    "instruction": ["Make a note titled \"{{title}}\" in Notes.", "Create a Notes note named {{title}}.", "New note: {{title}}, please."],
    "category": "Productivity",
    "apps": ["Notes"],
    "reference_time": "2026-03-10T09:00:00",
    "params": {
        "title": ["Groceries", "Trip Plan", "Reading List", "Budget"],
        "n": {"range": [2, 9]},
        "who": [{"name": "Ada", "mail": "ada@example.org"}, {"name": "Bo", "mail": "bo@example.org"}],
        "file": {"template": "~/Desktop/{{title|slug}}.txt"},
    },
    "setup": [
        {"type": "file", "path": "{{file}}", "content": "for {{who.name}} <{{who.mail}}>, {{n}} items"},
        {"type": "shell", "command": "echo {{title|shell}} > ~/Documents/title.txt"},
    ],
    "checkpoints": [
        {"name": "note exists", "tag": "app_state",
         "getter": {"type": "applescript", "script": "tell application \"Notes\" to get name of every note", "output": "list"},
         "metric": {"type": "contains", "expected": "{{title}}"}},
        {"name": "count", "tag": "content_match", "getter": {"type": "shell", "command": "echo {{n}}", "output": "int"},
         "metric": {"type": "equals", "expected": "{{n}}"}},
        {"name": "file kept", "tag": "file_ops", "metric": {"type": "file_exists", "path": "{{file}}"}},
    ],
    "reference_solution": ["```python\nimport pyautogui\npyautogui.write({{title|json}})\npyautogui.press('enter')\n```", "DONE"],
}


def bad(mutate):
    data = copy.deepcopy(SEED)
    mutate(data)
    return data


def test_seed_validates_and_expands_into_four_variants():
    seed = validate_seed(copy.deepcopy(SEED), "seed.json")
    variants = [seed.variant(k) for k in range(4)]
    assert [v.id for v in variants] == ["notes-make-v0", "notes-make-v1", "notes-make-v2", "notes-make-v3"]
    assert [v.params["title"] for v in variants] == ["Groceries", "Trip Plan", "Reading List", "Budget"]
    # template k mod 3: variant 3 reuses the first template with a different title
    assert variants[0].instruction == 'Make a note titled "Groceries" in Notes.'
    assert variants[1].instruction == "Create a Notes note named Trip Plan."
    assert variants[3].instruction == 'Make a note titled "Budget" in Notes.'
    v1 = variants[1]
    assert v1.setup[0]["path"] == "~/Desktop/trip_plan.txt"
    assert v1.setup[0]["content"] == f"for Bo <bo@example.org>, {v1.params['n']} items"
    assert v1.setup[1]["command"] == "echo 'Trip Plan' > ~/Documents/title.txt"
    assert v1.checkpoints[0].metric["expected"] == "Trip Plan"
    assert v1.checkpoints[1].metric["expected"] == v1.params["n"] and isinstance(v1.params["n"], int)
    assert 2 <= v1.params["n"] <= 9
    assert v1.checkpoints[2].getter == {"type": "python", "function": "path_exists", "args": {"path": "~/Desktop/trip_plan.txt"}}
    assert '"Trip Plan"' in v1.reference_solution[0]
    assert v1.interaction == "gui" and v1.tags == ["app_state", "content_match", "file_ops"]
    # expansion is a pure function of the seed
    again = validate_seed(copy.deepcopy(SEED), "seed.json").variant(1)
    assert again == v1


def test_train_sampling_is_seeded_and_varies():
    seed = validate_seed(copy.deepcopy(SEED), "seed.json")
    a = [seed.sample(np.random.default_rng(7)) for _ in range(2)]
    assert a[0] == a[1] and a[0].variant == "train" and a[0].id.startswith("notes-make-t")
    many = {seed.sample(np.random.default_rng(s)).id for s in range(30)}
    assert len(many) > 10


def test_substitute_filters_and_types():
    values = {"t": "It's 5", "n": 3, "rec": {"a": "x"}}
    assert substitute("{{n}}", values) == 3
    assert substitute("{{xs|join|applescript}}", {"xs": ["a", "b"]}) == '"a\nb"'
    assert substitute("{{xs|applescript}}", {"xs": ['a"b', "c"]}) == '{"a\\"b", "c"}'
    assert substitute("n={{n|add:2}}", values) == "n=5"
    assert substitute("{{t|applescript}}", values) == '"It\'s 5"'
    assert substitute("{{t|shell}}", values) == "'It'\"'\"'s 5'"
    assert substitute(["{{rec.a|upper}}", {"k": "{{t|slug}}"}], values) == ["X", {"k": "it_s_5"}]
    assert substitute({"~/{{rec.a}}.txt": True, "{{n}}": "{{n}}"}, values) == {"~/x.txt": True, "3": 3}
    assert substitute('{name:"keep"} {{ n }}', values) == '{name:"keep"} 3'


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["apps"].append("Photoshop"), r"seed.json: field 'apps\[1\]': unknown app 'Photoshop'"),
    (lambda d: d["checkpoints"][1]["getter"].update(type="sql"), r"field 'checkpoints\[1\].getter.type': unknown getter type 'sql'"),
    (lambda d: d["checkpoints"][0].update(getter={"type": "python", "function": "read_mind"}),
     r"field 'checkpoints\[0\].getter.function': unknown getter 'read_mind'"),
    (lambda d: d["checkpoints"][0].update(getter={"type": "python", "function": "file_text", "args": {"pth": "x"}}),
     r"getter 'file_text' takes no argument\(s\) \['pth'\]"),
    (lambda d: d["checkpoints"][0]["metric"].update(type="fuzzy"), r"field 'checkpoints\[0\].metric.type': unknown metric 'fuzzy'"),
    (lambda d: d["checkpoints"][0]["metric"].update(tolerance=2), r"metric 'contains' takes no option\(s\) \['tolerance'\]"),
    (lambda d: d["checkpoints"][0]["metric"].pop("expected"), r"metric 'contains' needs an 'expected' value"),
    (lambda d: d["checkpoints"][0].update(tag="vibes"), r"field 'checkpoints\[0\].tag': unknown tag 'vibes'"),
    (lambda d: d["checkpoints"][0]["metric"].update(type="regex", expected="(unclosed"), "invalid regular expression"),
    (lambda d: d.update(category="Games"), r"field 'category': unknown category 'Games'"),
    (lambda d: d["setup"].append({"type": "reboot"}), r"field 'setup\[2\].type': unknown setup step type 'reboot'"),
    (lambda d: d["setup"].append({"type": "open_app", "app": "Xcode"}), r"field 'setup\[2\].app': unknown app 'Xcode'"),
    (lambda d: d["setup"].append({"type": "file", "path": "~/x", "content": "a", "generator": {"name": "json"}}), "exactly one of"),
    (lambda d: d["setup"].append({"type": "file", "path": "~/x", "generator": {"name": "video"}}), "unknown generator 'video'"),
    (lambda d: d.update(instruction="Hello {{nobody}}"), r"placeholder \{\{nobody\}\} names no parameter"),
    (lambda d: d.update(instruction="Hello {{title|reverse}}"), "unknown filter 'reverse'"),
    (lambda d: d.pop("reference_time"), r"field 'reference_time': is required"),
    (lambda d: d.update(reference_time="tomorrow"), "must be an ISO date-time"),
    (lambda d: d.update(id="Bad Id"), r"field 'id': must match"),
    (lambda d: d.update(colour="red"), r"unknown keys \['colour'\]"),
    (lambda d: d["reference_solution"].insert(0, "```python\npyautogui.click(\n```"), r"reference_solution\[0\]'.*syntax error"),
    (lambda d: d["reference_solution"].insert(0, "make it so"), r"reference_solution\[0\]': not a valid action"),
    (lambda d: d.update(interaction="cli"), "declared 'cli' but the reference solution is 'gui'"),
    (lambda d: d["checkpoints"].append(copy.deepcopy(d["checkpoints"][0])), "checkpoint names must be unique"),
    (lambda d: d["params"].update(n={"range": [5, 1]}), r"field 'params.n.range'"),
    (lambda d: d["params"].update(title=[]), r"field 'params.title': a list of values must not be empty"),
    (lambda d: d.update(web_pages={"ftp://x": "page"}), r'field .web_pages\["ftp://x"\].: keys must be http\(s\) URLs'),
])
def test_validation_errors_name_file_and_field(mutate, message):
    with pytest.raises(TaskFormatError, match=message) as info:
        validate_seed(bad(mutate), "seed.json")
    assert str(info.value).startswith("seed.json")


def test_suite_loading_rejects_duplicate_ids_and_names_the_file(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(SEED))
    (tmp_path / "b.json").write_text(json.dumps({"tasks": [SEED]}))
    with pytest.raises(TaskFormatError, match=r"b.json.*'notes-make' is already used by .*a.json"):
        load_suite(tmp_path)
    (tmp_path / "b.json").write_text("{broken")
    with pytest.raises(ValueError, match=r"b.json: invalid JSON"):
        load_suite(tmp_path)


def test_inline_task_without_params_keeps_its_id():
    data = bad(lambda d: (d.pop("params"), d.update(instruction="Make a note.", setup=[], checkpoints=d["checkpoints"][:1])))
    data["checkpoints"][0]["metric"]["expected"] = "Groceries"
    data["reference_solution"] = ["```bash\necho hi\n```"]
    task = task_from_data(data)
    assert task.id == "notes-make" and task.interaction == "cli" and task.variant == "inline"


# ---------------------------------------------------------------------------------------------- setup
def test_setup_writes_files_runs_steps_and_reports_failures(ctx):
    seed = validate_seed(bad(lambda d: d["setup"].extend([
        {"type": "file", "path": "~/Documents/t.csv", "generator": {"name": "csv", "args": {"header": ["a", "b"], "rows": [[1, "x, y"]]}}},
        {"type": "file", "path": "~/Documents/deep/er/bin.dat", "generator": {"name": "bytes", "args": {"size": 300, "seed": 3}}},
        {"type": "file", "path": "~/Documents/app.log", "generator": {"name": "shuffled_lines", "args": {"counts": {"ERROR x": "{{n}}", "INFO y": 4}, "seed": 1}}},
        {"type": "applescript", "script": 'tell application "Notes" to make new note with properties {name:"Pre", body:"b"}'},
        {"type": "open_app", "app": "Notes"},
    ])), "seed.json")
    task = seed.variant(2)
    run_setup(task, ctx)
    home = ctx.backend.home
    assert (home / "Desktop/reading_list.txt").read_text() == task.setup[0]["content"]
    assert (home / "Documents/title.txt").read_text() == "Reading List\n"
    assert (home / "Documents/t.csv").read_text() == 'a,b\n1,"x, y"\n'
    assert (home / "Documents/deep/er/bin.dat").read_bytes() == np.random.default_rng(3).integers(0, 256, 300, dtype=np.uint8).tobytes()
    log = (home / "Documents/app.log").read_text().splitlines()
    assert sorted(log) == ["ERROR x"] * task.params["n"] + ["INFO y"] * 4 and log != sorted(log)
    assert ctx.backend.notes == [{"name": "Pre", "body": "b"}] and ctx.backend.front == "Notes"
    failing = validate_seed(bad(lambda d: d["setup"].append({"type": "shell", "command": "exit 3"})), "seed.json").variant(0)
    with pytest.raises(TaskSetupError, match=r"task 'notes-make-v0', setup\[2\] \(shell\): command failed"):
        run_setup(failing, ctx)


def test_getter_library_functions_are_documented():
    for name, fn in GETTERS.items():
        assert fn.__doc__ and fn.__doc__.strip(), name
    for name, fn in METRICS.items():
        assert fn.__doc__ and fn.__doc__.strip(), name

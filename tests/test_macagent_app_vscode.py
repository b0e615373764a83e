"""The sim's Visual Studio Code: the ``code`` command (open, goto, extensions, version, bad options),
settings.json and the Settings editor kept in sync, save-time settings, the editor's keys, tabs that
ask before closing unsaved work, the Command Palette, Quick Open, the Extensions view, the Explorer,
``open -a``, and AppleScript limited to activate/quit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmenvs.macagent.applescript import AppleScriptError
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.backends.sim.apps.vscode import SETTINGS_PATH, parse_jsonc, setting_title
from test_macagent_sim import NOW, click, elements

APP = "Visual Studio Code"


@pytest.fixture
def b(tmp_path: Path) -> SimBackend:
    be = SimBackend()
    be.reset(now=NOW, home=tmp_path / "home")
    proj = be.home / "Projects" / "calc"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (proj / "README.md").write_text("# calc\n")
    yield be
    be.close()


def settings(be: SimBackend) -> dict:
    return json.loads((be.home / SETTINGS_PATH).read_text())


def value_of(be: SimBackend, role: str, name: str) -> str | None:
    return next(e[2] for e in elements(be) if e[0] == role and e[1] == name)


def test_code_version_help_and_unknown_options(b: SimBackend) -> None:
    out = b.run_shell("code --version")
    assert out.exit_code == 0 and out.stdout.splitlines() == ["1.95.3", "f1a4fb101478ce6ec82fe9627c43efbf9e98c813", "arm64"]
    assert "--install-extension <ext-id>" in b.run_shell("code --help").stdout
    out = b.run_shell("code --frobnicate")
    assert out.exit_code == 0 and "'frobnicate' is not in the list of known options" in out.stderr
    out = b.run_shell("code --install-extension")
    assert "Option 'install-extension' requires a non empty value. Ignoring the option." in out.stderr
    out = b.run_shell("code --diff a b")
    assert out.exit_code == 1 and "'--diff' is not available in the simulator" in out.stderr


def test_code_installs_with_dependencies_lists_and_uninstalls(b: SimBackend) -> None:
    out = b.run_shell("code --install-extension ms-python.python")
    assert out.exit_code == 0
    assert out.stdout.splitlines() == [
        "Installing extensions...", "Installing extension 'ms-python.python'...",
        "Extension 'ms-python.vscode-pylance' v2024.12.1 was successfully installed.",
        "Extension 'ms-python.debugpy' v2024.14.0 was successfully installed.",
        "Extension 'ms-python.python' v2024.22.0 was successfully installed."]
    ext = b.home / ".vscode" / "extensions"
    manifest = json.loads((ext / "ms-python.python-2024.22.0" / "package.json").read_text())
    assert manifest["publisher"] == "ms-python" and "python.condaPath" in manifest["contributes"]["configuration"]["properties"]
    index = json.loads((ext / "extensions.json").read_text())
    assert sorted(e["identifier"]["id"] for e in index) == ["ms-python.debugpy", "ms-python.python", "ms-python.vscode-pylance"]
    assert b.run_shell("code --list-extensions").stdout == "ms-python.debugpy\nms-python.python\nms-python.vscode-pylance\n"
    assert "ms-python.python@2024.22.0" in b.run_shell("code --list-extensions --show-versions").stdout.split()
    assert b.run_shell("code --list-extensions --category Debuggers").stdout == "ms-python.debugpy\nms-python.python\n"
    again = b.run_shell("code --install-extension MS-Python.Python")  # ids are case-insensitive
    assert again.exit_code == 0 and "is already installed" in again.stdout
    refused = b.run_shell("code --uninstall-extension ms-python.vscode-pylance")
    assert refused.exit_code == 1 and "Cannot uninstall 'Pylance' extension. 'Python' extension depends on this." in refused.stderr
    gone = b.run_shell("code --uninstall-extension ms-python.python")
    assert gone.exit_code == 0 and "Extension 'ms-python.python' was successfully uninstalled!" in gone.stdout
    assert not (ext / "ms-python.python-2024.22.0").exists()
    assert b.app_state(APP)["extensions"] == ["ms-python.debugpy@2024.14.0", "ms-python.vscode-pylance@2024.12.1"]


@pytest.mark.parametrize("command, message", [
    ("code --install-extension foo.bar", "Extension 'foo.bar' not found."),
    ("code --install-extension ms-python.python@1.0.0", "version '1.0.0' is not available in the Marketplace"),
    ("code --install-extension ./local.vsix", "installing from a VSIX file is not available"),
    ("code --uninstall-extension esbenp.prettier-vscode", "Extension 'esbenp.prettier-vscode' is not installed."),
    ("code /etc/passwd", "outside the home folder"),
    ("code ~/Nowhere/file.txt", "the folder /Users/user/Nowhere does not exist"),
])
def test_code_bad_input_fails_with_a_message_and_changes_nothing(b: SimBackend, command: str, message: str) -> None:
    out = b.run_shell(command)
    assert out.exit_code == 1 and message in out.stderr
    assert not (b.home / ".vscode").exists() and not b.app(APP).running


def test_code_opens_a_folder_and_a_file_at_a_line(b: SimBackend) -> None:
    assert b.run_shell("cd ~/Projects && code calc").exit_code == 0  # relative to the shell's folder
    state = b.app_state(APP)
    assert state["folder"] == "/Users/user/Projects/calc" and b.desktop.active.name == APP
    assert [e[1] for e in elements(b) if e[0] == "AXRow"] == ["src", "calc.py", "README.md"]
    b.run_shell("code -g ~/Projects/calc/src/calc.py:2:15")
    assert b.app_state(APP)["active"] == "calc.py"
    assert 'AXStaticText "Ln 2, Col 15    Spaces: 4    UTF-8    LF    Python"' in b.accessibility_tree()
    b.press("backspace")  # deletes the "-" before the cursor
    b.type_text("+")
    b.hotkey("command", "s")
    assert (b.home / "Projects/calc/src/calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    b.run_shell("code ~/Projects/calc/NOTES.md")  # a new path opens empty and is created on save
    assert not (b.home / "Projects/calc/NOTES.md").exists()
    b.type_text("todo")
    b.hotkey("command", "s")
    assert (b.home / "Projects/calc/NOTES.md").read_text() == "todo"
    assert b.run_shell("open -a 'Visual Studio Code' ~/Projects/calc/README.md").exit_code == 0
    assert b.app_state(APP)["active"] == "README.md"


def test_settings_editor_writes_settings_json_and_follows_it(b: SimBackend) -> None:
    b.open_app(APP)
    b.hotkey("command", ",")
    b.type_text("font size")
    assert [e[1] for e in elements(b) if e[0] == "AXRow"] == ["Editor: Font Size", "Terminal › Integrated: Font Size"]
    b.press("tab")
    b.press("tab")
    b.hotkey("command", "a")
    b.type_text("16")
    assert settings(b) == {"editor.fontSize": 16}
    b.hotkey("command", "a")
    b.type_text("12")  # the default: the Settings editor removes the entry
    assert settings(b) == {}
    b.run_shell("printf '{\\n  // mine\\n  \"editor.fontSize\": 20,\\n}\\n' > ~/Library/Application\\ Support/Code/User/settings.json")
    assert value_of(b, "AXTextField", "Editor: Font Size") == "20"
    b.hotkey("command", "a")
    b.type_text("abc")  # not a number: refused, the file keeps 20
    assert "Value must be a number: 'abc'" in b.accessibility_tree()
    assert parse_jsonc((b.home / SETTINGS_PATH).read_text()) == {"editor.fontSize": 20}
    b.hotkey("shift", "tab")
    b.hotkey("shift", "tab")
    b.hotkey("command", "a")
    b.type_text("trim trailing")
    b.press("tab")
    b.press("tab")
    b.press("space")  # the checkbox
    assert settings(b) == {"editor.fontSize": 20, "files.trimTrailingWhitespace": True}
    click(b, "AXButton", "Reset Setting")
    assert settings(b) == {"editor.fontSize": 20}


def test_broken_settings_json_is_reported_and_not_overwritten(b: SimBackend) -> None:
    path = b.home / SETTINGS_PATH
    path.parent.mkdir(parents=True)
    path.write_text('{"editor.fontSize": 14,, }')
    b.open_app(APP)
    b.hotkey("command", ",")
    assert "settings.json: Expecting property name enclosed in double quotes at line 1, column 26" in b.accessibility_tree()
    b.type_text("word wrap")
    b.press("tab")
    b.press("tab")
    app = b.app(APP)
    app.toggle_word_wrap()
    assert app.message.startswith("Unable to write into user settings.")
    assert path.read_text() == '{"editor.fontSize": 14,, }'
    assert b.app_state(APP)["settings_error"].startswith("settings.json: Expecting property name")


def test_jsonc_and_setting_titles() -> None:
    text = '{\n  // a comment with "quotes"\n  "a": "http://x", /* block */ "b": [1, 2,],\n}'
    assert parse_jsonc(text) == {"a": "http://x", "b": [1, 2]}
    assert parse_jsonc("  ") == {}
    with pytest.raises(ValueError, match="line 1, column 6"):
        parse_jsonc('{"a" 1}')
    assert setting_title("editor.fontSize") == "Editor: Font Size"
    assert setting_title("python.analysis.typeCheckingMode") == "Python › Analysis: Type Checking Mode"


def test_save_settings_tab_spaces_and_auto_save(b: SimBackend) -> None:
    path = b.home / SETTINGS_PATH
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"files.trimTrailingWhitespace": True, "files.insertFinalNewline": True, "editor.tabSize": 2}))
    target = b.home / "Projects/calc/notes.txt"
    target.write_text("one   \ntwo\t")
    b.run_shell("code ~/Projects/calc/notes.txt")
    b.hotkey("command", "s")  # saving an unchanged file still applies the save-time settings
    assert target.read_text() == "one\ntwo\n"
    b.hotkey("command", "down")
    b.press("tab")  # two spaces (editor.tabSize 2, insertSpaces by default)
    b.type_text("x")
    assert b.app_state(APP)["active_text"] == "one\ntwo\n  x" and b.app_state(APP)["tabs"][0]["dirty"]
    b.run_shell("echo '{\"files.autoSave\": \"afterDelay\"}' > ~/Library/Application\\ Support/Code/User/settings.json")
    b.type_text("y")
    assert target.read_text() == "one\ntwo\n  xy" and not b.app_state(APP)["tabs"][0]["dirty"]


def test_closing_a_changed_tab_asks_and_untitled_files_save_as(b: SimBackend) -> None:
    b.run_shell("code ~/Projects/calc/README.md")
    b.type_text("more")
    assert [t["name"] for t in b.app_state(APP)["tabs"] if t["dirty"]] == ["README.md"]
    b.hotkey("command", "w")
    assert 'AXStaticText "Do you want to save the changes you made to README.md?"' in b.accessibility_tree()
    click(b, "AXButton", "Cancel")
    assert b.app_state(APP)["tabs"][0]["name"] == "README.md"
    b.hotkey("command", "w")
    click(b, "AXButton", "Don't Save")
    assert b.app_state(APP)["tabs"] == [] and (b.home / "Projects/calc/README.md").read_text() == "# calc\n"
    b.hotkey("command", "n")
    b.type_text("print('hi')")
    b.hotkey("command", "s")  # never saved: asks for a path
    b.hotkey("command", "a")
    b.type_text("~/Projects/calc/hi.py")
    b.press("enter")
    assert (b.home / "Projects/calc/hi.py").read_text() == "print('hi')"
    assert b.app_state(APP)["active"] == "hi.py"


def test_command_palette_runs_real_commands(b: SimBackend) -> None:
    target = b.home / "Projects/calc/list.txt"
    target.write_text("pear\napple\nfig\napple")
    b.run_shell("code ~/Projects/calc/list.txt")
    b.hotkey("command", "shift", "p")
    assert value_of(b, "AXTextField", "Type the name of a command to run.") == ">"
    b.type_text("sort ascending")
    b.press("enter")
    assert b.app_state(APP)["active_text"] == "apple\napple\nfig\npear"
    b.hotkey("command", "shift", "p")
    b.type_text("duplicate lines")
    b.press("enter")
    b.hotkey("command", "shift", "p")
    b.type_text("toggle word wrap")
    b.press("enter")
    b.hotkey("command", "s")
    assert target.read_text() == "apple\nfig\npear"
    assert settings(b) == {"editor.wordWrap": "on"}
    b.hotkey("command", "shift", "p")
    b.type_text("color theme")
    b.press("enter")
    b.type_text("solarized light")
    b.press("enter")
    assert settings(b)["workbench.colorTheme"] == "Solarized Light" and not b.app(APP).dark
    b.hotkey("command", "shift", "p")
    b.type_text("no such command at all")
    assert "No matching results" in b.accessibility_tree()
    b.press("esc")
    assert not any(e[0] == "AXSheet" for e in elements(b))


def test_quick_open_and_go_to_line(b: SimBackend) -> None:
    b.run_shell("code ~/Projects/calc")
    b.hotkey("command", "p")
    b.type_text("calc")
    b.press("enter")
    assert b.app_state(APP)["active"] == "calc.py"
    b.hotkey("ctrl", "g")
    b.type_text("2")
    b.press("enter")
    b.hotkey("shift", "end")
    b.type_text("    return a + b")
    b.hotkey("command", "s")
    assert (b.home / "Projects/calc/src/calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_extensions_view_searches_the_marketplace_and_installs(b: SimBackend) -> None:
    b.open_app(APP)
    b.hotkey("command", "shift", "x")
    assert 'AXStaticText "INSTALLED (0)"' in b.accessibility_tree()
    b.type_text("prettier")
    click(b, "AXRow", "Prettier - Code formatter")
    assert b.app_state(APP)["active"] == "Extension: Prettier - Code formatter"
    click(b, "AXButton", "Install")
    assert b.app_state(APP)["extensions"] == ["esbenp.prettier-vscode@11.0.0"]
    assert b.run_shell("code --list-extensions").stdout == "esbenp.prettier-vscode\n"
    assert b.app(APP).setting("prettier.tabWidth") == 2  # its settings are known now
    click(b, "AXButton", "Uninstall")
    assert b.app_state(APP)["extensions"] == []


def test_explorer_context_menu_new_file_rename_and_delete(b: SimBackend) -> None:
    b.run_shell("code ~/Projects/calc")
    click(b, "AXRow", "src", button="right")
    click(b, "AXMenuItem", "New File…")
    b.type_text("util.py")
    b.press("enter")
    assert (b.home / "Projects/calc/src/util.py").is_file() and b.app_state(APP)["active"] == "util.py"
    click(b, "AXRow", "README.md", button="right")
    click(b, "AXMenuItem", "Rename…")
    b.hotkey("command", "a")
    b.type_text("calc.py")  # taken in that folder? no: README.md sits at the top, calc.py in src
    b.press("enter")
    assert (b.home / "Projects/calc/calc.py").is_file() and not (b.home / "Projects/calc/README.md").exists()
    click(b, "AXRow", "util.py", button="right")
    click(b, "AXMenuItem", "Delete")
    click(b, "AXButton", "Move to Trash")
    assert (b.home / ".Trash/util.py").is_file() and "util.py" not in [t["name"] for t in b.app_state(APP)["tabs"]]


def test_applescript_can_only_activate_and_quit(b: SimBackend) -> None:
    b.run_applescript('tell application "Visual Studio Code" to activate')
    assert b.desktop.active.name == APP and b.app(APP).windows
    with pytest.raises(AppleScriptError):
        b.run_applescript('tell application "Visual Studio Code" to get name of every document')
    b.run_applescript('tell application "Visual Studio Code" to quit')
    assert not b.app(APP).running

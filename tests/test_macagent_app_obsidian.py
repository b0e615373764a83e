"""The sim's Obsidian: vaults as real folders with the obsidian.json registry, the file tree, the quick
switcher (open or create, ``Folder/Note``), the inline title that renames, search, backlinks and tags,
the ``obsidian://`` URL scheme through ``open``, AppleScript limited to activate/quit, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmenvs.macagent.applescript import AppleScriptError
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.backends.sim.apps.obsidian import REGISTRY, note_tags, wiki_links
from test_macagent_sim import NOW, click, elements

VAULT = "Documents/Work"


@pytest.fixture
def b(tmp_path: Path) -> SimBackend:
    be = SimBackend()
    be.reset(now=NOW, home=tmp_path / "home")
    root = be.home / VAULT
    (root / ".obsidian").mkdir(parents=True)
    (root / "Projects").mkdir()
    (root / "Projects" / "Alpha.md").write_text("# Alpha\nSee [[Beta]] for details. #todo\n")
    (root / "Beta.md").write_text("Links back to [[Alpha|the alpha]] and [[Missing Note]].\n#todo/later #idea\n")
    (root / "Gamma.md").write_text("---\ntags: [review, todo]\n---\nNo links here.\n")
    reg = be.home / REGISTRY
    reg.parent.mkdir(parents=True)
    reg.write_text(json.dumps({"vaults": {"a1b2c3d4e5f60718": {"path": "/Users/user/Documents/Work", "ts": 1, "open": True}}}))
    yield be
    be.close()


def rows(be: SimBackend) -> list[tuple[str, str | None]]:
    return [(e[1], e[2]) for e in elements(be) if e[0] == "AXRow"]


def list_rows(be: SimBackend, name: str) -> list[str]:
    """Names of the rows of the on-screen list called ``name`` (from the accessibility tree)."""
    out, inside = [], None
    for line in be.accessibility_tree().splitlines():
        depth = len(line) - len(line.lstrip())
        if inside is not None and depth <= inside:
            inside = None
        if line.strip().startswith(("AXList ", "AXTable ")) and f'"{name}"' in line:
            inside = depth
        elif inside is not None and line.strip().startswith("AXRow "):
            out.append(line.strip().split('"')[1])
    return out


def workspace(be: SimBackend) -> dict:
    return json.loads((be.home / VAULT / ".obsidian" / "workspace.json").read_text())


def test_file_tree_shows_the_vault_on_disk_and_folders_collapse(b: SimBackend) -> None:
    b.open_app("Obsidian")
    assert b.desktop.active.name == "Obsidian"
    tree = rows(b)
    assert tree[:4] == [("Projects", "expanded folder"), ("Alpha", None), ("Beta", None), ("Gamma", None)]
    click(b, "AXRow", "Projects")  # a click on a folder collapses it
    assert ("Alpha", None) not in rows(b) and ("Projects", "collapsed folder") in rows(b)
    b.run_shell("echo 'made by the shell' > ~/Documents/Work/Delta.md")  # the tree follows the disk
    assert ("Delta", None) in rows(b)
    click(b, "AXRow", "Delta")
    assert b.app_state("Obsidian")["open_note"] == "Delta.md"
    assert workspace(b)["lastOpenFiles"][0] == "Delta.md"


def test_quick_switcher_creates_a_note_in_a_subfolder_and_typing_saves_it(b: SimBackend) -> None:
    b.open_app("Obsidian")
    b.hotkey("command", "o")
    assert any(e[0] == "AXSheet" and e[1] == "Quick switcher" for e in elements(b))
    b.type_text("Inbox/Vendor Call Notes.md")  # no note matches: Return creates it
    b.press("enter")
    path = b.home / VAULT / "Inbox" / "Vendor Call Notes.md"
    assert path.is_file() and path.read_text() == ""
    b.type_text("Vendor: Northwind\n- price up 4%")
    assert path.read_text() == "Vendor: Northwind\n- price up 4%"
    state = b.app_state("Obsidian")
    assert state["open_note"] == "Inbox/Vendor Call Notes.md" and "Inbox" in state["folders"]
    assert workspace(b)["lastOpenFiles"][0] == "Inbox/Vendor Call Notes.md"
    assert b.desktop.key_window().title == "Vendor Call Notes - Work - Obsidian 1.7.7"


def test_quick_switcher_opens_a_match_and_shift_return_always_creates(b: SimBackend) -> None:
    b.open_app("Obsidian")
    b.hotkey("command", "o")
    b.type_text("alp")
    assert list_rows(b, "Matching notes") == ["Alpha"]
    b.press("enter")
    assert b.app_state("Obsidian")["open_note"] == "Projects/Alpha.md"
    b.hotkey("command", "o")
    b.type_text("Alpha")
    b.hotkey("shift", "enter")  # create even though a note matches: a new one in the vault root
    assert b.app_state("Obsidian")["open_note"] == "Alpha.md"
    assert (b.home / VAULT / "Alpha.md").is_file() and (b.home / VAULT / "Projects" / "Alpha.md").is_file()
    b.hotkey("command", "o")
    b.press("esc")
    assert not any(e[0] == "AXSheet" for e in elements(b))


def test_new_note_title_renames_the_file_and_bad_names_are_refused(b: SimBackend) -> None:
    b.open_app("Obsidian")
    b.hotkey("command", "n")
    root = b.home / VAULT
    assert (root / "Untitled.md").is_file()
    b.type_text("Weekly Plan")  # the inline title is focused with "Untitled" selected
    b.press("enter")
    assert (root / "Weekly Plan.md").is_file() and not (root / "Untitled.md").exists()
    b.type_text("Monday: review")
    assert (root / "Weekly Plan.md").read_text() == "Monday: review"
    b.hotkey("command", "n")
    b.type_text("a/b:c")
    b.press("enter")
    alert = [e for e in elements(b) if e[0] == "AXStaticText" and "cannot contain" in e[1]]
    assert alert and "a/b:c" in alert[0][1]
    assert (root / "Untitled.md").is_file()  # unchanged
    b.press("enter")  # OK
    b.hotkey("command", "n")  # a second untitled note gets a number
    assert (root / "Untitled 1.md").is_file()


def test_renaming_a_note_updates_wiki_links_to_it(b: SimBackend) -> None:
    app = b.app("Obsidian")
    b.open_app("Obsidian")
    assert app.rename("Projects/Alpha.md", "Alpha Project") == "Projects/Alpha Project.md"
    assert (b.home / VAULT / "Beta.md").read_text().startswith("Links back to [[Alpha Project|the alpha]]")
    with pytest.raises(ValueError, match="already exists"):
        app.rename("Beta.md", "Gamma")
    with pytest.raises(ValueError, match="cannot contain"):
        app.rename("Beta.md", "x|y")


def test_search_words_phrases_tags_and_exclusions(b: SimBackend) -> None:
    app = b.app("Obsidian")
    root = b.home / VAULT
    assert [n for n, _ in app.search(root, "tag:#todo")] == ["Beta.md", "Gamma.md", "Projects/Alpha.md"]
    assert [n for n, _ in app.search(root, "tag:todo -tag:review")] == ["Beta.md", "Projects/Alpha.md"]
    assert app.search(root, '"for details"') == [("Projects/Alpha.md", "See [[Beta]] for details. #todo")]
    assert [n for n, _ in app.search(root, "path:projects")] == ["Projects/Alpha.md"]
    assert app.search(root, "nothing-matches-this") == [] and app.search(root, "") == []
    b.open_app("Obsidian")
    b.hotkey("command", "shift", "f")
    # an empty query shows the vault's tags with their counts; a click searches the tag
    assert [(e[1], e[2]) for e in elements(b) if e[0] == "AXRow"] == [
        ("#todo", "2"), ("#idea", "1"), ("#review", "1"), ("#todo/later", "1")]
    click(b, "AXRow", "#review")
    assert b.app_state("Obsidian")["search"] == "tag:#review" and list_rows(b, "Search results") == ["Gamma"]
    click(b, "AXTextField", "Search")
    b.hotkey("command", "a")
    b.type_text("links")
    assert [e[1] for e in elements(b) if e[0] == "AXStaticText" and "result" in e[1]] == ["2 results"]
    click(b, "AXRow", "Gamma")
    assert b.app_state("Obsidian")["open_note"] == "Gamma.md"


def test_backlinks_outgoing_links_and_tags_of_the_open_note(b: SimBackend) -> None:
    b.open_app("Obsidian")
    click(b, "AXRow", "Alpha")
    tree = b.accessibility_tree()
    assert 'AXStaticText "Linked mentions (1)"' in tree and 'AXStaticText "Tags (1)"' in tree
    assert (list_rows(b, "Backlinks"), list_rows(b, "Outgoing links"), list_rows(b, "Tags")) == (["Beta"], ["Beta"], ["#todo"])
    click(b, "AXRow", "Beta")  # the first match is the tree row: it opens Beta
    assert list_rows(b, "Backlinks") == ["Alpha"] and list_rows(b, "Outgoing links") == ["Alpha", "Missing Note"]
    assert list_rows(b, "Tags") == ["#todo/later", "#idea"]
    missing = [e for e in elements(b) if e[0] == "AXRow" and e[1] == "Missing Note"][0][3]
    b.click(missing[0] + 20, missing[1] + 5)  # an unresolved link creates its note, as a click does in Obsidian
    assert (b.home / VAULT / "Missing Note.md").is_file()
    assert b.app_state("Obsidian")["open_note"] == "Missing Note.md"


def test_markdown_tags_and_links() -> None:
    text = ("---\ntags:\n  - project\n  - '#area/home'\n---\n# Heading is not a tag\n"
            "Text #alpha and #beta/sub, not#tag, #2024 (numbers only), `#code` and\n```\n#fenced\n```\n#Alpha again")
    assert note_tags(text) == ["project", "area/home", "alpha", "beta/sub"]
    assert wiki_links("[[A]] [[B|alias]] [[Folder/C#Head]] [[D^block]] `[[E]]` [[ ]]") == ["A", "B", "Folder/C", "D"]


def test_url_scheme_new_open_search_append_and_silent(b: SimBackend) -> None:
    root = b.home / VAULT
    out = b.run_shell("open 'obsidian://new?vault=Work&file=Inbox%2FCall&content=Line%201%0A%23todo'")
    assert out.exit_code == 0
    assert (root / "Inbox" / "Call.md").read_text() == "Line 1\n#todo"
    assert b.desktop.active.name == "Obsidian" and b.app_state("Obsidian")["open_note"] == "Inbox/Call.md"
    b.run_shell("open 'obsidian://new?vault=Work&file=Inbox%2FCall&content=Line%202&append=true'")
    assert (root / "Inbox" / "Call.md").read_text() == "Line 1\n#todo\nLine 2"
    b.run_shell("open 'obsidian://new?vault=a1b2c3d4e5f60718&name=Call&content=x&silent=true'")  # vault by id, not opened
    assert (root / "Call.md").read_text() == "x" and b.app_state("Obsidian")["open_note"] == "Inbox/Call.md"
    b.run_shell("open 'obsidian://new?vault=Work&name=Call&content=y'")  # the name is taken: "Call 1"
    assert (root / "Call 1.md").read_text() == "y"
    b.run_shell("open 'obsidian://open?vault=Work&file=Projects%2FAlpha'")
    assert b.app_state("Obsidian")["open_note"] == "Projects/Alpha.md"
    b.run_shell("open 'obsidian://open?path=%2FUsers%2Fuser%2FDocuments%2FWork%2FBeta.md'")
    assert b.app_state("Obsidian")["open_note"] == "Beta.md"
    b.run_shell("open 'obsidian://search?vault=Work&query=tag%3A%23idea'")
    state = b.app_state("Obsidian")
    assert state["sidebar"] == "Search" and state["search"] == "tag:#idea"
    assert [e[1] for e in elements(b) if e[0] == "AXStaticText" and "result" in e[1]] == ["1 result"]


@pytest.mark.parametrize("url, message", [
    ("obsidian://open?vault=Nope&file=Beta", "Unable to find a vault for the URL obsidian://open?vault=Nope&file=Beta"),
    ("obsidian://open?vault=Work&file=Nowhere", "Unable to find a note matching 'Nowhere' in vault 'Work'."),
    ("obsidian://frobnicate?vault=Work", "Unsupported Obsidian URL action 'frobnicate'"),
    ("obsidian://new?vault=Work&file=..%2F..%2FDesktop%2Fx", "File name cannot start with a dot."),
    ("obsidian://new?vault=Work&name=bad%3Aname", "File name cannot contain"),
])
def test_bad_urls_show_a_notice_and_change_nothing(b: SimBackend, url: str, message: str) -> None:
    def notes() -> list[str]:  # the vault's content (opening a vault may add config under .obsidian)
        return sorted(str(p) for p in (b.home / VAULT).rglob("*") if ".obsidian" not in p.parts)

    before = notes()
    desktop_before = sorted(p.name for p in (b.home / "Desktop").iterdir())
    assert b.run_shell(f"open '{url}'").exit_code == 0  # open hands the URL over; Obsidian complains itself
    texts = [e[1] for e in elements(b) if e[0] == "AXStaticText"]
    assert any(message in t for t in texts), texts
    assert notes() == before
    assert sorted(p.name for p in (b.home / "Desktop").iterdir()) == desktop_before


def test_applescript_can_only_activate_and_quit(b: SimBackend) -> None:
    b.run_applescript('tell application "Obsidian" to activate')
    assert b.desktop.active.name == "Obsidian" and b.app("Obsidian").windows
    assert b.run_applescript('tell application "Obsidian" to get frontmost') == "true"
    with pytest.raises(AppleScriptError):
        b.run_applescript('tell application "Obsidian" to get name of every note')
    b.run_applescript('tell application "Obsidian" to quit')
    assert not b.app("Obsidian").running and not b.app("Obsidian").windows


def test_without_a_vault_the_chooser_creates_one(tmp_path: Path) -> None:
    be = SimBackend()
    be.reset(now=NOW, home=tmp_path / "home")
    try:
        be.open_app("Obsidian")
        assert 'AXButton "Create"' in be.accessibility_tree() and be.app_state("Obsidian")["vault"] is None
        be.hotkey("command", "n")  # nothing to do without a vault
        assert not list((be.home / "Documents").iterdir())
        click(be, "AXButton", "Create")
        be.type_text("Journal")
        be.press("enter")
        root = be.home / "Documents" / "Journal"
        assert (root / ".obsidian" / "app.json").is_file()
        reg = json.loads((be.home / REGISTRY).read_text())["vaults"]
        assert [v["path"] for v in reg.values()] == ["/Users/user/Documents/Journal"]
        assert list(reg.values())[0]["open"] is True
        be.hotkey("command", "n")
        assert (root / "Untitled.md").is_file()
        assert be.app_state("Obsidian")["vault"] == "Journal"
    finally:
        be.close()


def test_a_broken_registry_counts_as_no_vaults(b: SimBackend) -> None:
    (b.home / REGISTRY).write_text("{not json")
    b.open_app("Obsidian")
    assert b.app_state("Obsidian")["vaults"] == [] and 'AXButton "Open"' in b.accessibility_tree()


def test_context_menu_delete_moves_to_trash_and_external_edits_show(b: SimBackend) -> None:
    b.open_app("Obsidian")
    click(b, "AXRow", "Alpha")
    b.run_shell("echo 'rewritten by a script' > ~/Documents/Work/Projects/Alpha.md")
    editor = [e for e in elements(b) if e[0] == "AXTextArea" and e[1] == "Note body"][0]
    assert editor[2] == "rewritten by a script\n"  # the tree escapes it; elements() reads it back
    click(b, "AXRow", "Gamma", button="right")
    click(b, "AXMenuItem", "Delete")
    click(b, "AXButton", "Delete")
    assert not (b.home / VAULT / "Gamma.md").exists() and (b.home / ".Trash" / "Gamma.md").is_file()
    assert "Gamma.md" not in b.app_state("Obsidian")["notes"]


def test_command_palette_rename_move_and_insert_date(b: SimBackend) -> None:
    root = b.home / VAULT
    b.open_app("Obsidian")
    b.hotkey("command", "o")
    b.type_text("Alpha")
    b.press("enter")
    b.hotkey("command", "p")
    assert list_rows(b, "Command palette")[:3] == ["Create new note", "Quick switcher: Open quick switcher",
                                                   "Search: Search in all files"]
    b.type_text("rename file")
    assert list_rows(b, "Command palette") == ["Rename file"]
    b.press("enter")  # the inline title takes the focus with the name selected
    b.type_text("Alpha Plan")
    b.press("enter")
    assert (root / "Projects" / "Alpha Plan.md").is_file()
    assert "[[Alpha Plan|the alpha]]" in (root / "Beta.md").read_text()  # links follow the note
    b.hotkey("command", "p")
    b.type_text("move current")
    b.press("enter")
    assert list_rows(b, "Move file") == ["/", "Projects"]
    b.press("enter")  # "/" = the vault root
    assert (root / "Alpha Plan.md").is_file() and b.app_state("Obsidian")["open_note"] == "Alpha Plan.md"
    assert "[[Alpha Plan|the alpha]]" in (root / "Beta.md").read_text()
    b.hotkey("command", "p")
    b.type_text("insert current date")
    b.press("enter")
    assert (root / "Alpha Plan.md").read_text().endswith("#todo\n2026-04-13")
    b.hotkey("command", "p")
    b.type_text("no such command")
    assert "No matching results" in b.accessibility_tree()
    b.press("esc")
    app = b.app("Obsidian")
    with pytest.raises(ValueError, match="has no folder 'Nowhere'"):
        app.move("Alpha Plan.md", "Nowhere")
    with pytest.raises(ValueError, match="already exists in 'Projects'"):
        (root / "Projects" / "Beta.md").write_text("another Beta\n")
        app.move("Beta.md", "Projects")

"""Keynote in the MacAgent sim: the theme chooser, slides (new, delete, reorder by drag, layouts,
skip), presenter notes, save/export sheets, AppleScript per Keynote's dictionary, exports read back
with python-pptx/pypdf/Pillow, document routing and bad input (a corrupt .key, unknown themes and
layouts, placeholders a layout hides)."""

from __future__ import annotations


import pytest
from PIL import Image

from mmenvs.macagent.applescript.errors import AppleScriptError
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.backends.sim.apps.iwork import read_document, write_document
from mmenvs.macagent.checkpoints import GETTERS, GetterContext, GetterError
from test_macagent_sim import click, elements, find


def osa(b: SimBackend, src: str) -> str:
    return b.run_applescript(src)


def getter(b: SimBackend, name: str, **args):
    return GETTERS[name](GetterContext(b), **args)


def deck(b: SimBackend, titles: list[str], theme: str = "Basic White") -> None:
    listing = "{" + ", ".join(f'"{t}"' for t in titles) + "}"
    osa(b, 'tell application "Keynote"\n'
           f'  set d to make new document with properties {{document theme:theme "{theme}"}}\n'
           f'  set ts to {listing}\n'
           '  set object text of default title item of slide 1 of d to item 1 of ts\n'
           '  repeat with i from 2 to count of ts\n'
           '    set s to make new slide at end of slides of d\n'
           '    set object text of default title item of s to item i of ts\n'
           '  end repeat\nend tell')


def slides(b: SimBackend) -> list[tuple[str, str, str]]:
    return [(s["layout"], s["title"], s["body"]) for s in b.app_state("Keynote")["documents"][0]["slides"]]


# ---------------------------------------------------------------------------------------------- GUI
def test_theme_chooser_then_typing_titles_bodies_and_new_slides(b: SimBackend) -> None:
    b.open_app("Keynote")
    assert [e[1] for e in elements(b) if e[0] == "AXWindow"] == ["Choose a Theme"]
    b.press("right")  # Basic White → Basic Black
    b.press("return")
    b.type_text("Launch Plan")
    b.press("tab")
    b.type_text("April 2026")
    b.hotkey("command", "shift", "n")
    b.type_text("Goals")
    b.press("tab")
    b.type_text("Grow revenue\nShip v2")
    (doc,) = b.app_state("Keynote")["documents"]
    assert doc["theme"] == "Basic Black" and doc["current_slide"] == 2 and doc["modified"] is True
    assert slides(b) == [("Title", "Launch Plan", "April 2026"), ("Title & Bullets", "Goals", "Grow revenue\nShip v2")]
    tree = b.accessibility_tree()
    assert 'AXRow "1   Launch Plan"' in tree and 'AXRow "2   Goals" [' in tree and 'AXTextField "Title" value="Goals"' in tree


def test_navigator_select_delete_and_drag_to_reorder(b: SimBackend) -> None:
    deck(b, ["A", "B", "C", "D"])
    b.open_app("Keynote")
    click(b, "AXRow", "2   B")
    assert 'AXTextField "Title" value="B"' in b.accessibility_tree()
    b.press("backspace")  # the navigator has focus: Delete removes the selected slide
    assert [t for _, t, _ in slides(b)] == ["A", "C", "D"]
    x, y = find(b, "AXRow", "1   A")
    b.mouse_move(x, y)
    b.mouse_down()
    b.drag_to(*find(b, "AXRow", "3   D"))
    b.mouse_up()
    assert [t for _, t, _ in slides(b)] == ["C", "D", "A"]


def test_layout_popup_skip_and_presenter_notes(b: SimBackend) -> None:
    deck(b, ["Intro", "Details"])
    b.open_app("Keynote")
    click(b, "AXPopUpButton", "Slide Layout")
    click(b, "AXMenuItem", "Title Only")
    assert [s[0] for s in slides(b)] == ["Title", "Title Only"]  # the current slide: the last one made
    assert 'AXTextArea "Body"' not in b.accessibility_tree()  # Title Only hides the body placeholder
    click(b, "AXMenuBarItem", "View")
    click(b, "AXMenuItem", "Show Presenter Notes")
    click(b, "AXTextArea", "Presenter Notes")
    b.type_text("Keep it short.")
    click(b, "AXMenuBarItem", "Slide")
    click(b, "AXMenuItem", "Skip Slide")
    s = b.app_state("Keynote")["documents"][0]["slides"][1]
    assert (s["presenter_notes"], s["skipped"]) == ("Keep it short.", True)
    assert osa(b, 'tell application "Keynote" to get {presenter notes, skipped} of slide 2 of document 1') == "Keep it short., true"


def test_save_sheet_and_export_images_from_the_menu(b: SimBackend) -> None:
    deck(b, ["One", "Two"], "Basic Black")
    b.open_app("Keynote")
    b.hotkey("command", "s")
    b.hotkey("command", "a")
    b.type_text("Talk")
    b.press("return")
    content = read_document(b.home / "Documents" / "Talk.key", "keynote", b.current_desktop().home_files)
    assert content["theme"] == "Basic Black" and [s["title"] for s in content["slides"]] == ["One", "Two"]
    click(b, "AXMenuBarItem", "File")
    click(b, "AXMenuItem", "Export To Images…")
    b.press("return")  # name "Talk" in Documents
    files = sorted(p.name for p in (b.home / "Documents" / "Talk").iterdir())
    assert files == ["Talk.001.png", "Talk.002.png"]
    with Image.open(b.home / "Documents" / "Talk" / "Talk.001.png") as im:
        assert im.size == (1920, 1080) and im.getpixel((5, 5)) == (0, 0, 0)  # Basic Black's background
        assert im.convert("L").getextrema()[1] > 200  # white title text is drawn


# ---------------------------------------------------------------------------------------------- AppleScript
def test_applescript_slides_items_and_notes(b: SimBackend) -> None:
    ref = osa(b, 'tell application "Keynote" to make new document with properties {document theme:theme "Basic Black"}')
    assert ref == 'document "Untitled" of application "Keynote"'
    assert osa(b, 'tell application "Keynote" to get name of document theme of document 1') == "Basic Black"
    assert osa(b, 'tell application "Keynote" to count of slides of document 1') == "1"
    osa(b, 'tell application "Keynote"\n tell document 1\n'
           '  set s to make new slide with properties {base slide:master slide "Title & Bullets"}\n'
           '  set object text of default title item of s to "Plan"\n'
           '  set object text of default body item of s to "Hire" & linefeed & "Ship"\n'
           '  set presenter notes of s to "Two minutes"\n end tell\nend tell')
    assert osa(b, 'tell application "Keynote" to get object text of default body item of slide 2 of document 1') == "Hire\nShip"
    assert osa(b, 'tell application "Keynote" to get name of base slide of slide 2 of document 1') == "Title & Bullets"
    assert osa(b, 'tell application "Keynote" to get slide number of slide 2 of document 1') == "2"
    assert osa(b, 'tell application "Keynote" to get presenter notes of every slide of document 1') == ", Two minutes"
    assert osa(b, 'tell application "Keynote" to get name of every master slide of document 1').startswith("Title, Title & Photo")
    osa(b, 'tell application "Keynote" to set base layout of slide 2 of document 1 to slide layout "Bullets" of document 1')
    with pytest.raises(AppleScriptError, match="“title showing” is false"):
        osa(b, 'tell application "Keynote" to get object text of default title item of slide 2 of document 1')
    osa(b, 'tell application "Keynote" to delete slide 1 of document 1')
    assert osa(b, 'tell application "Keynote" to count of slides of document 1') == "1"
    osa(b, 'tell application "Keynote" to set document theme of document 1 to theme "Editorial"')
    assert b.app_state("Keynote")["documents"][0]["theme"] == "Editorial"


def test_applescript_exports_read_back(b: SimBackend) -> None:
    from pptx import Presentation

    deck(b, ["Quarterly Review", "Revenue", "Next Steps"], "Basic Black")
    osa(b, 'tell application "Keynote" to set presenter notes of slide 2 of document 1 to "Up 10 percent"')
    osa(b, 'tell application "Keynote" to set object text of default body item of slide 2 of document 1 to "EMEA" & linefeed & "APAC"')
    osa(b, 'tell application "Keynote" to export document 1 to file ((path to documents folder as text) & "q.pptx") as Microsoft PowerPoint')
    osa(b, 'tell application "Keynote" to export document 1 to POSIX file "/Users/user/Documents/q.pdf" as PDF')
    osa(b, 'tell application "Keynote" to export document 1 to POSIX file "/Users/user/Documents/qi" as slide images '
           'with properties {image format:JPEG}')
    assert getter(b, "pptx_slides", path="~/Documents/q.pptx") == [
        {"title": "Quarterly Review", "body": "", "notes": ""},
        {"title": "Revenue", "body": "EMEA\nAPAC", "notes": "Up 10 percent"},
        {"title": "Next Steps", "body": "", "notes": ""}]
    prs = Presentation(str(b.home / "Documents" / "q.pptx"))
    assert [s.slide_layout.name for s in prs.slides] == ["Title Slide", "Title and Content", "Title and Content"]
    assert str(prs.slides[0].background.fill.fore_color.rgb) == "000000"
    assert getter(b, "pdf_page_count", path="~/Documents/q.pdf") == 3
    assert getter(b, "pdf_text", path="~/Documents/q.pdf", page=2) == "Revenue\nEMEA\nAPAC"
    assert sorted(p.name for p in (b.home / "Documents" / "qi").iterdir()) == [
        "Untitled.001.jpeg", "Untitled.002.jpeg", "Untitled.003.jpeg"]


def test_applescript_save_close_open_and_routing(b: SimBackend) -> None:
    deck(b, ["Alpha", "Beta"])
    osa(b, 'tell application "Keynote" to save document 1 in POSIX file "/Users/user/Desktop/Deck.key"')
    osa(b, 'tell application "Keynote" to close every document saving no')
    assert osa(b, 'tell application "Keynote" to count of documents') == "0"
    assert b.run_shell("open ~/Desktop/Deck.key").exit_code == 0
    assert osa(b, 'tell application "Keynote" to get name of front document') == "Deck"
    assert osa(b, 'tell application "Keynote" to get object text of default title item of slide 2 of front document') == "Beta"
    assert b.desktop.active is b.app("Keynote")
    b.run_shell("open ~/Desktop/Deck.key")  # opening it again brings the same document forward
    assert osa(b, 'tell application "Keynote" to count of documents') == "1"


def test_bad_input_names_what_was_wrong(b: SimBackend) -> None:
    with pytest.raises(AppleScriptError, match='Can’t get theme "Neon". Keynote has the themes Basic White, Basic Black'):
        osa(b, 'tell application "Keynote" to make new document with properties {document theme:"Neon"}')
    deck(b, ["x"])
    with pytest.raises(AppleScriptError, match="Keynote cannot export as 'QuickTime movie'; it exports as PDF, "
                                               "Microsoft PowerPoint, slide images"):
        osa(b, 'tell application "Keynote" to export document 1 to POSIX file "/Users/user/x.mov" as QuickTime movie')
    with pytest.raises(AppleScriptError, match="image format 'GIF' is not supported"):
        osa(b, 'tell application "Keynote" to export document 1 to POSIX file "/Users/user/imgs" as slide images '
               'with properties {image format:"GIF"}')
    with pytest.raises(AppleScriptError, match='Can’t get master slide "Two Columns"'):
        osa(b, 'tell application "Keynote" to make new slide at end of slides of document 1 with properties {base slide:"Two Columns"}')
    (b.home / "Documents" / "bad.key").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(AppleScriptError, match="bad.key: not an iWork document"):
        osa(b, 'tell application "Keynote" to open POSIX file "/Users/user/Documents/bad.key"')
    write_document(b.home / "Documents" / "wrong.key", "keynote", {"theme": "Basic White", "slides": [{"layout": "Nope"}]},
                   b.current_desktop().home_files)
    b.desktop.open_path(b.home / "Documents" / "wrong.key")
    assert "slides[0] needs a 'layout' from Title, Title & Photo" in b.accessibility_tree()
    write_document(b.home / "Documents" / "text.pages", "pages", {"body text": ""}, b.current_desktop().home_files)
    with pytest.raises(AppleScriptError, match="text.pages: is a Pages document, expected Keynote"):
        osa(b, 'tell application "Keynote" to open POSIX file "/Users/user/Documents/text.pages"')
    (b.home / "Documents" / "fake.pptx").write_text("no")
    with pytest.raises(GetterError, match="fake.pptx is not a PowerPoint .pptx deck"):
        getter(b, "pptx_slides", path="~/Documents/fake.pptx")
    with pytest.raises(GetterError, match="field must be title, body or notes"):
        getter(b, "pptx_slides", path="~/Documents/fake.pptx", field="subtitle")
    assert osa(b, 'tell application "Keynote" to count of documents') == "1"

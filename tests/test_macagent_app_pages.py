"""Pages in the MacAgent sim: the template chooser, editing with paragraph styles and font size, the
save and export sheets, AppleScript per Pages' dictionary, exports read back with pypdf/python-docx,
document routing (``open``, Finder) and bad input (a corrupt .pages, unknown templates and formats)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from mmenvs.core.confined import ConfinedDir

from mmenvs.macagent.applescript.errors import AppleScriptError
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.backends.sim.apps.iwork import IWorkFileError, read_document, write_document
from mmenvs.macagent.backends.sim.apps.pages import PagesModel, word_count
from mmenvs.macagent.checkpoints import GETTERS, GetterContext, GetterError
from test_macagent_sim import click, elements


def osa(b: SimBackend, src: str) -> str:
    return b.run_applescript(src)


def new_doc(b: SimBackend, text: str = "", template: str = "Blank") -> None:
    b.run_applescript(f'tell application "Pages" to make new document with properties '
                      f'{{document template:template "{template}", body text:"{text}"}}')


def getter(b: SimBackend, name: str, **args):
    return GETTERS[name](GetterContext(b), **args)


# ---------------------------------------------------------------------------------------------- GUI
def test_template_chooser_arrows_and_return_create_a_document(b: SimBackend) -> None:
    b.open_app("Pages")
    assert [e[1] for e in elements(b) if e[0] == "AXWindow"] == ["Choose a Template"]
    assert 'AXButton "Blank" [' in b.accessibility_tree() and "selected" in [e for e in elements(b) if e[1] == "Blank"][0][4]
    b.press("right")
    b.press("right")
    b.press("return")
    docs = b.app_state("Pages")["documents"]
    assert [(d["name"], d["template"], d["body_text"]) for d in docs] == [("Untitled", "Blank Black", "")]


def test_chooser_escape_creates_nothing_and_double_click_picks_a_template(b: SimBackend) -> None:
    b.open_app("Pages")
    b.press("esc")
    assert b.app("Pages").documents == [] and b.app("Pages").windows == []
    b.hotkey("command", "n")
    click(b, "AXButton", "Essay", clicks=2)
    (doc,) = b.app_state("Pages")["documents"]
    assert doc["template"] == "Essay"
    assert doc["body_text"].split("\n") == ["Essay Title", "Author Name", "Begin your essay here."]
    assert doc["paragraph_styles"] == ["Title", "Subtitle", "Body"]


def test_typing_styles_font_size_and_word_count(b: SimBackend) -> None:
    b.open_app("Pages")
    b.press("return")
    b.type_text("Quarterly Report\nSales grew by ten percent.\nNext steps")
    assert 'AXStaticText "9 words"' in b.accessibility_tree()
    b.hotkey("command", "up")  # the first paragraph
    click(b, "AXPopUpButton", "Paragraph Style")
    click(b, "AXMenuItem", "Title")
    b.press("down")
    b.press("down")  # the third paragraph
    click(b, "AXPopUpButton", "Paragraph Style")
    click(b, "AXMenuItem", "Heading")
    click(b, "AXButton", "Bigger")
    click(b, "AXButton", "Bigger")
    b.hotkey("command", "-")
    (doc,) = b.app_state("Pages")["documents"]
    assert doc["paragraph_styles"] == ["Title", "Body", "Heading"]
    assert doc["font_size"] == 13.0 and doc["word_count"] == 9 and doc["modified"] is True
    assert 'AXPopUpButton "Paragraph Style" value="Heading"' in b.accessibility_tree()
    assert 'AXStaticText "13 pt"' in b.accessibility_tree()


def test_save_sheet_writes_a_pages_document_and_replace_asks(b: SimBackend) -> None:
    (b.home / "Documents" / "Memo.pages").write_bytes(b"old")
    b.open_app("Pages")
    b.press("return")
    b.type_text("Lunch moved to 1 pm.")
    b.hotkey("command", "s")
    assert any(e[0] == "AXSheet" and e[1] == "Save" for e in elements(b))
    b.hotkey("command", "a")
    b.type_text("Memo")
    b.press("return")
    assert (b.home / "Documents" / "Memo.pages").read_bytes() == b"old"  # the Replace alert waits
    click(b, "AXButton", "Replace")
    content = read_document(b.home / "Documents" / "Memo.pages", "pages", b.current_desktop().home_files)
    assert content == {"template": "Blank", "body text": "Lunch moved to 1 pm.", "paragraph styles": ["Body"], "font size": 12.0}
    (doc,) = b.app_state("Pages")["documents"]
    assert doc["name"] == "Memo" and doc["modified"] is False and doc["path"].endswith("/Documents/Memo.pages")


def test_export_sheet_from_the_file_menu_writes_word(b: SimBackend) -> None:
    import docx

    new_doc(b, "Agenda")
    b.open_app("Pages")
    click(b, "AXMenuBarItem", "File")
    click(b, "AXMenuItem", "Export To Word…")
    assert 'AXRadioButton "Word"' in b.accessibility_tree() and "Microsoft Word (.docx)" in b.accessibility_tree()
    b.hotkey("command", "a")
    b.type_text("agenda")
    b.press("return")
    d = docx.Document(str(b.home / "Documents" / "agenda.docx"))
    assert [p.text for p in d.paragraphs] == ["Agenda"]


def test_closing_modified_document_asks_and_dont_save_discards(b: SimBackend) -> None:
    b.open_app("Pages")
    b.press("return")
    b.type_text("draft")
    b.hotkey("command", "w")
    assert any(e[0] == "AXSheet" for e in elements(b))
    click(b, "AXButton", "Don’t Save")
    assert b.app("Pages").documents == [] and list((b.home / "Documents").iterdir()) == []


def test_paragraph_styles_follow_edits() -> None:
    m = PagesModel("Blank", "Title\nBody", ["Title", "Body"])
    m.set_text("Title\nNew line\nBody")  # a paragraph inserted in the middle is Body
    assert m.styles == ["Title", "Body", "Body"]
    m.set_text("Title\nNew line")  # the last paragraph removed
    assert m.styles == ["Title", "Body"]
    m.set_text("Big Title\nNew line")  # an edited paragraph keeps its style
    assert m.styles == ["Title", "Body"]
    assert word_count("It's a well-known fact: 3 dogs.") == 6


# ---------------------------------------------------------------------------------------------- AppleScript
def test_applescript_documents_body_text_and_templates(b: SimBackend) -> None:
    assert osa(b, 'tell application "Pages" to get name of templates').startswith("Blank, Blank Landscape, Blank Black")
    ref = osa(b, 'tell application "Pages" to make new document with properties {document template:template "Report"}')
    assert ref == 'document "Untitled" of application "Pages"'
    assert osa(b, 'tell application "Pages" to get name of document template of document 1') == "Report"
    osa(b, 'tell application "Pages" to set body text of document 1 to "One two three." & linefeed & "Four five."')
    assert osa(b, 'tell application "Pages" to count of words of body text of document 1') == "5"
    assert osa(b, 'tell application "Pages" to get paragraph 2 of body text of document 1') == "Four five."
    assert osa(b, 'tell application "Pages" to get modified of document 1') == "true"
    new_doc(b, "second")
    assert osa(b, 'tell application "Pages" to count of documents') == "2"
    assert osa(b, 'tell application "Pages" to get name of every document') == "Untitled 2, Untitled"


def test_applescript_save_close_and_open_round_trip(b: SimBackend) -> None:
    new_doc(b, "Keep this")
    osa(b, 'tell application "Pages" to save document 1 in file ((path to documents folder as text) & "Keep")')
    assert (b.home / "Documents" / "Keep.pages").is_file()  # the suffix is added
    assert osa(b, 'tell application "Pages" to get {name, modified} of document 1') == "Keep, false"
    osa(b, 'tell application "Pages" to set body text of document 1 to "Changed"')
    osa(b, 'tell application "Pages" to close document 1 saving no')
    assert osa(b, 'tell application "Pages" to count of documents') == "0"
    assert read_document(b.home / "Documents" / "Keep.pages", None, b.current_desktop().home_files)["body text"] == "Keep this"
    osa(b, 'tell application "Pages" to open POSIX file "/Users/user/Documents/Keep.pages"')
    assert osa(b, 'tell application "Pages" to get body text of document 1') == "Keep this"
    osa(b, 'tell application "Pages" to set body text of document 1 to "Changed"')
    osa(b, 'tell application "Pages" to close document 1 saving yes')
    assert read_document(b.home / "Documents" / "Keep.pages", None, b.current_desktop().home_files)["body text"] == "Changed"


def test_applescript_exports_read_back(b: SimBackend) -> None:
    import docx

    new_doc(b, "Status Report")
    osa(b, 'tell application "Pages" to set body text of document 1 to "Status Report" & linefeed & "All systems nominal."')
    b.app("Pages").documents[0].model.styles[0] = "Title"
    osa(b, 'tell application "Pages" to export document 1 to POSIX file "/Users/user/Desktop/s.pdf" as PDF')
    osa(b, 'tell application "Pages" to export document 1 to file ((path to desktop as text) & "s.docx") as Microsoft Word')
    osa(b, 'tell application "Pages" to export document 1 to POSIX file "/Users/user/Desktop/s.txt" as unformatted text')
    osa(b, 'tell application "Pages" to export document 1 to POSIX file "/Users/user/Desktop/s.epub" as EPUB')
    assert getter(b, "pdf_text", path="~/Desktop/s.pdf") == "Status Report\nAll systems nominal."
    assert getter(b, "pdf_page_count", path="~/Desktop/s.pdf") == 1
    assert getter(b, "docx_paragraphs", path="~/Desktop/s.docx", with_style=True) == [
        {"style": "Title", "text": "Status Report"}, {"style": "Normal", "text": "All systems nominal."}]
    assert docx.Document(str(b.home / "Desktop" / "s.docx")).styles["Normal"].font.size.pt == 12
    assert (b.home / "Desktop" / "s.txt").read_text() == "Status Report\nAll systems nominal.\n"
    with zipfile.ZipFile(b.home / "Desktop" / "s.epub") as z:
        assert z.namelist()[0] == "mimetype" and z.read("mimetype") == b"application/epub+zip"
        assert z.getinfo("mimetype").compress_type == zipfile.ZIP_STORED
        chapter = z.read("OEBPS/chapter.xhtml").decode()
    assert "<h1>Status Report</h1>" in chapter and "<p>All systems nominal.</p>" in chapter
    assert b.app("Pages").documents[0].modified is True  # exporting does not save


def test_applescript_bad_input_names_what_was_wrong(b: SimBackend) -> None:
    with pytest.raises(AppleScriptError, match=r'Pages got an error: Can’t get template "Fancy"\.'):
        osa(b, 'tell application "Pages" to make new document with properties {document template:template "Fancy"}')
    with pytest.raises(AppleScriptError, match=r'Can’t get template "Fancy"\. Pages has the templates Blank, Blank Landscape'):
        osa(b, 'tell application "Pages" to make new document with properties {document template:"Fancy"}')
    new_doc(b, "x")
    with pytest.raises(AppleScriptError, match="cannot export as 'Microsoft PowerPoint'; it exports as PDF, Microsoft Word"):
        osa(b, 'tell application "Pages" to export document 1 to POSIX file "/Users/user/x.pptx" as "Microsoft PowerPoint"')
    with pytest.raises(AppleScriptError, match="Can’t export to “/etc/x.pdf”: .*outside the home folder"):
        osa(b, 'tell application "Pages" to export document 1 to POSIX file "/etc/x.pdf" as PDF')
    with pytest.raises(AppleScriptError, match="give a format with “as”"):
        osa(b, 'tell application "Pages" to export document 1 to POSIX file "/Users/user/x.pdf"')
    with pytest.raises(AppleScriptError, match="has never been saved"):
        osa(b, 'tell application "Pages" to save document 1')
    with pytest.raises(AppleScriptError, match="read-only"):
        osa(b, 'tell application "Pages" to set name of document 1 to "Other"')
    with pytest.raises(AppleScriptError, match="no such file"):
        osa(b, 'tell application "Pages" to open POSIX file "/Users/user/Documents/missing.pages"')
    (b.home / "Documents" / "broken.pages").write_text("not a zip")
    with pytest.raises(AppleScriptError, match="broken.pages: not an iWork document"):
        osa(b, 'tell application "Pages" to open POSIX file "/Users/user/Documents/broken.pages"')
    assert osa(b, 'tell application "Pages" to count of documents') == "1"


# ---------------------------------------------------------------------------------------------- files and getters
def test_open_routes_pages_documents_and_corrupt_ones_alert(b: SimBackend) -> None:
    write_document(b.home / "Documents" / "Plan.pages", "pages",
                   {"template": "Blank", "body text": "Step one", "paragraph styles": ["Heading"], "font size": 14},
                   b.current_desktop().home_files)
    out = b.run_shell("open ~/Documents/Plan.pages")
    assert out.exit_code == 0
    (doc,) = b.app_state("Pages")["documents"]
    assert (doc["name"], doc["body_text"], doc["paragraph_styles"], doc["font_size"]) == ("Plan", "Step one", ["Heading"], 14)
    assert b.run_shell("unzip -p ~/Documents/Plan.pages Index/Document.json").stdout.count('"body text": "Step one"') == 1
    with zipfile.ZipFile(b.home / "Documents" / "bad.pages", "w") as z:
        z.writestr("Index/Document.json", '{"kind": "pages", "format": 1, "content": {"body text": 5}}')
    b.desktop.open_path(b.home / "Documents" / "bad.pages")
    tree = b.accessibility_tree()
    assert "The document “bad.pages” could not be opened." in tree and "field 'body text' must be text" in tree
    assert len(b.app("Pages").documents) == 1


def test_read_document_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(IWorkFileError, match="nope.pages: no such document"):
        read_document(tmp_path / "nope.pages", None, ConfinedDir(tmp_path))


def test_getters_reject_files_of_the_wrong_kind(b: SimBackend) -> None:
    (b.home / "Desktop" / "fake.pdf").write_text("hello")
    (b.home / "Desktop" / "fake.docx").write_text("hello")
    with pytest.raises(GetterError, match="fake.pdf is not a readable PDF"):
        getter(b, "pdf_text", path="~/Desktop/fake.pdf")
    with pytest.raises(GetterError, match="fake.docx is not a Word .docx document"):
        getter(b, "docx_paragraphs", path="~/Desktop/fake.docx")
    assert getter(b, "pdf_text", path="~/Desktop/missing.pdf") is None
    write_document(b.home / "Desktop" / "n.pages", "pages", {"body text": "x", "paragraph styles": ["Body"]}, b.current_desktop().home_files)
    assert getter(b, "iwork_document", path="~/Desktop/n.pages", field="body text") == "x"
    with pytest.raises(GetterError, match="has no 'title' in field path"):
        getter(b, "iwork_document", path="~/Desktop/n.pages", field="title")
    with pytest.raises(GetterError, match="fake.pdf is not an iWork document"):
        getter(b, "iwork_document", path="~/Desktop/fake.pdf")


def test_as_is_the_export_parameter_but_still_coerces_elsewhere(b: SimBackend) -> None:
    # ``export … as PDF``: the command's dictionary has an ``as`` label, so ``as`` starts that parameter
    # (as the real compiler reads it); inside parentheses and in commands without the label it coerces
    new_doc(b, "x")
    osa(b, 'tell application "Pages" to export document 1 to POSIX file ("/Users/user/Desktop/" & (2 as text) & ".pdf") as PDF')
    assert (b.home / "Desktop" / "2.pdf").read_bytes().startswith(b"%PDF-")
    assert osa(b, 'tell application "Pages" to get (count of documents) as text') == "1"
    assert osa(b, 'set n to 3 as text\nclass of n') == "text"
    with pytest.raises(AppleScriptError, match="The variable Portable is not defined|Expected end of line"):
        osa(b, 'tell application "Pages" to export document 1 to POSIX file "/Users/user/y.pdf" as Portable')


def test_close_without_saving_argument_asks_on_screen(b: SimBackend) -> None:
    new_doc(b, "unsaved work")
    osa(b, 'tell application "Pages" to close document 1')  # ``saving ask``: the alert appears, nothing is lost
    assert osa(b, 'tell application "Pages" to count of documents') == "1"
    assert "Do you want to save the changes made to the document “Untitled”?" in b.accessibility_tree()
    click(b, "AXButton", "Don’t Save")
    assert osa(b, 'tell application "Pages" to count of documents') == "0"

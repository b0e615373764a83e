"""The sim's skill CLIs of helper A — ``himalaya``, ``remindctl``, ``memo``, ``obsidian-cli``, ``clawhub`` —
driven as an agent drives them: ``gym.make("MacAgent-v0")`` and ```` ```bash ```` actions, over the apps'
state (Mail, Reminders, Notes, Obsidian vaults, the task's offline registry pages). Output formats, exit
codes and error words are compared with the tools' documented behaviour; the skill library
(``~/.openclaw/skills/<name>/SKILL.md``) and the hybrid action description are checked; attack tests
cover symlinks in vaults and install folders, path traversal, huge arguments and stdin."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from email import message_from_string

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401  (registers the env ids)
from mmenvs.macagent.skills import library, parse_skill

NOW = datetime(2026, 4, 13, 9, 41)
REG = "https://clawhub.ai/api/v1/skills/"


def _task(tid: str = "skills-a", apps: tuple[str, ...] = ("Terminal",), setup: list | None = None,
          checkpoints: list | None = None, solution: list | None = None, web_pages: dict | None = None) -> dict:
    data = {"id": tid, "instruction": "Use the skill CLIs.", "category": "Productivity", "apps": list(apps),
            "reference_time": NOW.strftime("%Y-%m-%dT%H:%M:%S"), "setup": setup or [],
            "checkpoints": checkpoints or [{"name": "noop", "tag": "app_state",
                                            "getter": {"type": "shell", "command": "echo ok"},
                                            "metric": {"type": "equals", "expected": "ok"}}],
            "reference_solution": solution or [_bash("echo ok")]}
    if web_pages:
        data["web_pages"] = web_pages
    return data


def _bash(code: str) -> str:
    return "```bash\n" + code + "\n```"


@pytest.fixture(scope="module")
def module_env():
    e = gym.make("MacAgent-v0").unwrapped
    yield e
    e.close()


@pytest.fixture
def env(module_env):
    module_env.reset(options={"task": _task()})
    return module_env


def sh(env, code: str) -> str:
    """stdout of ``code`` (stderr dropped), run as the agent runs it."""
    obs, *_ = env.step(_bash(f"{{ {code}\n}} 2>/dev/null"))
    text = obs["text"]
    assert "[exit code" in text, text
    return text.rsplit("[exit code", 1)[0]


def run(env, code: str) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of one command, each captured into a file of the home and read back."""
    env.step(_bash(f"{{ {code}\n}} > ~/.o 2> ~/.e; echo $? > ~/.rc"))
    home = env.backend.home
    out = (home / ".o").read_text()
    err = (home / ".e").read_text()
    rc = int((home / ".rc").read_text())
    return out, err, rc


def app(env, name: str):
    return env.backend.app(name)


# ----------------------------------------------------------------------------------- skill library
def test_skill_md_files_are_in_the_home_and_listed_by_the_hybrid_description(env) -> None:
    names = {s.name for s in library()}
    assert {"apple-notes", "apple-reminders", "obsidian", "himalaya", "clawhub"} <= names
    mine = {"apple-notes": "memo", "apple-reminders": "remindctl", "obsidian": "obsidian-cli", "himalaya": "himalaya",
            "clawhub": "clawhub"}
    for name, binary in mine.items():
        text = sh(env, f"cat ~/.openclaw/skills/{name}/SKILL.md")
        skill = parse_skill(text, name)
        assert skill.name == name and skill.bins == (binary,) and f"`{binary}" in text
        # the skill's tool is on the shell's PATH and answers --help with status 0
        out, _err, rc = run(env, f"command -v {binary} >/dev/null && {binary} --help")
        assert rc == 0 and out.strip(), (binary, out)
    desc = env.action_description("hybrid")
    assert "<available_skills>" in desc
    for name in mine:
        assert f"<name>{name}</name>" in desc and f"<location>~/.openclaw/skills/{name}/SKILL.md</location>" in desc
    assert "<available_skills>" not in env.action_description("pyautogui")
    # a fresh episode has them again even after the agent deleted them
    sh(env, "rm -rf ~/.openclaw")
    env.reset(options={"task": _task()})
    assert sh(env, "ls ~/.openclaw/skills").split() == sorted(s.name for s in env.backend.skills())


def test_skill_md_front_matter_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match="front matter"):
        parse_skill("# no front matter\n", "x/SKILL.md")
    with pytest.raises(ValueError, match="'name'"):
        parse_skill("---\nname: Bad Name\ndescription: d\n---\n", "x/SKILL.md")
    with pytest.raises(ValueError, match="'metadata'"):
        parse_skill("---\nname: ok\ndescription: d\nmetadata: {not json\n---\n", "x/SKILL.md")


# ----------------------------------------------------------------------------------- himalaya
def _seed_mail(env, n: int = 25) -> None:
    mail = app(env, "Mail")
    for i in range(n):
        sec = i % 3 == 0
        mail.add_message(f"Security Team <alerts@security.example.com>" if sec else f"news{i}@letters.example.org",
                         f"Security alert {i}" if sec else f"Weekly newsletter {i}", f"Body {i}: use code {100000 + i}",
                         date=datetime(2026, 4, 1, 8, 0) + timedelta(hours=i))
    mail.add_message("Bank <noreply@bank.example.com>", "Your verification code is 482913", "Code 482913.",
                     date=datetime(2026, 4, 12, 9, 0))


def test_himalaya_envelope_list_pages_json_and_table(env) -> None:
    _seed_mail(env)
    rows = json.loads(sh(env, "himalaya envelope list --folder Inbox --page-size 100 -o json"))
    assert len(rows) == 26
    assert rows[0]["subject"] == "Your verification code is 482913"  # newest first
    assert set(rows[0]) == {"id", "flags", "subject", "from", "to", "date", "has_attachment"}
    assert rows[0]["from"] == {"name": "Bank", "addr": "noreply@bank.example.com"}
    assert rows[0]["to"]["addr"] == "user@icloud.com" and rows[0]["date"] == "2026-04-12 09:00+00:00"
    assert rows[0]["flags"] == [] and rows[0]["has_attachment"] is False
    dates = [r["date"] for r in rows]
    assert dates == sorted(dates, reverse=True)
    # 10 a page by default; the third page has the last 6; a page past the last is an error (status 1)
    assert len(json.loads(sh(env, "himalaya envelope list -o json"))) == 10
    third = json.loads(sh(env, "himalaya envelope list -f Inbox -p 3 -o json"))
    assert [r["id"] for r in third] == [r["id"] for r in rows[20:]]
    out, err, rc = run(env, "himalaya envelope list --folder Inbox --page 4 -o json")
    assert rc == 1 and out == "" and "out of bounds" in err and err.startswith("Error:")
    # the table: header, rule, one row per envelope; '*' marks unseen
    table = sh(env, "himalaya envelope list --page-size 2").splitlines()
    cells = [[c.strip() for c in line.split("|")[1:-1]] for line in table]
    assert cells[0] == ["ID", "FLAGS", "SUBJECT", "FROM", "DATE"] and set(table[1]) == {"|", "-"} and len(table) == 4
    assert cells[2][2:] == ["Your verification code is 482913", "Bank", "2026-04-12 09:00+00:00"]
    assert cells[2][1] == "*" and cells[3][3] == "Security Team"
    assert len({len(line) for line in table}) == 1  # columns padded to one width
    # the benchmark's "search across all pages" loop collects every envelope
    loop = ('all=$(for p in {1..50}; do out=$(himalaya envelope list --folder Inbox --page "$p" --page-size 7 -o json '
            '2>/dev/null || true); [ -z "$out" ] && break; [ "$out" = "[]" ] && break; echo "$out"; done); '
            "printf '%s\\n' \"$all\" | jq -s 'add | length'")
    assert sh(env, loop).strip() == "26"


def test_himalaya_search_query_grammar(env) -> None:
    _seed_mail(env)

    def subjects(query: str) -> list[str]:
        return [r["subject"] for r in json.loads(sh(env, f"himalaya envelope list -s 100 -o json {query}"))]

    assert subjects("subject verification") == ["Your verification code is 482913"]
    sec = subjects("from security.example.com")
    assert len(sec) == 9 and all(s.startswith("Security alert") for s in sec)
    assert len(subjects('body "use code"')) == 25
    assert subjects("from security.example.com and not subject 9") == [s for s in sec if "9" not in s]
    assert set(subjects("subject 'alert 3' or subject 'newsletter 4'")) == {"Security alert 3", "Weekly newsletter 4"}
    assert subjects("'(subject \"alert 0\" or subject \"alert 3\") and from security'") == ["Security alert 3", "Security alert 0"]
    assert subjects("'(' subject 'alert 0' ')'") == ["Security alert 0"]
    assert subjects("after 2026-04-11") == ["Your verification code is 482913"]
    asc = subjects("from security order by date asc")
    assert asc == list(reversed(sec))
    assert subjects("subject alert order by subject")[:2] == ["Security alert 0", "Security alert 12"]
    out, err, rc = run(env, "himalaya envelope list subject")
    assert rc == 1 and "cannot parse search query" in err
    out, err, rc = run(env, "himalaya envelope list colour red")
    assert rc == 1 and "unexpected token colour" in err


def test_himalaya_read_export_move_flag_send(env) -> None:
    _seed_mail(env)
    mail = app(env, "Mail")
    otp = json.loads(sh(env, "himalaya envelope list -o json subject verification"))[0]
    text = sh(env, f"himalaya message read --folder Inbox {otp['id']}")
    head, _, body = text.partition("\n\n")
    assert head.splitlines() == ["From: Bank <noreply@bank.example.com>", "To: user@icloud.com",
                                 "Subject: Your verification code is 482913"]
    assert body.strip() == "Code 482913."
    # reading marked it seen; --preview does not mark
    assert json.loads(sh(env, "himalaya envelope list -o json subject verification"))[0]["flags"] == ["Seen"]
    raw = sh(env, f"himalaya message export --folder Inbox {otp['id']} --full")
    msg = message_from_string(raw)
    assert msg["Subject"] == "Your verification code is 482913" and msg["From"] == "Bank <noreply@bank.example.com>"
    assert msg["Date"] == "Sun, 12 Apr 2026 09:00:00 +0000" and msg.get_payload().strip() == "Code 482913."
    out, err, rc = run(env, f"himalaya message export --folder Inbox {otp['id']} --full -d ~/Desktop/otp.eml")
    assert rc == 0 and "successfully exported" in out
    assert (env.backend.home / "Desktop" / "otp.eml").read_text() == raw
    # move every newsletter to Archive (the benchmark's reference loop), then check both folders
    ids = [r["id"] for r in json.loads(sh(env, "himalaya envelope list -s 100 -o json subject newsletter"))]
    out, err, rc = run(env, f"himalaya message move --folder Inbox Archive {' '.join(ids)}")
    assert rc == 0 and out == "Message(s) successfully moved from Inbox to Archive!\n"
    assert [m["subject"] for m in mail.messages("Inbox") if "newsletter" in m["subject"]] == []
    assert len(mail.messages("Archive")) == len(ids) == 16
    assert len(json.loads(sh(env, "himalaya envelope list -f archive -s 100 -o json"))) == 16
    # flags
    sec_id = json.loads(sh(env, "himalaya envelope list -o json subject 'alert 3'"))[0]["id"]
    sh(env, f"himalaya flag add {sec_id} flagged seen")
    assert json.loads(sh(env, "himalaya envelope list -o json subject 'alert 3'"))[0]["flags"] == ["Seen", "Flagged"]
    assert json.loads(sh(env, "himalaya envelope list -o json flag flagged"))[0]["id"] == sec_id
    # send: a raw message on stdin, or a template piped in; both land in Sent
    out, err, rc = run(env, "printf 'To: bob@example.com\\nCc: carol@example.com\\nSubject: Hi Bob\\n\\nSee you at 5.\\n' "
                            "| himalaya message send")
    assert rc == 0 and out == "Message successfully sent!\n"
    sh(env, "himalaya template write -H 'To: dan@example.com' -H 'Subject: Report' 'Attached.' | himalaya message send")
    sent = {m["subject"]: m for m in mail.messages("Sent")}
    assert sent["Hi Bob"]["to"] == ["bob@example.com"] and sent["Hi Bob"]["cc"] == ["carol@example.com"]
    assert sent["Hi Bob"]["content"] == "See you at 5." and sent["Report"]["content"] == "Attached."
    out, err, rc = run(env, "printf 'Subject: nobody\\n\\nx\\n' | himalaya message send")
    assert rc == 1 and "without a recipient" in err
    out, err, rc = run(env, "printf 'To: not-an-address\\nSubject: x\\n\\nx\\n' | himalaya message send")
    assert rc == 1 and "invalid recipient address not-an-address" in err
    # delete moves to Trash
    sh(env, f"himalaya message delete {sec_id}")
    assert any(m["id"] == sec_id for m in mail.messages("Trash"))


def test_himalaya_errors_as_the_real_cli(env) -> None:
    out, err, rc = run(env, "himalaya envelope list --bogus")
    assert rc == 2 and err.startswith("error: unexpected argument '--bogus' found") and "Usage: himalaya envelope list" in err
    out, err, rc = run(env, "himalaya envelope list -f Nowhere")
    assert rc == 1 and "cannot select folder Nowhere" in err
    out, err, rc = run(env, "himalaya message read 99999")
    assert rc == 1 and "cannot find message 99999" in err
    out, err, rc = run(env, "himalaya envelope list -o yaml")
    assert rc == 2 and "possible values: plain, json" in err
    out, err, rc = run(env, "himalaya envelope list -p x")
    assert rc == 2 and "invalid value 'x'" in err
    out, err, rc = run(env, "himalaya frobnicate")
    assert rc == 2 and "unrecognized subcommand 'frobnicate'" in err
    out, err, rc = run(env, "himalaya message write")
    assert rc == 1 and "template write" in err
    out, err, rc = run(env, "himalaya --version")
    assert rc == 0 and out.startswith("himalaya v1.")
    folders = json.loads(sh(env, "himalaya folder list -o json"))
    assert [f["name"] for f in folders] == ["Inbox", "Drafts", "Sent", "Junk", "Trash", "Archive"]
    assert sh(env, "himalaya folder add Receipts") == "Folder Receipts successfully created!\n"
    assert "Receipts" in [f["name"] for f in json.loads(sh(env, "himalaya folder list -o json"))]


# ----------------------------------------------------------------------------------- remindctl
def test_remindctl_show_filters_and_json(env) -> None:
    rem = app(env, "Reminders")
    rem.add_list("Work")
    rem.add_reminder("Pay rent", due=datetime(2026, 4, 13, 18, 0))
    rem.add_reminder("Old task", list_name="Work", due=datetime(2026, 4, 10, 9, 0))
    rem.add_reminder("Call mom", due=datetime(2026, 4, 14, 10, 0), priority=1)
    rem.add_reminder("Done thing", completed=True)
    assert sh(env, "remindctl").splitlines() == ["[1] [ ] Old task [Work] — Apr 10, 2026 at 9:00 AM",
                                                 "[2] [ ] Pay rent [Reminders] — Apr 13, 2026 at 6:00 PM"]
    titles = lambda f: [r["title"] for r in json.loads(sh(env, f"remindctl {f} --json"))]  # noqa: E731
    assert titles("overdue") == ["Old task"]
    assert titles("tomorrow") == ["Call mom"]
    assert titles("upcoming") == ["Old task", "Pay rent", "Call mom"]  # every open reminder with a due date
    assert titles("week") == ["Pay rent", "Call mom"]  # Sunday 12 to Saturday 18 April; Old task was the week before
    assert titles("o") == ["Old task"] and titles("open") == ["Old task", "Pay rent", "Call mom"]
    assert titles("completed") == ["Done thing"]
    assert titles("all") == ["Old task", "Pay rent", "Call mom", "Done thing"]
    assert titles("2026-04-14") == ["Call mom"]
    assert titles("show all --list Work") == ["Old task"]
    item = json.loads(sh(env, "remindctl tomorrow --json"))[0]
    assert item["dueDate"] == "2026-04-14T10:00:00Z" and item["priority"] == "high" and item["isCompleted"] is False
    assert item["listName"] == "Reminders" and item["dueDateIsAllDay"] is False and len(item["id"]) == 36
    assert sorted(item) == sorted(["id", "title", "notes", "isCompleted", "completionDate", "creationDate",
                                   "lastModifiedDate", "priority", "dueDate", "dueDateIsAllDay", "listID", "listName"])
    plain = sh(env, "remindctl all --plain").splitlines()[0].split("\t")
    assert plain[1:] == ["Work", "0", "none", "2026-04-10T09:00:00.000Z", "Old task"]
    assert sh(env, "remindctl all --quiet") == "4\n"
    assert sh(env, "remindctl list").splitlines() == ["Reminders — 2 reminders", "Work — 1 reminders (1 overdue)"]
    lists = json.loads(sh(env, "remindctl list --json"))
    assert [(x["title"], x["reminderCount"], x["overdueCount"]) for x in lists] == [("Reminders", 2, 0), ("Work", 1, 1)]
    assert sh(env, "remindctl status") == "Reminders access: Full access\n"


def test_remindctl_changes_reach_the_reminders_app(env) -> None:
    rem = app(env, "Reminders")
    out, err, rc = run(env, 'remindctl add --title "Dentist follow-up" --due "2026-04-15 09:30"')
    assert rc == 0 and out == "✓ Dentist follow-up [Reminders] — Apr 15, 2026 at 9:30 AM\n"
    sh(env, 'remindctl list Errands --create; remindctl add "Buy milk" --list Errands --due tomorrow --notes "2 litres" '
            "--priority medium")
    by = {r["name"]: r for r in rem.reminders()}
    assert by["Dentist follow-up"]["due_date"] == datetime(2026, 4, 15, 9, 30)
    assert by["Buy milk"]["list"] == "Errands" and by["Buy milk"]["due_date"] == datetime(2026, 4, 14)
    assert by["Buy milk"]["body"] == "2 litres" and by["Buy milk"]["priority"] == 5
    assert json.loads(sh(env, "remindctl tomorrow --json"))[0]["dueDateIsAllDay"] is True
    rid = sh(env, "remindctl all --json | jq -r '.[] | select(.title == \"Buy milk\") | .id'").strip()
    sh(env, f'remindctl edit {rid[:8]} --title "Buy oat milk" --clear-due')
    by = {r["name"]: r for r in rem.reminders()}
    assert "Buy oat milk" in by and by["Buy oat milk"]["due_date"] is None
    sh(env, f"remindctl complete {rid}")
    assert {r["name"]: r for r in rem.reminders()}["Buy oat milk"]["completed"] is True
    # delete asks first: no answer on stdin refuses (status 1), --force deletes
    out, err, rc = run(env, f"remindctl delete {rid} </dev/null")
    assert rc == 1 and "cancelled" in err and "Buy oat milk" in {r["name"] for r in rem.reminders()}
    assert sh(env, f"remindctl delete {rid} --force") == "Deleted 1 reminder(s)\n"
    assert "Buy oat milk" not in {r["name"] for r in rem.reminders()}
    sh(env, "remindctl list Errands --rename Chores")
    assert "Chores" in rem.lists() and "Errands" not in rem.lists()
    sh(env, "remindctl list Chores --delete")
    assert rem.lists() == ["Reminders"]


def test_remindctl_errors(env) -> None:
    for cmd, code, words in [("remindctl bogus", 64, "Unknown command or filter: bogus"),
                             ("remindctl add", 64, "A title is required"),
                             ("remindctl add x --frob", 64, "Unknown option: --frob"),
                             ("remindctl add x --due someday", 1, "Invalid date: someday"),
                             ("remindctl add x --priority urgent", 1, "Invalid priority: urgent"),
                             ("remindctl add x --list Nope", 1, "List not found: Nope"),
                             ("remindctl edit 42 --title y", 1, "Reminder not found: 42"),
                             ("remindctl complete", 64, "At least one reminder ID is required"),
                             ("remindctl list Reminders --delete", 1, "only reminder list")]:
        out, err, rc = run(env, cmd)
        assert rc == code and err.startswith("Error: ") and words in err, (cmd, rc, err)


# ----------------------------------------------------------------------------------- memo
def _seed_notes(env) -> None:
    notes = app(env, "Notes")
    notes.add_folder("Work")
    notes.add_note("Old Draft", "This draft can be removed.")
    notes.add_note("Q2 Planning Summary", "Capture priorities, budget assumptions, and owners.", folder="Work")


def test_memo_lists_views_and_folders(env) -> None:
    _seed_notes(env)
    assert sh(env, "memo notes") == ("\nFetching notes...\n\nAll your notes:\n\n1. Notes - Old Draft\n"
                                     "2. Work - Q2 Planning Summary\n")
    assert sh(env, "memo notes -f Work").endswith("Your Notes in folder Work:\n\n2. Work - Q2 Planning Summary\n")
    assert "The folder does not exists." in sh(env, "memo notes -f Nowhere")
    assert sh(env, "memo notes -v 2") == "\n# Q2 Planning Summary\n\nCapture priorities, budget assumptions, and owners.\n"
    assert sh(env, "memo notes -v 7") == "\nNote 7 not found.\n"
    assert sh(env, "memo notes -fl") == "\nFolders and subfolders in Notes:\n\nNotes\nWork\n"
    assert sh(env, "echo budget | memo notes -s").endswith("2. Work - Q2 Planning Summary\n")
    # the benchmark's title parser: the part after the last " - "
    titles = sh(env, "memo notes | awk '/^[0-9]+\\./ { line=$0; sub(/^[0-9]+\\. /, \"\", line); n=split(line, parts, \" - \"); "
                     "print parts[n] }'").split("\n")[:-1]
    assert titles == ["Old Draft", "Q2 Planning Summary"]


def test_memo_add_edit_delete_move_export(env) -> None:
    _seed_notes(env)
    notes = app(env, "Notes")
    writer = ("cat > /tmp/memo_add.sh <<'EOF'\n#!/usr/bin/env bash\nprintf '# Quick Note\\n\\nThis is a quick note.\\n' > \"$1\"\n"
              "EOF\nchmod +x /tmp/memo_add.sh")
    sh(env, writer)
    out, err, rc = run(env, 'EDITOR=/tmp/memo_add.sh memo notes --folder "Work" --add')
    assert rc == 0 and out.endswith("\nNote created in 'Work' folder.\n")
    quick = [n for n in notes.notes() if n["name"] == "Quick Note"]
    assert len(quick) == 1 and quick[0]["folder"] == "Work" and quick[0]["body"] == "This is a quick note."
    # an editor that leaves the template as it was cancels
    out, err, rc = run(env, "EDITOR=true memo notes -f Work -a")
    assert rc == 0 and out.endswith("Note creation cancelled.\n") and len(notes.notes()) == 3
    # edit: the number on stdin, the editor gets the note's Markdown and its result is saved
    sh(env, "cat > /tmp/memo_edit.sh <<'EOF'\n#!/usr/bin/env bash\nsed -i 's/Old Draft/Old Draft v2/; $a appended line' \"$1\"\nEOF\n"
            "chmod +x /tmp/memo_edit.sh")
    idx = [n["name"] for n in notes.notes()].index("Old Draft") + 1
    out, err, rc = run(env, f"printf '{idx}\\n' | EDITOR=/tmp/memo_edit.sh memo notes -e")
    assert rc == 0 and "Note updated successfully." in out, (out, err)
    edited = [n for n in notes.notes() if n["name"] == "Old Draft v2"]
    assert edited and edited[0]["body"].endswith("appended line")
    # delete by number (the benchmark's awk + stdin), move by number + folder
    n_old = [n["name"] for n in notes.notes()].index("Old Draft v2") + 1
    sh(env, f"printf '{n_old}\\n' | memo notes --delete")
    assert "Old Draft v2" not in [n["name"] for n in notes.notes()]
    sh(env, "printf '1\\nNotes\\n' | memo notes -m")
    assert notes.notes()[0]["folder"] == "Notes"
    out, err, rc = run(env, "printf '1\\nNowhere\\n' | memo notes -m")
    assert rc == 1 and "The folder 'Nowhere' does not exist." in out
    # export: two confirmations, then one HTML file per note under ~/Desktop/notes/<folder>/
    out, err, rc = run(env, "printf 'y\\n\\n' | memo notes --export")
    assert rc == 0 and f"Exporting to: {env.backend.posix_home}/Desktop/notes/" in out
    exported = sorted(p.relative_to(env.backend.home / "Desktop" / "notes").as_posix()
                      for p in (env.backend.home / "Desktop" / "notes").rglob("*.html"))
    assert len(exported) == 2 and all(n["name"] in "".join(exported) for n in notes.notes())
    page = next((env.backend.home / "Desktop" / "notes").rglob("Q2 Planning Summary.html")).read_text()
    assert "<h1>Q2 Planning Summary</h1>" in page


def test_memo_errors_and_prompts(env) -> None:
    _seed_notes(env)
    out, err, rc = run(env, "memo notes --bogus")
    assert rc == 2 and err.startswith("Usage: memo notes [OPTIONS]") and "No such option: --bogus" in err
    out, err, rc = run(env, "memo notes -a")
    assert rc == 2 and "--add/ must be used indicating a folder" in err
    out, err, rc = run(env, "memo notes -fl -f Work")
    assert rc == 2 and "--flist must be used alone" in err
    out, err, rc = run(env, "memo notes -d </dev/null")
    assert rc == 1 and "Aborted!" in err and "Enter the number of the note you want to delete: " in out
    out, err, rc = run(env, "memo frob")
    assert rc == 2 and "No such command 'frob'." in err
    out, err, rc = run(env, "printf 'x\\n9\\n1\\n' | memo notes -d")  # not a number, out of range, then valid
    assert rc == 0 and "'x' is not a valid integer" in out and "Invalid selection" in out
    assert len(app(env, "Notes").notes()) == 1
    rem = app(env, "Reminders")
    sh(env, "printf 'Buy bread\\n2026-04-20\\n08:00\\n' | memo rem -a")
    assert {r["name"]: r["due_date"] for r in rem.reminders()}["Buy bread"] == datetime(2026, 4, 20, 8, 0)
    assert sh(env, "memo rem").endswith("1. Buy bread | 2026-04-20 08:00:00 | Due on 7 days\n")


# ----------------------------------------------------------------------------------- obsidian-cli
def _vault(env, name: str = "Benchmark"):
    root = env.backend.home / "Documents" / name
    app(env, "Obsidian").register_vault(root)
    return root


def test_obsidian_cli_notes_links_and_frontmatter(env) -> None:
    root = _vault(env)
    out, err, rc = run(env, "obsidian-cli print-default")
    assert rc == 1 and "set-default" in err
    assert sh(env, "obsidian-cli set-default Benchmark") == (f"Default vault set to: Benchmark\nDefault vault path set to: "
                                                              f"{env.backend.posix_home}/Documents/Benchmark\n")
    assert sh(env, "obsidian-cli print-default --path-only") == f"{env.backend.posix_home}/Documents/Benchmark\n"
    sh(env, "c=$(printf '%b' '# Move Me\\n\\nmarker: launch-brief\\n'); obsidian-cli create 'Inbox/Move Me.md' --content \"$c\" --overwrite")
    sh(env, "c=$(printf '%b' '# Ref\\n\\nWiki: [[Inbox/Move Me]] and [[Move Me|alias]]\\nMd: [src](Inbox/Move%20Me.md)\\n'); "
            "obsidian-cli create 'Projects/Ref' --content \"$c\" --vault Benchmark")
    assert (root / "Inbox" / "Move Me.md").read_text() == "# Move Me\n\nmarker: launch-brief"
    assert sh(env, "obsidian-cli list Projects") == "• Ref.md\n"
    assert sh(env, "obsidian-cli list") == "• Inbox/\n• Projects/\n"
    assert sh(env, "obsidian-cli print 'Move Me'") == "# Move Me\n\nmarker: launch-brief\n"  # by name, as Obsidian resolves
    out, err, rc = run(env, "obsidian-cli move 'Inbox/Move Me.md' 'Projects/Move Me.md'")
    assert rc == 0 and not (root / "Inbox" / "Move Me.md").exists() and (root / "Projects" / "Move Me.md").exists()
    ref = (root / "Projects" / "Ref.md").read_text()
    assert "[[Projects/Move Me]]" in ref and "[[Move Me|alias]]" in ref and "[src](Projects/Move%20Me.md)" in ref
    assert "Inbox/Move Me" not in ref
    assert sh(env, "obsidian-cli search-content launch-brief") == "Projects/Move Me.md:3: marker: launch-brief\n"
    # create on a taken name makes "Ref 1", --append appends
    sh(env, "obsidian-cli create Projects/Ref --content other; obsidian-cli create Projects/Ref --content ' more' --append")
    assert (root / "Projects" / "Ref 1.md").read_text() == "other" and ref + " more" == (root / "Projects" / "Ref.md").read_text()
    # front matter
    sh(env, "c=$(printf '%b' '---\\nstatus: active\\nowner: pat\\n---\\n\\n# Meta\\n'); obsidian-cli create Projects/Meta --content \"$c\"")
    sh(env, 'obsidian-cli frontmatter "Projects/Meta.md" --edit --key status --value done --vault Benchmark')
    assert (root / "Projects" / "Meta.md").read_text() == "---\nstatus: done\nowner: pat\n---\n\n# Meta"
    assert sh(env, "obsidian-cli frontmatter Projects/Meta --print") == "status: done\nowner: pat\n"
    sh(env, "obsidian-cli frontmatter Projects/Meta --edit --key due --value '2026-05-01: noon'")
    assert 'due: "2026-05-01: noon"' in (root / "Projects" / "Meta.md").read_text()
    sh(env, "obsidian-cli frontmatter Projects/Meta --delete --key owner")
    assert "owner" not in (root / "Projects" / "Meta.md").read_text()
    assert sh(env, "obsidian-cli delete 'Projects/Ref 1.md'") == "Deleted note: Projects/Ref 1.md\n"
    assert not (root / "Projects" / "Ref 1.md").exists()
    # open shows the note in the Obsidian app
    sh(env, "obsidian-cli open Projects/Meta")
    assert app(env, "Obsidian").open_note == "Projects/Meta.md"
    sh(env, "obsidian-cli daily")
    assert (root / "2026-04-13.md").exists() and app(env, "Obsidian").open_note == "2026-04-13.md"


def test_obsidian_cli_errors(env) -> None:
    _vault(env)
    for cmd, words in [("obsidian-cli print x --vault Nope", 'vault "Nope" is set up'),
                       ("obsidian-cli print missing --vault Benchmark", "cannot find note 'missing'"),
                       ("obsidian-cli create --vault Benchmark", "accepts 1 arg(s), received 0"),
                       ("obsidian-cli frob", 'unknown command "frob"'),
                       ("obsidian-cli create x --vault Benchmark --bogus", "unknown flag: --bogus"),
                       ("obsidian-cli frontmatter x --vault Benchmark", "exactly one of --print, --edit or --delete"),
                       ("obsidian-cli create 'a:b' --vault Benchmark", "a name Obsidian refuses"),
                       ("obsidian-cli list Nope --vault Benchmark", "no such folder")]:
        out, err, rc = run(env, cmd)
        assert rc == 1 and err.startswith("Error: ") and words in err, (cmd, err)


# ----------------------------------------------------------------------------------- clawhub
def _registry() -> dict[str, str]:
    v1 = "---\nname: incident-triage-playbook\ndescription: Triage incidents (v1)\n---\n# Incident triage\n"
    return {
        REG + "incident-triage-playbook": json.dumps({
            "skill": {"slug": "incident-triage-playbook", "displayName": "Incident Triage Playbook",
                      "summary": "Triage production incidents step by step", "tags": {"latest": "1.1.0"}},
            "latestVersion": {"version": "1.1.0"}, "owner": {"handle": "ops-team"}}),
        REG + "incident-triage-playbook/versions": json.dumps({"items": [{"version": "1.1.0"}, {"version": "1.0.0"}]}),
        REG + "incident-triage-playbook/versions/1.0.0": json.dumps(
            {"version": {"version": "1.0.0", "files": [{"path": "SKILL.md"}, {"path": "docs/steps.md"}]}}),
        REG + "incident-triage-playbook/file?path=SKILL.md&version=1.0.0": v1,
        REG + "incident-triage-playbook/file?path=docs%2Fsteps.md&version=1.0.0": "1. Page the on-call.\n",
        REG + "incident-triage-playbook/file?path=SKILL.md&version=1.1.0": v1.replace("(v1)", "(v1.1)"),
        REG + "find-skills": json.dumps({"skill": {"slug": "find-skills", "displayName": "Find Skills",
                                                   "summary": "Discover skills"}, "latestVersion": {"version": "0.2.0"}}),
        REG + "find-skills/file?path=SKILL.md": "---\nname: find-skills\ndescription: Discover skills\n---\n",
        REG + "evil": json.dumps({"skill": {"slug": "evil"}, "latestVersion": {"version": "1.0.0"}}),
        REG + "evil/versions/1.0.0": json.dumps({"version": {"files": [{"path": "../../escape.txt"}]}}),
    }


@pytest.fixture
def reg_env(module_env):
    module_env.reset(options={"task": _task("skills-a-clawhub", web_pages=_registry())})
    return module_env


def test_clawhub_install_at_a_version_list_search(reg_env) -> None:
    env = reg_env
    home = env.backend.home
    out, err, rc = run(env, 'mkdir -p "$HOME/Desktop/skills_1"; clawhub install incident-triage-playbook --version 1.0.0 '
                            '--dir "$HOME/Desktop/skills_1"')
    target = home / "Desktop" / "skills_1" / "incident-triage-playbook"
    assert rc == 0 and out == f"✔ OK. Installed incident-triage-playbook -> {env.backend.posix_home}/Desktop/skills_1/incident-triage-playbook\n"
    assert "name: incident-triage-playbook" in (target / "SKILL.md").read_text() and "(v1)" in (target / "SKILL.md").read_text()
    assert (target / "docs" / "steps.md").read_text() == "1. Page the on-call.\n"
    origin = json.loads((target / ".clawhub" / "origin.json").read_text())
    assert origin["slug"] == "incident-triage-playbook" and origin["installedVersion"] == "1.0.0"
    lock = json.loads((home / ".clawhub" / "lock.json").read_text())  # the workdir is the shell's folder (home)
    assert lock["skills"]["incident-triage-playbook"]["version"] == "1.0.0"
    sh(env, "clawhub install find-skills")
    assert (home / "skills" / "find-skills" / "SKILL.md").exists()
    assert sh(env, "clawhub list") == "incident-triage-playbook  1.0.0\nfind-skills  0.2.0\n"  # the lockfile's order
    assert sh(env, "clawhub search incident").startswith("incident-triage-playbook v1.1.0  Incident Triage Playbook  (")
    assert sh(env, "clawhub search zebra") == "No results.\n"
    out, err, rc = run(env, 'clawhub install incident-triage-playbook --dir "$HOME/Desktop/skills_1"')
    assert rc == 1 and "Already installed" in err and "--force" in err
    # update to latest replaces the files (they still match 1.0.0, so no --force is needed)
    out, err, rc = run(env, 'clawhub update incident-triage-playbook --dir "$HOME/Desktop/skills_1"')
    assert rc == 0 and "updated -> 1.1.0" in out and "(v1.1)" in (target / "SKILL.md").read_text()
    assert "incident-triage-playbook  1.1.0" in sh(env, "clawhub list")
    inspect = sh(env, "clawhub inspect incident-triage-playbook --versions --files --version 1.0.0")
    assert "Owner: ops-team" in inspect and "  docs/steps.md" in inspect and "Latest: 1.1.0" in inspect
    sh(env, "clawhub uninstall find-skills --yes")
    assert not (home / "skills" / "find-skills").exists() and sh(env, "clawhub list") == "incident-triage-playbook  1.1.0\n"


def test_clawhub_errors(reg_env) -> None:
    env = reg_env
    for cmd, words in [("clawhub install nope", "Skill not found: nope"),
                       ("clawhub install incident-triage-playbook --version 9.9.9", "Version not found: 9.9.9"),
                       ("clawhub install '../etc'", "Invalid slug"),
                       ("clawhub install", "missing required argument 'slug'"),
                       ("clawhub install find-skills --bogus", "unknown option '--bogus'"),
                       ("clawhub publish ./x", "not available offline"),
                       ("clawhub uninstall find-skills", "--yes")]:
        out, err, rc = run(env, cmd)
        assert rc == 1 and words in err, (cmd, err)
    assert sh(env, "clawhub list") == "No installed skills.\n"


# ----------------------------------------------------------------------------------- attacks
def test_attack_symlinks_in_vault_and_install_folders_are_never_followed(reg_env, tmp_path) -> None:
    env = reg_env
    outside = tmp_path / "outside.md"
    outside.write_text("host secret")
    root = _vault(env)
    sh(env, "obsidian-cli set-default Benchmark")
    # a note that is a symlink out of the home: not read, not written through, not deleted
    env.step(_bash(f"ln -s {outside} ~/Documents/Benchmark/evil.md; mkdir -p ~/Documents/Benchmark/real; "
                   f"ln -s {tmp_path} ~/Documents/Benchmark/linkdir"))
    for cmd in ("obsidian-cli print evil.md", "obsidian-cli create evil.md --content pwned --overwrite",
                "obsidian-cli create evil.md --content pwned --append", "obsidian-cli delete evil.md",
                "obsidian-cli frontmatter evil.md --edit --key a --value b", "obsidian-cli list linkdir",
                "obsidian-cli create linkdir/x.md --content pwned", "obsidian-cli print ../../../../etc/passwd",
                "obsidian-cli print /etc/passwd", "obsidian-cli move evil.md real/evil.md"):
        out, err, rc = run(env, cmd)
        assert rc == 1 and "host secret" not in out, (cmd, out, err)
    assert outside.read_text() == "host secret" and not (tmp_path / "x.md").exists()
    assert (root / "evil.md").is_symlink()
    # clawhub: a symlinked install folder or lockfile folder is refused, and a registry file path with '..'
    env.step(_bash(f"ln -s {tmp_path} ~/skills"))
    out, err, rc = run(env, "clawhub install find-skills")
    assert rc == 1 and not (tmp_path / "find-skills").exists()
    out, err, rc = run(env, "clawhub install evil --dir ~/Desktop/s")
    assert rc == 1 and "unsafe file path" in err and not (env.backend.home.parent / "escape.txt").exists()
    out, err, rc = run(env, "clawhub install find-skills --dir /etc")
    assert rc != 0 and not (tmp_path / "find-skills").exists()
    # memo's export folder and himalaya's export file as symlinks out of the home
    app(env, "Notes").add_note("Secret", "text")
    env.step(_bash(f"ln -s {tmp_path} ~/Desktop/notes; ln -s {outside} ~/Desktop/m.eml"))
    out, err, rc = run(env, "printf 'y\\n\\n' | memo notes -ex")
    assert rc == 1 and not list(tmp_path.rglob("*.html"))
    app(env, "Mail").add_message("a@b.example.com", "s", "c")
    mid = json.loads(sh(env, "himalaya envelope list -o json"))[0]["id"]
    out, err, rc = run(env, f"himalaya message export {mid} --full -d ~/Desktop/m.eml")
    assert rc == 1 and outside.read_text() == "host secret"
    out, err, rc = run(env, f"himalaya message export {mid} --full -d /etc/x.eml")
    assert rc != 0 and "successfully" not in out


def test_attack_huge_arguments_and_stdin_are_refused_with_an_error(env) -> None:
    # an argument near the OS's bound (128 KiB) is an ordinary answer or error, never a crash or a hang
    big = "$(head -c 100000 /dev/zero | tr '\\0' a)"
    for cmd, code in ((f'himalaya envelope list "subject {big}"', 0), (f'remindctl show "{big}"', 64),
                      (f'obsidian-cli print "{big}" --vault Nope', 1), (f'clawhub search "{big}"', 0),
                      (f'memo notes -f "{big}"', 0), (f'obsidian-cli create "{big}" --vault Nope', 1)):
        out, err, rc = run(env, cmd)
        assert rc == code and "Traceback" not in err, (cmd[:40], rc, err[:300])
    # past it the shell itself refuses to start the command (E2BIG): an observation too
    out, err, rc = run(env, 'himalaya envelope list "$(head -c 300000 /dev/zero | tr \'\\0\' a)"')
    assert rc == 126 and "Argument list too long" in err
    out, err, rc = run(env, "{ printf 'To: a@b.example.com\\nSubject: big\\n\\n'; head -c 1200000 /dev/zero | tr '\\0' a; } "
                            "| himalaya message send")
    assert rc == 1 and "limit" in err and app(env, "Mail").messages("Sent") == []
    # a long but allowed listing stays bounded by the shell's output cap and the env goes on
    app(env, "Mail")
    for i in range(300):
        app(env, "Mail").add_message(f"s{i}@x.example.com", f"Subject {i} " + "w" * 200, "b")
    obs, *_ = env.step(_bash("himalaya envelope list -s 0"))
    assert len(obs["text"]) <= env.backend.max_output_chars + 200
    assert sh(env, "echo still-fine") == "still-fine\n"


# ----------------------------------------------------------------------------------- whole tasks
def test_tasks_written_against_the_skill_clis_score_with_their_reference_and_zero_with_done(module_env) -> None:
    env = module_env
    task = _task(
        "skills-a-task", apps=("Reminders", "Obsidian", "Mail"),
        setup=[{"type": "shell", "command": "remindctl add --title 'Old grocery draft'"},
               {"type": "shell", "command": "mkdir -p ~/Documents/Vault/.obsidian ~/Library/Application\\ Support/obsidian && "
                                            "printf '{\"vaults\":{\"0a1b2c3d4e5f6a7b\":{\"path\":\"%s\",\"ts\":1,\"open\":true}}}\\n' "
                                            "\"$HOME/Documents/Vault\" > ~/Library/Application\\ Support/obsidian/obsidian.json"},
               {"type": "shell", "command": "printf 'From: it@corp.example.com\\nTo: user@icloud.com\\nSubject: Your OTP 551204\\n\\n"
                                            "Code inside.\\n' | himalaya message save --folder Inbox"}],
        checkpoints=[
            {"name": "reminder gone", "tag": "app_state",
             "getter": {"type": "shell", "command": "remindctl all --json | jq '[.[] | select(.title == \"Old grocery draft\")] | length'"},
             "metric": {"type": "equals", "expected": "0"}},
            {"name": "note made", "tag": "content_match",
             "getter": {"type": "shell", "command": "cat ~/Documents/Vault/Inbox/OTP.md"},
             "metric": {"type": "equals", "expected": "otp_code: 551204"}}],
        solution=[_bash("id=$(remindctl all --json | jq -r '.[] | select(.title == \"Old grocery draft\") | .id' | head -n 1); "
                        "remindctl delete \"$id\" --force"),
                  _bash("code=$(himalaya envelope list -o json subject otp | jq -r '.[0].subject' | grep -o '[0-9]\\{6\\}'); "
                        "obsidian-cli create Inbox/OTP --content \"otp_code: $code\" --vault Vault")])
    obs, info = env.reset(options={"task": task})
    assert info["score"] == 0.0
    for action in task["reference_solution"]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert info.get("action_error") is None, obs["text"]
    obs, reward, terminated, truncated, info = env.step("DONE")
    assert info["score"] == 1.0 and info["success"] is True
    env.reset(options={"task": task})
    obs, reward, terminated, truncated, info = env.step("DONE")
    assert info["score"] == 0.0


def test_himalaya_leaves_a_while_read_loop_its_input(env) -> None:
    # A public task moves each newsletter in a `… | while read id; do himalaya message move …; done` loop:
    # a call that reads no message must not swallow the loop's remaining lines.
    _seed_mail(env, 4)
    out = sh(env, "printf 'a\\nb\\nc\\n' | while read x; do himalaya folder list >/dev/null; echo got $x; done")
    assert out.split() == ["got", "a", "got", "b", "got", "c"]
    sent = sh(env, "printf 'From: me@example.com\\nTo: you@example.com\\nSubject: via stdin\\n\\nhello\\n' "
                   "| himalaya message send; echo rc=$?")
    assert "rc=0" in sent  # `message send` still reads the message from stdin
    assert "via stdin" in sh(env, "himalaya envelope list --folder Sent")

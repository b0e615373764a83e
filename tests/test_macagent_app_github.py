"""The sim's GitHub: the shipped snapshots, ``gh`` (issue list/view/create/close/reopen/comment/edit, pr list/view,
repo view, label list, api; flags, --json/--jq, errors as gh words them), the REST API through ``curl`` (the
issues endpoint with its filters, pull requests in it, single items, comments, 401 for writes, 404s), the
pages Safari shows (issue lists filtered with ``?q=``, one issue, labels, 404), and writes reaching all three."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from mmenvs.macagent.applescript.errors import AppleScriptError
from mmenvs.macagent.backends.sim import SimBackend
from mmenvs.macagent.backends.sim.apps.github_html import rel_time
from mmenvs.macagent.backends.sim.apps.github_model import GitHubError
from mmenvs.macagent.backends.sim.apps.github_query import parse_query

NOW = datetime(2026, 3, 10, 11, 0)
R = "-R openclaw/openclaw"


def gh(b: SimBackend, args: str, ok: bool = True) -> tuple[str, str]:
    out = b.run_shell("gh " + args)
    assert (out.exit_code == 0) == ok, out.text
    return out.stdout, out.stderr


def gh_json(b: SimBackend, args: str):
    return json.loads(gh(b, args)[0])


def curl_json(b: SimBackend, url: str, jq: str = "."):
    # jq in the pipe keeps big answers under the shell's output cap
    out = b.run_shell(f"curl -s '{url}' | jq -c '{jq}'")
    assert out.exit_code == 0, out.text
    return json.loads(out.stdout)


def page_text(b: SimBackend, url: str) -> str:
    safari = b.app("Safari")
    if not safari.windows:
        b.open_app("Safari")
    safari.open_url(url)
    return b.run_applescript('tell application "Safari" to get text of document 1')


# ----------------------------------------------------------------------------------- snapshots
def test_snapshot_times_follow_the_desktop_clock(b: SimBackend, tmp_path: Path) -> None:
    store = b.app("GitHub").hub
    repo = store.repo("openclaw/openclaw")
    newest = max(i.created_at for i in repo.items.values())
    assert newest < NOW and (NOW - newest).days < 14  # moved by whole days to sit before "now"
    later = SimBackend()
    later.reset(now=datetime(2026, 11, 30, 9, 0), home=tmp_path / "later")
    try:
        moved = later.app("GitHub").hub.repo("openclaw/openclaw")
        shift = moved.items[1].created_at - repo.items[1].created_at
        assert shift.days == (datetime(2026, 11, 30) - datetime(2026, 3, 10)).days and shift.seconds == 0
    finally:
        later.close()
    assert {r.full_name for r in store.repos.values()} == {"openclaw/openclaw", "tidepool-data/tidepool", "nimbus-dev/nimbus-cli"}


# ----------------------------------------------------------------------------------- gh issue list / view
def test_issue_list_filters_sorts_and_prints_tab_separated(b: SimBackend) -> None:
    out, _ = gh(b, f"issue list {R} --label bug --state open")
    rows = [line.split("\t") for line in out.splitlines()]
    numbers = [int(r[0]) for r in rows]
    assert numbers == sorted(numbers, reverse=True) and len(numbers) == 10
    assert all(r[1] == "OPEN" and "bug" in r[3].split(", ") for r in rows)
    assert rows[0][2] == "Config validation error message names the wrong field"
    both = gh_json(b, f"issue list {R} -l bug -l ui --json number")
    assert both == [{"number": 3}]  # several labels: all of them
    assert gh_json(b, f"issue list {R} -l bug,ui --json number") == both
    closed = gh_json(b, f"issue list {R} --state closed --json number,state,stateReason")
    assert closed and all(c["state"] == "CLOSED" for c in closed)
    assert {c["stateReason"] for c in closed} == {"COMPLETED", "NOT_PLANNED"}
    assert len(gh_json(b, f"issue list {R} --state all -L 5 --json number")) == 5
    assert len(gh_json(b, f"issue list {R} --state all --limit 100 --json number")) == 26  # pull requests excluded
    assert gh(b, f"issue list {R} --label nope") == ("", "")  # no match: nothing printed, exit 0


def test_issue_list_json_fields_and_jq(b: SimBackend) -> None:
    row = gh_json(b, f"issue list {R} --label bug --limit 1 --json number,title,labels,author,createdAt,url")[0]
    assert sorted(row) == ["author", "createdAt", "labels", "number", "title", "url"]
    assert row["author"]["login"] == "chen-wei" and [x["name"] for x in row["labels"]] == ["bug", "good first issue"]
    assert row["url"] == "https://github.com/openclaw/openclaw/issues/32" and row["createdAt"].endswith("Z")
    out, _ = gh(b, f"issue list {R} --label bug --limit 2 --json number,title --jq '.[] | \"#\\(.number) \\(.title)\"'")
    assert out.splitlines() == ["#32 Config validation error message names the wrong field",
                                "#29 Browser tool times out on pages with infinite scroll"]
    out, _ = gh(b, f"issue list {R} --search 'label:bug sort:created-asc websocket OR' --json number")
    assert out == "[]\n"
    asc = gh_json(b, f"issue list {R} --search 'sort:created-asc' -l bug --json number")
    assert [x["number"] for x in asc] == sorted(x["number"] for x in asc)


def test_issue_view_text_json_and_comments(b: SimBackend) -> None:
    out, _ = gh(b, f"issue view 27 {R}")
    head, _, body = out.partition("\n--\n")
    fields = dict(line.split(":\t", 1) for line in head.splitlines())
    assert fields["title"] == "Telegram bot ignores messages with captions" and fields["state"] == "OPEN"
    assert fields["labels"] == "bug, channel:telegram" and fields["comments"] == "3" and fields["number"] == "27"
    assert body.startswith("### Description")
    assert gh_json(b, f"issue view '#27' {R} --json comments")["comments"][0]["author"]["login"]
    out, _ = gh(b, "issue view https://github.com/openclaw/openclaw/issues/27 --comments")
    assert out.count("author:\t") == 3
    out, _ = gh(b, "pr view 31 " + R)
    assert "state:\tDRAFT" in out and "url:\thttps://github.com/openclaw/openclaw/pull/31" in out


# ----------------------------------------------------------------------------------- gh writes
def test_create_close_comment_reopen_edit_reach_gh_rest_and_safari(b: SimBackend) -> None:
    out, _ = gh(b, f"issue create {R} --title 'Gateway ignores --port' --body 'It listens on 18789.' --label bug --label ui")
    assert out == "https://github.com/openclaw/openclaw/issues/33\n"
    new = gh_json(b, f"issue view 33 {R} --json author,labels,state,body")
    assert new["author"]["login"] == "mac-user" and [x["name"] for x in new["labels"]] == ["bug", "ui"]
    assert gh_json(b, f"issue list {R} --author @me --json number") == [{"number": 33}]
    rest = curl_json(b, "https://api.github.com/repos/openclaw/openclaw/issues/33")
    assert rest["title"] == "Gateway ignores --port" and rest["state"] == "open" and rest["user"]["login"] == "mac-user"
    assert "Gateway ignores --port #33" in page_text(b, "https://github.com/openclaw/openclaw/issues/33")

    _, err = gh(b, f"issue close 33 {R} --comment 'Duplicate of #9' --reason 'not planned'")
    assert err == "✓ Closed issue openclaw/openclaw#33 (Gateway ignores --port)\n"
    _, err = gh(b, f"issue close 33 {R}")
    assert "is already closed" in err
    view = gh_json(b, f"issue view 33 {R} --json state,stateReason,comments,closedAt")
    assert (view["state"], view["stateReason"]) == ("CLOSED", "NOT_PLANNED") and view["comments"][-1]["body"] == "Duplicate of #9"
    assert curl_json(b, "https://api.github.com/repos/openclaw/openclaw/issues/33")["state_reason"] == "not_planned"
    comments = curl_json(b, "https://api.github.com/repos/openclaw/openclaw/issues/33/comments")
    assert [c["body"] for c in comments] == ["Duplicate of #9"]
    text = page_text(b, "https://github.com/openclaw/openclaw/issues/33")
    assert "Closed as not planned" in text and "mac-user commented now" in text and "Duplicate of #9" in text
    assert "#33" not in page_text(b, "https://github.com/openclaw/openclaw/issues")  # gone from the open list
    assert "Gateway ignores --port" in page_text(b, "https://github.com/openclaw/openclaw/issues?q=is%3Aissue+is%3Aclosed")

    out, _ = gh(b, f"issue comment 33 {R} --body 'Reopening: not a duplicate after all.'")
    assert out.startswith("https://github.com/openclaw/openclaw/issues/33#issuecomment-")
    _, err = gh(b, f"issue reopen 33 {R}")
    assert "Reopened issue" in err and gh_json(b, f"issue view 33 {R} --json state")["state"] == "OPEN"
    _, err = gh(b, f"issue edit 33 {R} --add-label tools,gateway --title x", ok=False)
    assert "'gateway' not found" in err
    before = gh_json(b, f"issue view 33 {R} --json title,labels")
    assert before["title"] == "Gateway ignores --port" and "tools" not in [x["name"] for x in before["labels"]]
    gh(b, f"issue edit 33 {R} --add-label tools --remove-label ui --title 'Gateway ignores the --port flag'")
    view = gh_json(b, f"issue view 33 {R} --json title,labels")
    assert view["title"] == "Gateway ignores the --port flag" and [x["name"] for x in view["labels"]] == ["bug", "tools"]


def test_gh_finds_the_repository_from_the_clone_it_runs_in(b: SimBackend) -> None:
    out = b.run_shell("mkdir -p ~/src/oc/docs && cd ~/src/oc && git init -q && "
                      "git remote add upstream https://example.com/x.git && "
                      "git remote add origin git@github.com:openclaw/openclaw.git && cd docs && gh issue list -L 1")
    assert out.exit_code == 0 and out.stdout.startswith("32\tOPEN\t"), out.text
    out = b.run_shell("mkdir -p ~/src/other && cd ~/src/other && git init -q && gh issue list")
    assert out.exit_code == 1 and "none of the git remotes configured for this repository point to a known GitHub host" in out.stderr


def test_issue_body_from_a_file(b: SimBackend) -> None:
    b.run_shell("mkdir -p ~/w && printf 'Steps:\\n1. run it\\n' > ~/w/body.md")
    out, _ = gh(b, f"issue create {R} --title 'From a file' --body-file ~/w/body.md")
    assert gh_json(b, f"issue view 33 {R} --json body")["body"] == "Steps:\n1. run it\n"
    _, err = gh(b, f"issue comment 33 {R} --body-file nowhere.md", ok=False)
    assert "open nowhere.md: no such file or directory" in err
    _, err = gh(b, f"issue comment 33 {R} --body-file -", ok=False)
    assert "standard input" in err


def test_gh_api_writes_and_reads(b: SimBackend) -> None:
    out, _ = gh(b, "api repos/nimbus-dev/nimbus-cli/issues -f title='Add --quiet' -f body=please -f 'labels[]=cli' --jq .number")
    assert out == "21\n"
    gh(b, "api -X PATCH repos/nimbus-dev/nimbus-cli/issues/21 -f state=closed")
    assert gh_json(b, "issue view 21 -R nimbus-dev/nimbus-cli --json state,labels") == \
        {"state": "CLOSED", "labels": [{"color": "5319e7", "description": "Commands and flags",
                                        "id": gh_json(b, "issue view 21 -R nimbus-dev/nimbus-cli --json labels")["labels"][0]["id"],
                                        "name": "cli"}]}
    _, err = gh(b, "api -X PATCH repos/nimbus-dev/nimbus-cli/issues/21 -f state=open -f 'labels[]=nope'", ok=False)
    assert "'nope' not found" in err and gh_json(b, "issue view 21 -R nimbus-dev/nimbus-cli --json state")["state"] == "CLOSED"
    out, _ = gh(b, "api 'repos/nimbus-dev/nimbus-cli/issues?state=closed&per_page=1' --jq '.[0].title'")
    assert out == "Add --quiet\n"
    out, err = gh(b, "api repos/nimbus-dev/nope", ok=False)
    assert "Not Found (HTTP 404)" in err and json.loads(out)["message"] == "Not Found"
    assert gh(b, "api user --jq .login")[0] == "mac-user\n"


def test_pr_repo_label_and_auth(b: SimBackend) -> None:
    out, _ = gh(b, "pr list -R openclaw/openclaw")
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in rows] == ["31", "28", "18", "5"] and rows[0][3] == "DRAFT"
    merged = gh_json(b, "pr list -R openclaw/openclaw --state merged --json number,state,mergedAt,headRefName")
    assert merged and all(m["state"] == "MERGED" and m["mergedAt"] for m in merged)
    out, _ = gh(b, "repo view tidepool-data/tidepool")
    assert out.startswith("name:\ttidepool-data/tidepool\ndescription:\tStreaming data pipelines") and "# tidepool" in out
    assert gh_json(b, "repo view tidepool-data/tidepool --json stargazerCount,nameWithOwner") == \
        {"nameWithOwner": "tidepool-data/tidepool", "stargazerCount": 4210}
    out, _ = gh(b, "label list -R nimbus-dev/nimbus-cli --search c")
    assert "cli\tCommands and flags\t#5319e7" in out.splitlines()
    assert "Logged in to github.com account mac-user" in gh(b, "auth status")[0]
    assert gh(b, "--version")[0].startswith("gh version ")


@pytest.mark.parametrize("args, words", [
    ("issue list", "not a git repository"),
    ("issue list -R nobody/nothing", "GraphQL: Could not resolve to a Repository with the name 'nobody/nothing'."),
    ("issue list -R openclaw", 'expected the "[HOST/]OWNER/REPO" format'),
    (f"issue list {R} --state maybe", 'valid values are {open|closed|all}'),
    (f"issue list {R} --limit 0", "invalid limit: 0"),
    (f"issue list {R} --limit many", 'invalid argument "many" for "-L, --limit"'),
    (f"issue list {R} --colour red", "unknown flag: --colour"),
    (f"issue list {R} --json number,mood", 'Unknown JSON field: "mood"'),
    (f"issue list {R} --jq .", "cannot use `--jq` without specifying `--json`"),
    (f"issue list {R} --json number --jq '.[] |'", "failed to parse jq expression"),
    (f"issue list {R} --label", "flag needs an argument: --label"),
    (f"issue view 999 {R}", "Could not resolve to an issue or pull request with the number of 999."),
    (f"issue view abc {R}", 'invalid issue format: "abc"'),
    (f"issue create {R} --title only", "must provide `--title` and `--body`"),
    (f"issue create {R} --title t --body b --label nosuch", "could not add label: 'nosuch' not found"),
    (f"issue close 31 {R}", "is a pull request"),
    (f"issue close 3 {R} --reason wontfix", "valid values are {completed|not planned}"),
    (f"issue comment 3 {R}", "--body or --body-file required"),
    (f"issue edit 3 {R}", "field to edit flag required"),
    (f"pr view 3 {R}", "Could not resolve to a PullRequest with the number of 3."),
    ("repo view", "name the repository"),
    ("issue frobnicate", 'unknown command "frobnicate" for "gh issue"'),
    ("gist list", 'unknown command "gist" for "gh"'),
    (f"issue list {R} --search 'milestone:v1'", "Unsupported search qualifier 'milestone'"),
])
def test_gh_errors_say_what_was_wrong(b: SimBackend, args: str, words: str) -> None:
    out = b.run_shell("gh " + args)
    assert out.exit_code == 1 and words in out.stderr, out.text


# ----------------------------------------------------------------------------------- REST through curl
def test_rest_issues_endpoint_filters_and_includes_pull_requests(b: SimBackend) -> None:
    base = "https://api.github.com/repos/openclaw/openclaw/issues"
    assert curl_json(b, base + "?per_page=100", "[length, (map(has(\"pull_request\")) | any)]") == [22, True]  # PRs count
    bugs = curl_json(b, base + "?state=open&labels=bug,ui")
    assert [i["number"] for i in bugs] == [3] and bugs[0]["labels"][0]["name"] == "bug"
    asc = curl_json(b, base + "?state=all&sort=created&direction=asc&per_page=3&page=2")
    assert [i["number"] for i in asc] == [4, 5, 6]
    one = curl_json(b, base + "/9")
    assert one["html_url"] == "https://github.com/openclaw/openclaw/issues/9" and one["comments"] == 0
    pulls = curl_json(b, "https://api.github.com/repos/openclaw/openclaw/pulls?state=all", "map({head: .head.ref, merged})")
    assert len(pulls) == 6 and {"head": "fix/whatsapp-reconnect", "merged": True} in pulls
    repo = curl_json(b, "https://api.github.com/repos/openclaw/openclaw")
    assert repo["full_name"] == "openclaw/openclaw" and repo["open_issues_count"] == 22
    labels = curl_json(b, "https://api.github.com/repos/openclaw/openclaw/labels")
    assert labels[0]["name"] == "bug" and labels[0]["color"] == "d73a4a"
    import base64

    readme = curl_json(b, "https://api.github.com/repos/openclaw/openclaw/readme")
    assert base64.b64decode(readme["content"]).decode().startswith("# OpenClaw")
    found = curl_json(b, "https://api.github.com/search/issues?q=repo:openclaw/openclaw+is:issue+is:open+label:memory",
                      "[.total_count, .items[0].number]")
    assert found == [1, 6]


def test_rest_errors(b: SimBackend) -> None:
    assert curl_json(b, "https://api.github.com/repos/openclaw/nothing")["message"] == "Not Found"
    assert curl_json(b, "https://api.github.com/repos/openclaw/openclaw/issues/999")["status"] == "404"
    out = b.run_shell("curl -sf https://api.github.com/repos/openclaw/nothing")
    assert out.exit_code == 22
    bad = curl_json(b, "https://api.github.com/repos/openclaw/openclaw/issues?state=maybe")
    assert "state must be open, closed or all" in bad["message"]
    out = b.run_shell("curl -s -X POST -d '{\"title\": \"x\"}' https://api.github.com/repos/openclaw/openclaw/issues")
    assert json.loads(out.stdout)["message"] == "Requires authentication"
    assert b.app("GitHub").hub.repo("openclaw/openclaw").items.get(33) is None  # nothing was created


# ----------------------------------------------------------------------------------- the website in Safari
def test_issue_list_page_filters_by_query_and_pages(b: SimBackend) -> None:
    text = page_text(b, "https://github.com/openclaw/openclaw/issues?q=is%3Aissue+is%3Aopen+label%3Abug")
    assert "Filters: is:issue is:open label:bug" in text and "10 Open · 4 Closed" in text
    lines = [line for line in text.splitlines() if "— #" in line]
    assert len(lines) == 10 and lines[0].startswith("Config validation error message names the wrong field [bug] [good first issue] — #32 opened")
    text = page_text(b, "https://github.com/openclaw/openclaw/issues?q=is%3Aissue+label%3A%22good+first+issue%22+is%3Aopen")
    assert [line.split("— #")[1].split()[0] for line in text.splitlines() if "— #" in line] == ["32", "16"]
    text = page_text(b, "https://github.com/tidepool-data/tidepool/issues")
    assert "Next" not in text  # fewer than 25 open issues: one page
    text = page_text(b, "https://github.com/openclaw/openclaw/pulls")
    assert "Dashboard: dark mode" in text and "#31 opened 13 days ago by " in text and " · Draft" in text
    # links on the page lead where GitHub's do
    safari = b.app("Safari")
    safari.open_url("https://github.com/openclaw/openclaw/issues")
    links = [e for e in b.accessibility_tree().splitlines() if 'AXLink "bug"' in e]
    assert links and "label%3Abug" in links[0]


def test_repo_issue_labels_and_missing_pages(b: SimBackend) -> None:
    text = page_text(b, "https://github.com/nimbus-dev/nimbus-cli")
    assert "Deploy and manage Nimbus cloud apps" in text and "README.md" in text and "brew install" in text
    assert b.run_applescript('tell application "Safari" to get name of document 1').startswith("nimbus-dev/nimbus-cli")
    text = page_text(b, "https://github.com/nimbus-dev/nimbus-cli/labels")
    assert "cli — Commands and flags" in text
    text = page_text(b, "https://github.com/openclaw/openclaw/pull/18")
    assert "Add Signal channel (experimental) #18" in text and "wants to merge into main from feat/signal" in text
    for url in ("https://github.com/openclaw/openclaw/issues/999", "https://github.com/nobody/nothing", "https://github.com/openclaw"):
        assert "This is not the web page you are looking for." in page_text(b, url)
    assert "openclaw/openclaw" in page_text(b, "https://github.com/")


def test_task_pages_come_before_the_site(b: SimBackend) -> None:
    b.set_web_pages({"https://github.com/openclaw/openclaw/issues": "<title>Pinned</title><h1>From the task</h1>"})
    assert page_text(b, "https://github.com/openclaw/openclaw/issues").startswith("From the task")
    assert "Telegram bot" in page_text(b, "https://github.com/openclaw/openclaw/issues/27")


def test_github_has_no_applescript_dictionary(b: SimBackend) -> None:
    b.run_applescript('tell application "GitHub" to activate')
    assert b.run_applescript('tell application "Safari" to get URL of document 1') == "https://github.com/"
    with pytest.raises(AppleScriptError):
        b.run_applescript('tell application "GitHub" to get name of every issue')


def test_spotlight_finds_github_and_opens_the_site(b: SimBackend) -> None:
    b.hotkey("command", "space")
    b.type_text("Git")
    assert b.screenshot().shape == (800, 1280, 3)  # the hit is drawn with GitHub's icon
    b.press("return")
    assert b.run_applescript('tell application "Safari" to get URL of document 1') == "https://github.com/"


def test_github_app_is_windowless_and_opens_the_site(b: SimBackend) -> None:
    app = b.app("GitHub")
    assert not app.in_dock and "GitHub" not in b.accessibility_tree().split("AXList \"Dock\"")[1]
    b.run_shell("open -a GitHub")
    assert b.run_applescript('tell application "Safari" to get URL of document 1') == "https://github.com/"
    assert app.state()["repos"]["openclaw/openclaw"]["open_issues"][0] == 32


# ----------------------------------------------------------------------------------- helpers
def test_search_query_parser() -> None:
    q = parse_query('is:open label:bug -label:ui label:"good first issue",docs author:@me sort:updated-asc crash')
    assert (q.state, q.labels, q.not_labels, q.author, q.sort, q.words) == \
        ("open", [["bug"], ["good first issue", "docs"]], ["ui"], "@me", "updated-asc", ["crash"])
    with pytest.raises(GitHubError, match="Invalid qualifier value 'is:maybe'"):
        parse_query("is:maybe")
    with pytest.raises(GitHubError, match="unclosed quote"):
        parse_query('label:"bug')


def test_relative_times() -> None:
    now = datetime(2026, 3, 10, 12, 0)
    assert rel_time(datetime(2026, 3, 10, 11, 59, 30), now) == "now"
    assert rel_time(datetime(2026, 3, 10, 11, 15), now) == "45 minutes ago"
    assert rel_time(datetime(2026, 3, 9, 10, 0), now) == "yesterday"
    assert rel_time(datetime(2026, 2, 20, 10, 0), now) == "18 days ago"
    assert rel_time(datetime(2026, 1, 3, 10, 0), now) == "on Jan 3"
    assert rel_time(datetime(2025, 12, 3, 10, 0), now) == "on Dec 3, 2025"

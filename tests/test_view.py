"""`mmenvs view`: the HTML report of a run, its loader's robustness, and the report in a real browser.

The browser tests open reports of runs made here (one per env) in Debian's headless Chromium through
Selenium (``./setup.sh`` installs ``chromium`` and ``chromium-driver``; Selenium is in the dev extra).
They FAIL when Chromium, chromedriver or Selenium is missing, so CI cannot pass without them. To run
the rest on a machine without a browser, set ``MMENVS_SKIP_BROWSER_TESTS=1``: then, and only then, the
browser tests are skipped.

Every wait for a page state has a deadline (``WebDriverWait``); the browser and its driver are ended
at the end of the module and checked to be gone.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from _wait import is_running, wait_until

from mmenvs.cli import main as cli_main
from mmenvs.runner import evaluate
from mmenvs.view import load_run, read_steps, write_comparison, write_report
from mmenvs.view.loader import MAX_TEXT_CHARS, image_ref
from mmenvs.view.pointer import PointerTracker
from mmenvs.view.serve import make_server

#: Set to 1 to skip the browser tests on a machine without Chromium (they fail otherwise).
SKIP_BROWSER_VARIABLE = "MMENVS_SKIP_BROWSER_TESTS"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1400,1000")
PAGE_TIMEOUT = 30  # seconds a page state may take to appear on a busy machine
INJECTED = "<script>document.title='pwned';window.__pwned=1;</script>"


class ScriptingAgent:
    """A DebugEcho agent whose first action SAYs a script (echoed into the observation, untrusted text),
    then answers right on attempt 0 and wrong on attempt 1; it crashes on ``echo-01`` (an error episode)
    and reports a ledger (tokens and cost columns)."""

    def __init__(self) -> None:
        self._env: Any = None
        self._attempt = 0
        self._said = False

    def bind(self, env: Any) -> None:
        self._env = env

    def reset(self, task_info: dict[str, Any]) -> None:
        self._attempt, self._said, self._task = int(task_info.get("attempt", 0)), False, task_info["task_id"]

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if not self._said:
            self._said = True
            return f"SAY {INJECTED}"
        if self._task == "echo-01":
            raise RuntimeError("agent crashed on <b>purpose</b>")
        return self._env.oracle_action(obs, info) if self._attempt == 0 else "<answer>wrong</answer>"

    def ledger(self) -> dict[str, Any]:
        return {"calls": 2, "prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120, "cost_usd": 0.002}


# ---------------------------------------------------------------------------------------------- runs
@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Runs made for these tests: the scripting agent and the oracle on DebugEcho, the oracle on the benchmarks."""
    root = tmp_path_factory.mktemp("runs")
    plan = {"echo": ("DebugEcho-v0", f"{__name__}:ScriptingAgent", "4", 2),
            "echo_oracle": ("DebugEcho-v0", "oracle", "4", 2),
            "vtc": ("VTCBench-v0", "oracle", "2", 1),
            "toolsandbox": ("MMToolSandbox-v0", "oracle", "2", 1),
            "macagent": ("MacAgent-v0", "oracle", "2", 1)}
    made = {}
    for name, (env_id, agent, tasks, attempts) in plan.items():
        evaluate(env_id, agent=agent, tasks=tasks, attempts=attempts, out=root / name, progress=False)
        made[name] = root / name
    return made


def _records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]


def _copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / run.name
    shutil.copytree(run, target)
    return target


# ---------------------------------------------------------------------------------------------- loader
def test_the_loader_reads_records_summary_and_steps(runs: dict[str, Path]) -> None:
    run = load_run(runs["echo"])
    assert run.env_id == "DebugEcho-v0" and not run.summary_computed and run.warnings == []
    assert len(run.episodes) == 8
    statuses = {e.key: e.status for e in run.episodes}
    assert statuses[("echo-00", 0)] == "pass" and statuses[("echo-00", 1)] == "fail"
    assert statuses[("echo-01", 0)] == statuses[("echo-01", 1)] == "error"
    steps = list(read_steps(run.episode("echo-00", 0)))
    assert [s.event for s in steps] == ["reset", "step", "step"]
    assert INJECTED in steps[1].text and steps[2].score == 1.0
    assert steps[0].images[0].path is not None and steps[0].images[0].path.is_file()
    index = write_report(runs["echo"]).read_text()
    assert 'total tokens</div>' in index and '<div class="value">960</div>' in index  # 8 episodes x 120 from the ledgers


def test_an_infrastructure_failure_is_shown_apart(runs: dict[str, Path], tmp_path: Path) -> None:
    run_dir = _copy(runs["echo_oracle"], tmp_path)
    records = _records(run_dir)
    records[0].update(score=None, success=None, error="Traceback ...\nInfrastructureFailure: endpoint down",
                      infra_failure={"kind": "endpoint", "error": "endpoint down"})
    (run_dir / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (run_dir / "summary.json").unlink()
    run = load_run(run_dir)
    assert run.episode(records[0]["task_id"], records[0]["attempt"]).status == "infra"
    assert run.summary["infra_failures"] == 1 and run.summary["episodes"] == 7
    index = write_report(run_dir).read_text()
    assert index.count('data-status="infra"') == 1 and "infrastructure (endpoint): endpoint down" in index


def test_a_torn_last_line_and_a_missing_summary_are_survived(runs: dict[str, Path], tmp_path: Path) -> None:
    run_dir = _copy(runs["echo"], tmp_path)
    (run_dir / "summary.json").unlink()
    lines = (run_dir / "episodes.jsonl").read_text().splitlines()
    (run_dir / "episodes.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    run = load_run(run_dir)
    assert len([e for e in run.episodes if not e.incomplete]) == 7
    assert run.summary_computed and run.summary["episodes"] == 7 and run.summary["env_id"] == "DebugEcho-v0"
    assert any("torn" in w for w in run.warnings) and any("summary.json is missing" in w for w in run.warnings)
    # the episode whose record was torn still has its steps: listed as incomplete, not counted
    torn = json.loads(lines[-1])
    incomplete = [e for e in run.episodes if e.incomplete]
    assert [e.key for e in incomplete] == [(torn["task_id"], torn["attempt"])]
    assert incomplete[0].status == "incomplete"
    index = write_report(run_dir).read_text()
    assert "computed from the records" in index and index.count('<tr class="episode"') == 8


def test_an_unreadable_summary_is_recomputed(runs: dict[str, Path], tmp_path: Path) -> None:
    run_dir = _copy(runs["echo_oracle"], tmp_path)
    (run_dir / "summary.json").write_text("{not json")
    run = load_run(run_dir)
    assert run.summary_computed and run.summary["mean_score"] == 1.0 and run.summary["pass@2"] == 1.0


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="not a run folder"):
        load_run(tmp_path)
    assert cli_main(["view", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err


def test_an_error_episode_shows_its_traceback_escaped(runs: dict[str, Path], tmp_path: Path) -> None:
    out = write_report(runs["echo"], tmp_path / "r.html")
    index = out.read_text()
    assert "RuntimeError: agent crashed on &lt;b&gt;purpose&lt;/b&gt;" in index
    page = (tmp_path / "r_pages" / "echo-01__a0.html").read_text()
    assert "<h2>Error</h2>" in page and "Traceback" in page and "<b>purpose</b>" not in page


def test_untrusted_text_is_escaped_everywhere(runs: dict[str, Path], tmp_path: Path) -> None:
    out = write_report(runs["echo"], tmp_path / "r.html")
    pages = [out, *sorted((tmp_path / "r_pages").glob("*.html"))]
    for page in pages:
        html = page.read_text()
        assert html.count("<script") == 1, page  # the report's own script only
        assert "document.title='pwned'" not in html, page
    said = (tmp_path / "r_pages" / "echo-00__a0.html").read_text()
    assert said.count("&lt;script&gt;document.title=&#x27;pwned&#x27;;window.__pwned=1;&lt;/script&gt;") == 2  # action, echo


def test_a_huge_observation_is_cut_with_a_marker(runs: dict[str, Path], tmp_path: Path) -> None:
    run_dir = _copy(runs["echo_oracle"], tmp_path)
    steps_file = run_dir / "episodes" / "echo-00__a0" / "steps.jsonl"
    lines = [json.loads(line) for line in steps_file.read_text().splitlines()]
    lines[-1]["text"] = "x" * (MAX_TEXT_CHARS + 12_345)
    steps_file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    episode = load_run(run_dir).episode("echo-00", 0)
    last = list(read_steps(episode))[-1]
    assert len(last.text) == MAX_TEXT_CHARS and last.text_cut == 12_345
    write_report(run_dir)
    page = (run_dir / "report_pages" / "echo-00__a0.html").read_text()
    assert "12,345 more characters cut here" in page and "x" * (MAX_TEXT_CHARS + 1) not in page


def test_missing_and_escaping_images_are_shown_as_such(runs: dict[str, Path], tmp_path: Path) -> None:
    run_dir = _copy(runs["echo_oracle"], tmp_path)
    (run_dir / "episodes" / "echo-00__a0" / "images" / "img_0.png").unlink()
    steps_file = run_dir / "episodes" / "echo-00__a1" / "steps.jsonl"
    lines = [json.loads(line) for line in steps_file.read_text().splitlines()]
    lines[0]["info"]["images"] = ["../../etc/passwd", "img_0/../../../summary"]
    steps_file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    folder = run_dir / "episodes" / "echo-00__a1"
    assert image_ref(folder, "../../etc/passwd").path is None and "refused" in str(image_ref(folder, "../../etc/passwd").problem)
    assert image_ref(folder, "img_0").path == folder / "images" / "img_0.png"
    (folder / "images" / "link.png").symlink_to(run_dir / "summary.png")  # a file that points out of the folder
    assert "outside" in str(image_ref(folder, "link").problem)
    write_report(run_dir)
    missing = (run_dir / "report_pages" / "echo-00__a0.html").read_text()
    assert 'data-image="img_0">image img_0: missing' in missing
    refused = (run_dir / "report_pages" / "echo-00__a1.html").read_text()
    assert refused.count("refused: not a plain image id") == 2
    sources = re.findall(r'src="([^"]*)"', refused)
    assert not [s for s in sources if "passwd" in s or "summary" in s]


def test_a_report_does_not_replace_a_folder_it_did_not_write(runs: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "r_pages").mkdir()
    (tmp_path / "r_pages" / "mine.txt").write_text("keep")
    with pytest.raises(ValueError, match="not a report's pages folder"):
        write_report(runs["echo"], tmp_path / "r.html")
    assert (tmp_path / "r_pages" / "mine.txt").read_text() == "keep"
    write_report(runs["echo"], tmp_path / "s.html")
    write_report(runs["echo"], tmp_path / "s.html")  # its own folder: rewritten
    assert len(list((tmp_path / "s_pages").glob("*.html"))) == 8


@pytest.mark.parametrize("action, expected", [
    ({"action_type": "CLICK", "x": 700, "y": 304}, [("click", 700, 304, "left click")]),
    ({"action_type": "DOUBLE_CLICK", "x": 5, "y": 6}, [("click", 5, 6, "left double-click")]),
    ("```python\nimport pyautogui\npyautogui.rightClick(10, 20)\npyautogui.dragTo(100, 200)\n```",
     [("click", 10, 20, "right click"), ("drag", 100, 200, "left drag")]),
    ({"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [50, 60]}}, [("click", 50, 60, "left click")]),
    ({"type": "click", "x": 3, "y": 4, "button": "left"}, [("click", 3, 4, "left click")]),
    ("DONE", []),
    ({"action_type": "CLICK", "x": 7000, "y": 1}, []),  # off the screen: the env refuses it, nothing happened
    ("```python\nfor i in range(3):\n    pyautogui.click(1, 1)\n```", []),  # sandboxed code is not run by the viewer
])
def test_pointer_marks_follow_the_envs_reading_of_the_action(action: Any, expected: list[tuple[Any, ...]]) -> None:
    marks = PointerTracker().marks(action, (1280, 800))
    assert [(m.kind, m.x, m.y, m.label) for m in marks] == expected


def test_the_pointer_persists_between_steps() -> None:
    tracker = PointerTracker()
    tracker.marks("pyautogui.moveTo(300, 400)", (1280, 800))
    assert [(m.kind, m.x, m.y) for m in tracker.marks("pyautogui.click()", (1280, 800))] == [("click", 300, 400)]
    drag = tracker.marks("pyautogui.dragRel(10, -20)", (1280, 800))[0]
    assert (drag.x0, drag.y0, drag.x, drag.y) == (300, 400, 310, 380)


def test_the_server_serves_the_report_and_nothing_else(runs: dict[str, Path], tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the browser")
    out = write_report(runs["echo"], tmp_path / "reports" / "r.html")
    server, url = make_server(out, [out.parent, runs["echo"]])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert url.startswith("http://127.0.0.1:") and urllib.request.urlopen(url, timeout=10).status == 200
        base = url.rsplit("/", 1)[0]
        image = os.path.relpath(runs["echo"] / "episodes" / "echo-00__a0" / "images" / "img_0.png", out.parent)
        assert urllib.request.urlopen(f"{base}/{image}", timeout=10).read()[:4] == b"\x89PNG"
        root = url.split("/", 3)[:3]
        for path in (os.path.relpath(secret, os.path.commonpath([out.parent, runs["echo"]])), "../../etc/passwd",
                     "%2e%2e/%2e%2e/etc/passwd", ""):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen("/".join(root) + "/" + path, timeout=10)
            assert refused.value.code == 404, path
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_the_cli_writes_single_and_comparison_reports(runs: dict[str, Path], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["view", str(runs["echo"]), "--out", str(tmp_path / "one.html")]) == 0
    assert (tmp_path / "one.html").is_file() and "wrote" in capsys.readouterr().out
    assert cli_main(["view", str(runs["echo"]), str(runs["echo_oracle"]), "--out", str(tmp_path / "two.html")]) == 0
    comparison = (tmp_path / "two.html").read_text()
    assert comparison.count('<tr class="pair-row"') == 8
    # B (the oracle) is better on attempt 1 (answered wrong) and on echo-01 (crashed); the same on the rest
    assert comparison.count('data-status="improved"') == 5
    assert comparison.count('data-status="same"') == 3
    assert cli_main(["view", "a", "b", "c"]) == 2


def test_embedded_images_make_a_portable_report(runs: dict[str, Path], tmp_path: Path) -> None:
    out = write_report(runs["echo_oracle"], tmp_path / "portable.html", embed_images=True)
    page = (tmp_path / "portable_pages" / "echo-00__a0.html").read_text()
    assert 'src="data:image/png;base64,' in page and "episodes/echo-00__a0/images" not in page
    assert 'src="data:image/png;base64,' in out.read_text()  # summary.png too


# ---------------------------------------------------------------------------------------------- browser
def _chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").is_file() else None)
    missing = [name for name, path in (("chromium", browser), ("chromedriver (chromium-driver)", driver)) if not path]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[dev]')")
    if missing:
        if os.environ.get(SKIP_BROWSER_VARIABLE) == "1":
            pytest.skip(f"{SKIP_BROWSER_VARIABLE}=1 and missing: {', '.join(missing)}")
        pytest.fail(f"browser tests need {', '.join(missing)}: run ./setup.sh (or set {SKIP_BROWSER_VARIABLE}=1 to skip them)")
    return browser, driver  # type: ignore[return-value]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium driven by Selenium, with a fresh profile folder; ended (and checked gone) afterwards."""
    import psutil
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = _chromium()
    profile = tempfile.mkdtemp(prefix="mmenvs-view-chromium-")
    try:
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        service = Service(executable_path=driver_path)
        driver = webdriver.Chrome(service=service, options=options)
        root = psutil.Process(service.process.pid)  # chromedriver; the browser and its renderers are its children
        try:
            driver.set_page_load_timeout(PAGE_TIMEOUT)
            yield driver
        finally:
            try:
                processes = [root, *root.children(recursive=True)]
            except psutil.Error:
                processes = [root]
            driver.quit()
            for process in processes:
                try:
                    wait_until(lambda: not is_running(process.pid), what=f"browser process {process.pid} to exit", timeout=20)
                except AssertionError:
                    process.kill()  # never leave a browser behind, but say so
                    raise
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def _open(driver: Any, path: Path) -> None:
    from selenium.webdriver.support.wait import WebDriverWait

    driver.get(path.resolve().as_uri())
    WebDriverWait(driver, PAGE_TIMEOUT).until(lambda d: d.execute_script("return document.readyState") == "complete")


def _images_loaded(driver: Any) -> list[int]:
    """Wait until every image has finished loading; their natural widths (0: broken)."""
    from selenium.webdriver.support.wait import WebDriverWait

    driver.execute_script("document.querySelectorAll('img').forEach(function (i) { i.loading = 'eager'; });")
    WebDriverWait(driver, PAGE_TIMEOUT).until(
        lambda d: d.execute_script("return Array.from(document.images).every(function (i) { return i.complete; })"))
    return driver.execute_script("return Array.from(document.images).map(function (i) { return i.naturalWidth; })")


def _assert_not_blank(driver: Any, what: str) -> np.ndarray:
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")).astype(float)
    assert pixels.std() > 8.0 and len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50, f"{what}: the screenshot is blank"
    return pixels


def _visible_rows(driver: Any, table_id: str) -> list[Any]:
    return [row for row in driver.find_elements("css selector", f"#{table_id} tbody tr") if row.is_displayed()]


@pytest.mark.parametrize("name", ["echo", "vtc", "toolsandbox", "macagent"])
def test_a_report_of_each_env_opens_in_the_browser(browser: Any, runs: dict[str, Path], name: str, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    run_dir = runs[name]
    index = write_report(run_dir, tmp_path / "report.html")
    _open(browser, index)
    records = _records(run_dir)
    rows = browser.find_elements(By.CSS_SELECTOR, "#episodes tbody tr")
    assert len(rows) == len(records)
    WebDriverWait(browser, PAGE_TIMEOUT).until(lambda d: d.find_element(By.CSS_SELECTOR, ".count").text == f"{len(records)} of {len(records)} shown")
    assert all(width > 0 for width in _images_loaded(browser))  # summary.png
    _assert_not_blank(browser, f"{name} index")

    first = sorted(records, key=lambda r: (r["task_id"], r["attempt"]))[0]
    rows[0].find_element(By.TAG_NAME, "a").click()
    WebDriverWait(browser, PAGE_TIMEOUT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "section.step"))
    steps_file = run_dir / "episodes" / f"{first['task_id']}__a{first['attempt']}" / "steps.jsonl"
    recorded = [json.loads(line) for line in steps_file.read_text().splitlines()]
    sections = browser.find_elements(By.CSS_SELECTOR, "section.step")
    assert [int(s.get_attribute("data-step")) for s in sections] == [line["step"] for line in recorded]
    assert sections[-1].find_element(By.CSS_SELECTOR, ".score").text == f"{recorded[-1]['info']['score']:.3f}"
    widths = _images_loaded(browser)
    assert widths and all(width > 0 for width in widths), widths
    new_images = sum(len(line["info"].get("images", [])) for line in recorded)
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure img")) >= new_images
    _assert_not_blank(browser, f"{name} episode page")
    policy = browser.find_element(By.CSS_SELECTOR, "meta[http-equiv='Content-Security-Policy']").get_attribute("content")
    assert "default-src 'none'" in policy and "img-src 'self' data:" in policy  # nothing from the network

    if name == "macagent":  # the click is marked where the action points, on the screen it was taken on
        clicks = [(line["step"], line["action"]) for line in recorded
                  if isinstance(line.get("action"), dict) and line["action"].get("action_type") == "CLICK"]
        assert clicks, "the oracle solution should click"
        step, action = clicks[0]
        mark = browser.find_element(By.CSS_SELECTOR, f"section[data-step='{step}'] svg circle.mark.click")
        assert (int(mark.get_attribute("data-x")), int(mark.get_attribute("data-y"))) == (action["x"], action["y"])
        screen = browser.find_element(By.CSS_SELECTOR, f"section[data-step='{step}'] .shot img")
        svg = browser.find_element(By.CSS_SELECTOR, f"section[data-step='{step}'] .shot svg")
        # the overlay covers the image as drawn (it scales with it); sizes may differ by sub-pixel rounding
        assert abs(svg.size["width"] - screen.size["width"]) <= 1 and abs(svg.size["height"] - screen.size["height"]) <= 1
        assert screen.size["width"] < 1280  # drawn smaller than the screenshot: the scaling is exercised
        checkpoints = browser.find_elements(By.CSS_SELECTOR, "tr.checkpoint")
        assert len(checkpoints) == len(recorded[-1]["info"]["checkpoints"]) and all("pass" in r.get_attribute("class") for r in checkpoints)
    if name == "toolsandbox":
        diff = recorded[-1]["info"].get("entity_diff") or first["final_info"]["entity_diff"]
        pairs = sum(len(spec["pairs"]) for spec in diff["per_spec"])
        assert len(browser.find_elements(By.CSS_SELECTOR, "tr.diff-row.matched")) == pairs
    if name == "vtc":
        info = recorded[-1]["info"]
        assert len(browser.find_elements(By.CSS_SELECTOR, "tr.tool-call")) == len(info["tool_calls"])
        assert len(browser.find_elements(By.CSS_SELECTOR, "tr.tool-call.effective")) == len(info["effective_chain"])


def test_the_episode_table_filters_and_sorts(browser: Any, runs: dict[str, Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.wait import WebDriverWait

    index = write_report(runs["echo"], tmp_path / "report.html")
    _open(browser, index)
    wait = WebDriverWait(browser, PAGE_TIMEOUT)
    wait.until(lambda d: len(_visible_rows(d, "episodes")) == 8)
    box = browser.find_element(By.CSS_SELECTOR, "[data-filter=episodes] input")
    box.send_keys("echo-02")
    wait.until(lambda d: len(_visible_rows(d, "episodes")) == 2)
    assert {r.find_elements(By.TAG_NAME, "td")[0].text for r in _visible_rows(browser, "episodes")} == {"echo-02"}
    box.clear()
    box.send_keys(" ")  # an input event with an empty query: everything again
    wait.until(lambda d: len(_visible_rows(d, "episodes")) == 8)
    status = Select(browser.find_element(By.CSS_SELECTOR, "[data-filter=episodes] select"))
    status.select_by_value("error")
    wait.until(lambda d: len(_visible_rows(d, "episodes")) == 2)
    status.select_by_value("fail")  # errors count as failures
    wait.until(lambda d: len(_visible_rows(d, "episodes")) == 5)
    status.select_by_value("pass")
    wait.until(lambda d: len(_visible_rows(d, "episodes")) == 3)
    assert browser.find_element(By.CSS_SELECTOR, "[data-filter=episodes] .count").text == "3 of 8 shown"
    status.select_by_value("")

    def column(name: str) -> list[str]:
        headers = [h.text.strip(" ▲▼") for h in browser.find_elements(By.CSS_SELECTOR, "#episodes thead th")]
        position = headers.index(name)
        return [r.find_elements(By.TAG_NAME, "td")[position].text for r in _visible_rows(browser, "episodes")]

    score_header = next(h for h in browser.find_elements(By.CSS_SELECTOR, "#episodes thead th") if h.text == "score")
    score_header.click()
    wait.until(lambda d: score_header.get_attribute("aria-sort") == "ascending")
    assert column("score") == sorted(column("score")) and column("score")[0] == "0.000"
    score_header.click()
    wait.until(lambda d: score_header.get_attribute("aria-sort") == "descending")
    assert column("score") == sorted(column("score"), reverse=True) and column("score")[0] == "1.000"
    tokens = column("tokens")
    assert tokens == ["120"] * 8  # the agent's ledger, per episode


def test_a_script_in_an_observation_is_shown_as_text_and_never_runs(browser: Any, runs: dict[str, Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    write_report(runs["echo"], tmp_path / "report.html")
    _open(browser, tmp_path / "report_pages" / "echo-00__a0.html")
    WebDriverWait(browser, PAGE_TIMEOUT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "section.step[data-step='1']"))
    step = browser.find_element(By.CSS_SELECTOR, "section.step[data-step='1']")
    assert INJECTED in step.find_element(By.CSS_SELECTOR, "pre.observation").text
    assert INJECTED in step.find_element(By.CSS_SELECTOR, "pre.action").text
    assert browser.title == "echo-00 (attempt 0) · DebugEcho-v0"
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert len(browser.find_elements(By.TAG_NAME, "script")) == 1  # the report's own


def test_two_runs_side_by_side(browser: Any, runs: dict[str, Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.wait import WebDriverWait

    index = write_comparison(runs["echo"], runs["echo_oracle"], tmp_path / "compare.html")
    _open(browser, index)
    wait = WebDriverWait(browser, PAGE_TIMEOUT)
    wait.until(lambda d: len(_visible_rows(d, "pairs")) == 8)
    Select(browser.find_element(By.CSS_SELECTOR, "[data-filter=pairs] select")).select_by_value("improved")
    wait.until(lambda d: len(_visible_rows(d, "pairs")) == 5)
    _assert_not_blank(browser, "comparison index")
    _visible_rows(browser, "pairs")[0].find_element(By.TAG_NAME, "a").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".pair > .side")) == 2)
    sides = browser.find_elements(By.CSS_SELECTOR, ".pair > .side")
    assert all(side.find_elements(By.CSS_SELECTOR, "section.step") for side in sides)
    assert "A: echo" in sides[0].text and "B: echo_oracle" in sides[1].text
    assert all(width > 0 for width in _images_loaded(browser))


def test_the_served_report_opens_in_the_browser(browser: Any, runs: dict[str, Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    command = [sys.executable, "-m", "mmenvs.cli", "view", str(runs["vtc"]), "--out", str(tmp_path / "served.html"), "--serve"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(iter(server.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
        reader.start()
        announced = wait_until(lambda: next((l for l in lines if l.startswith("serving ")), None), what="the server's URL")
        url = announced.split()[1]
        assert url.startswith("http://127.0.0.1:")
        browser.get(url)
        WebDriverWait(browser, PAGE_TIMEOUT).until(lambda d: len(_visible_rows(d, "episodes")) == len(_records(runs["vtc"])))
        assert all(width > 0 for width in _images_loaded(browser))
        _visible_rows(browser, "episodes")[0].find_element(By.TAG_NAME, "a").click()
        WebDriverWait(browser, PAGE_TIMEOUT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "section.step"))
        widths = _images_loaded(browser)
        assert widths and all(width > 0 for width in widths)
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert server.returncode is not None

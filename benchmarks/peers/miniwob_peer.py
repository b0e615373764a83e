"""MiniWoB++ (``miniwob`` on PyPI) on Debian's headless Chromium: the GUI peer of MacAgent-v0.

MiniWoB++ envs drive Chromium through Selenium. Its own driver set-up only takes the browser and driver
paths (``MINIWOB_CHROME_BINARY`` / ``MINIWOB_CHROMEDRIVER``) and three flags; here Chromium runs as root
in a container with no network, so :func:`_start_driver` passes the full headless flag set and always
names the driver binary (Selenium then never tries to fetch a driver of its own). The env class is the
one registered for the id (``gym.spec(id).entry_point``), with only its driver start-up replaced.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

INSTALL_HINT = "peer not installed: run ./setup.sh --peers"

# Headless as root without a GPU or /dev/shm to spare, and quiet: nothing in the background that
# would reach for the network or compete for the 2 cores while we time the page.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
)
DEBIAN_CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromedriver")
DEFAULT_ENV_ID = "miniwob/click-checkboxes-v1"


def chromium_paths() -> tuple[str, str] | None:
    """The Chromium binary and its chromedriver, or None when either is missing.

    MiniWoB's own variables ``MINIWOB_CHROME_BINARY`` and ``MINIWOB_CHROMEDRIVER`` win when both are set;
    otherwise Debian's ``/usr/bin/chromium`` and ``/usr/bin/chromedriver`` (``./setup.sh --peers``).
    """
    binary, driver = _candidate_paths()
    if all(Path(p).is_file() and os.access(p, os.X_OK) for p in (binary, driver)):
        return binary, driver
    return None


def _candidate_paths() -> tuple[str, str]:
    binary, driver = os.environ.get("MINIWOB_CHROME_BINARY"), os.environ.get("MINIWOB_CHROMEDRIVER")
    return (binary, driver) if binary and driver else DEBIAN_CHROMIUM


def peer_missing() -> str | None:
    """None when MiniWoB++ can run here; otherwise the bench note: what is missing and how to install it."""
    missing = []
    for module in ("miniwob", "selenium"):
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(f"python package '{module}'")
    if chromium_paths() is None:
        missing.append("chromium and chromedriver (looked for executables " + " and ".join(_candidate_paths()) + ")")
    return f"{INSTALL_HINT} (missing: {', '.join(missing)})" if missing else None


def _start_driver(url: str) -> Any:
    """A headless Chromium session with ``url`` open, started with :data:`CHROMIUM_ARGS`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    paths = chromium_paths()
    if paths is None:
        raise RuntimeError(f"MiniWoB++ peer: {peer_missing()}")
    binary, driver_path = paths
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in CHROMIUM_ARGS:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        driver.get(url)
    except Exception:
        driver.quit()
        raise
    return driver


def _headless_env_class(env_id: str) -> type:
    """The env class registered for ``env_id``, with its Selenium instance started by :func:`_start_driver`."""
    import gymnasium as gym
    import miniwob  # noqa: F401  (registers the miniwob/* ids)
    from gymnasium.envs.registration import load_env_creator
    from miniwob.selenium_instance import SeleniumInstance
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.wait import WebDriverWait

    class HeadlessChromiumInstance(SeleniumInstance):
        def create_driver(self) -> None:
            self.driver = _start_driver(self.url)
            self.driver.implicitly_wait(5)
            # The task page is ready once its sync cover (clicked to start an episode) is clickable;
            # then the viewport size is what MiniWoB scales its screenshot crop by.
            WebDriverWait(self.driver, 10).until(expected_conditions.element_to_be_clickable((By.ID, self.SYNC_SCREEN_ID)))
            self.inner_width, self.inner_height = self.driver.execute_script("return [window.innerWidth, window.innerHeight];")

    registered = load_env_creator(gym.spec(env_id).entry_point)
    if not isinstance(registered, type):
        raise TypeError(f"MiniWoB++ peer: {env_id!r} is registered with a function entry point, expected an env class")

    class HeadlessChromiumEnv(registered):  # type: ignore[misc, valid-type]
        def _hard_reset_instance(self) -> None:
            if getattr(self, "instance", None):
                self.instance.close()
            self.instance = HeadlessChromiumInstance(index=0, **self.instance_kwargs)
            self.instance.start()
            self.instance.wait()

    HeadlessChromiumEnv.__name__ = f"HeadlessChromium{registered.__name__}"
    return HeadlessChromiumEnv


class MiniWoBClickPeer:
    """A live MiniWoB++ episode to time against ours: ``reset`` and a page-changing click.

    The default task, ``click-checkboxes``, shows checkboxes and a Submit button: a CLICK_COORDS on the
    first checkbox toggles it, so every click changes the page (like our Finder sidebar click), and the
    episode goes on (it ends only on Submit or on MiniWoB's 10 s task timer). Both ``reset`` and ``click``
    return MiniWoB's full observation: utterance, DOM elements and a fresh screenshot (the 160x210 task
    area, MiniWoB's standard observation).
    """

    def __init__(self, env_id: str = DEFAULT_ENV_ID, seed: int = 0) -> None:
        reason = peer_missing()
        if reason:
            raise RuntimeError(f"MiniWoB++ peer {env_id!r}: {reason}")
        self.env_id = env_id
        self.env = _headless_env_class(env_id)()
        self.episodes_ended_by_timer = 0
        self._viewport: tuple[int, int] | None = None
        try:
            self.reset(seed)
        except Exception:
            self.env.close()
            raise

    def reset(self, seed: int | None = None) -> dict[str, Any]:
        """Start a new episode (MiniWoB re-generates the task on the open page) and aim at its first checkbox."""
        self.observation, self.info = self.env.reset(seed=seed)
        boxes = [e for e in self.observation["dom_elements"] if str(e["tag"]).lower() == "input_checkbox"]
        if not boxes:
            tags = sorted({str(e["tag"]) for e in self.observation["dom_elements"]})
            raise RuntimeError(f"MiniWoB++ peer {self.env_id!r}: no input_checkbox on the page to click (tags: {tags})")
        box = boxes[0]
        x = float(box["left"][0] + box["width"][0] / 2)
        y = float(box["top"][0] + box["height"][0] / 2)
        self.target = (x, y)
        self._action = self.env.create_action("CLICK_COORDS", coords=self._coords(x, y))
        return self.observation

    @staticmethod
    def _coords(x: float, y: float) -> Any:
        import numpy as np

        return np.array([x, y], dtype=np.float32)

    def click(self) -> bool:
        """One CLICK_COORDS step on the checkbox. True when the page answered with a new observation.

        False when the episode had ended during the step (MiniWoB's task timer): MiniWoB then skips the
        screenshot, so that timing is not comparable; the episode is reset here (its cost lands in the
        sample the caller drops) and the next click is a normal one again.
        """
        self.observation, reward, terminated, truncated, self.info = self.env.step(self._action)
        self.last_reward = float(reward)
        if terminated or truncated:
            self.episodes_ended_by_timer += 1
            self.reset()
            return False
        return True

    def viewport_screenshot(self, width: int, height: int) -> tuple[Any, tuple[int, int]]:
        """Resize the browser window to ``width`` x ``height`` and return a full-viewport screenshot (RGB array)
        with the viewport's size. Use it after the episode timings only: MiniWoB crops its own screenshots by
        the viewport size it measured at start-up."""
        import io

        import numpy as np
        from PIL import Image

        driver = self.env.instance.driver
        if self._viewport != (width, height):
            # The window includes the browser's own frame (even headless), so size it once, see how much
            # of it the page gets, and grow the window by the difference.
            driver.set_window_size(width, height)
            inner_width, inner_height = driver.execute_script("return [window.innerWidth, window.innerHeight];")
            driver.set_window_size(2 * width - inner_width, 2 * height - inner_height)
            self._viewport = (width, height)
        png = driver.get_screenshot_as_png()
        image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        return image, (image.shape[1], image.shape[0])

    def browser_pss_mb(self) -> float:
        """Proportional memory (PSS) of the chromedriver process and the Chromium processes under it, in MB."""
        from mmenvs.benchmarks.harness import tree_pss_mb

        return tree_pss_mb(self.env.instance.driver.service.process.pid)

    def close(self) -> None:
        """Quit Chromium and its driver."""
        self.env.close()

    def __enter__(self) -> "MiniWoBClickPeer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

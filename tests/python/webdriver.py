"""webdriver.py -- a headless Chromium driven through chromedriver's W3C
WebDriver protocol (JSON over HTTP, urllib alone: no Selenium), for the
browser tests of flow-studio.

    with Browser(download_dir) as b:
        b.open("http://127.0.0.1:8000/")
        b.wait(lambda: b.script("return document.title") == "flow-studio")
        b.find("#sequence").click()

Chromium and chromedriver are Debian's packages `chromium` and
`chromium-driver` (scripts/setup.sh installs them); find() says where they
are, or None.
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

# The key under which WebDriver returns an element reference.
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def executables():
    """(chromium, chromedriver), or None when one of them is missing."""
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(n)), None)
    driver = shutil.which("chromedriver") or next(
        (p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if os.access(p, os.X_OK)),
        None)
    return (browser, driver) if browser and driver else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriverError(RuntimeError):
    pass


class Element:
    def __init__(self, browser, ref):
        self.browser, self.ref = browser, ref

    def _call(self, method, what, body=None):
        return self.browser.call(method, f"/element/{self.ref}/{what}", body)

    def click(self):
        self._call("POST", "click", {})

    def clear(self):
        self._call("POST", "clear", {})

    def type(self, text):
        """Types text as keystrokes (each fires the input events a user's would)."""
        self._call("POST", "value", {"text": text})

    @property
    def text(self):
        return self._call("GET", "text")


class Browser:
    """A chromedriver process and one headless Chromium session."""

    def __init__(self, download_dir, size=(1500, 1000), timeout=60):
        found = executables()
        if not found:
            raise WebDriverError("chromium or chromedriver is not installed")
        browser, driver = found
        self.timeout = timeout
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.driver = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.session = None
        try:
            self._wait_driver()
            options = {
                "binary": browser,
                # root (CI containers) needs --no-sandbox; /dev/shm is small there
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         f"--window-size={size[0]},{size[1]}", "--hide-scrollbars"],
                "prefs": {"download.default_directory": str(download_dir),
                          "download.prompt_for_download": False},
            }
            caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome",
                                                     "goog:chromeOptions": options,
                                                     "goog:loggingPrefs": {"browser": "ALL"}}}}
            self.session = self._request("POST", "/session", caps)["sessionId"]
            # headless Chromium downloads only where it is told to
            self.call("POST", "/goog/cdp/execute", {
                "cmd": "Browser.setDownloadBehavior",
                "params": {"behavior": "allow", "downloadPath": str(download_dir)}})
        except Exception:
            self.close()
            raise

    def _wait_driver(self):
        end = time.monotonic() + 20
        while time.monotonic() < end:
            try:
                if self._request("GET", "/status").get("ready"):
                    return
            except (OSError, WebDriverError):
                pass
            time.sleep(0.1)
        raise WebDriverError("chromedriver did not start")

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return json.load(r)["value"]
        except urllib.error.HTTPError as e:
            value = json.load(e).get("value", {})
            raise WebDriverError(f"{method} {path}: {value.get('error')}: {value.get('message')}") from None

    def call(self, method, path, body=None):
        return self._request(method, f"/session/{self.session}{path}", body)

    def close(self):
        if self.session:
            try:
                self._request("DELETE", f"/session/{self.session}")
            except (OSError, WebDriverError):
                pass
            self.session = None
        if self.driver.poll() is None:
            self.driver.terminate()
            self.driver.wait(10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- what the tests do --------------------------------------------------

    def open(self, url):
        self.call("POST", "/url", {"url": url})

    def script(self, source, *args):
        """Runs JavaScript in the page (a function body; args as `arguments`)."""
        return self.call("POST", "/execute/sync", {"script": source, "args": list(args)})

    def find(self, css):
        return Element(self, self.call("POST", "/element", {"using": "css selector", "value": css})[ELEMENT])

    def wait(self, condition, what="the page", timeout=None):
        """Polls condition() until it is true (returning its value)."""
        end = time.monotonic() + (timeout or self.timeout)
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > end:
                raise WebDriverError(f"timed out waiting for {what}")
            time.sleep(0.1)

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("GET", "/screenshot")))

    def console(self):
        """The browser's console messages since the last call: [{level, message}]."""
        return self.call("POST", "/se/log", {"type": "browser"})

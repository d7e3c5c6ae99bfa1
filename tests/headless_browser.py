"""Pages opened in headless Chromium, driven over the DevTools protocol on a pipe (no extra packages):
what each page shows and whether each of its images loaded."""

import json
import os
import select
import shutil
import subprocess
import tempfile
from pathlib import Path

PAGE_STATE = """JSON.stringify({
  title: document.title,
  text: document.body ? document.body.innerText : "",
  images: Array.from(document.images).map(i => ({src: i.getAttribute("src"),
                                                 loaded: i.complete && i.naturalWidth > 0})),
  links: Array.from(document.links).map(a => a.href)})"""


def chromium() -> str | None:
    """The path of Chromium (Debian's package: chromium), or None."""
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


class Browser:
    """Headless Chromium; ``open(path)`` loads a local file in a new tab and returns PAGE_STATE as a dict."""

    def __init__(self, executable: str, timeout: float = 60):
        self.profile = tempfile.TemporaryDirectory()
        # fd 3 carries the commands in, fd 4 the answers out (--remote-debugging-pipe): here stdin and stdout
        self.proc = subprocess.Popen(
            ["sh", "-c", 'exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null 2>&1', executable, "--headless",
             "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", f"--user-data-dir={self.profile.name}",
             "about:blank"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.timeout, self.next_id, self.buffer = timeout, 0, b""

    def _send(self, method, session=None, **params) -> int:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.proc.stdin.write(json.dumps(message).encode() + b"\0")
        self.proc.stdin.flush()
        return self.next_id

    def _read(self) -> dict:
        while b"\0" not in self.buffer:
            if not select.select([self.proc.stdout], [], [], self.timeout)[0]:
                raise TimeoutError(f"no answer from Chromium in {self.timeout} s")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise RuntimeError(f"Chromium closed its pipe (exit status {self.proc.poll()})")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def _wait(self, match) -> dict:
        while True:
            message = self._read()
            if "error" in message:
                raise RuntimeError(f"DevTools: {message['error']}")
            if match(message):
                return message

    def call(self, method, session=None, **params) -> dict:
        call_id = self._send(method, session, **params)
        return self._wait(lambda m: m.get("id") == call_id)["result"]

    def open(self, path: Path) -> dict:
        """PAGE_STATE of the page at path after its load event (images loaded or failed by then)."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session)
        navigated = self.call("Page.navigate", session, url=Path(path).resolve().as_uri())
        if "errorText" in navigated:
            raise RuntimeError(f"{path}: {navigated['errorText']}")
        self._wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == session)
        state = self.call("Runtime.evaluate", session, expression=PAGE_STATE, returnByValue=True)
        self.call("Target.closeTarget", targetId=target)
        return json.loads(state["result"]["value"])

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.profile.cleanup()


def rendered_report(browser: Browser, index: Path) -> dict:
    """{page path: its state in Chromium} of the index and every page it links to; asserts that each renders
    and that every image on it loaded."""
    pages = {index: browser.open(index)}
    for link in pages[index]["links"]:
        path = Path(link.removeprefix("file://"))
        pages[path] = browser.open(path)
    for path, page in pages.items():
        assert page["title"] and page["text"], path
        assert all(image["loaded"] for image in page["images"]), (path, page["images"])
    return pages

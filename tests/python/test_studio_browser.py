"""test_studio_browser.py -- flow-studio's page in a headless Chromium
(webdriver.py): it loads, a control moved by typing or by its slider
recomputes the flow (the picture and the AEE change), the saved .params
makes flow-compute -p give the flow the page saved bit for bit, a refused
value shows the library's message and the next good one computes again, and
two sets compare side by side.

Skipped, with a notice, without Debian's chromium and chromium-driver
(scripts/setup.sh installs them).  FLOW_STUDIO_SHOTS=DIR keeps screenshots
of the page there.
"""
import os
import re
import time

import numpy as np
import pytest

import flowplatform as fp
from conftest import tool
from studio import DEVICE, Studio, make_sequence
from webdriver import Browser, executables

pytestmark = pytest.mark.skipif(
    executables() is None,
    reason="flow-studio's browser test: chromium and chromedriver are not installed "
           "(scripts/setup.sh installs chromium and chromium-driver)")

SHOTS = os.environ.get("FLOW_STUDIO_SHOTS")


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    d = tmp_path_factory.mktemp("studio")
    seq = make_sequence(str(d / "seq"), n=3, size=(120, 90))
    s = Studio(d / "seq")
    yield s, seq
    s.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    downloads = tmp_path_factory.mktemp("downloads")
    with Browser(downloads) as b:
        b.downloads = downloads
        yield b


def shot(browser, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        browser.screenshot(os.path.join(SHOTS, name))


def page(b):
    """What the test reads of the page: the first set's colour picture, its
    AEE, the banner, the cards' titles, and whether a computation is on."""
    return b.script("""
        const q = (s) => document.querySelector(s);
        return {color: q('#results img.color')?.src || null,
                aee: q('#cards .card[data-set="0"] .aee')?.textContent || null,
                banner: q('#banner').hidden ? '' : q('#banner').textContent,
                failed: [...document.querySelectorAll('#cards .set-error')].map((e) => e.textContent),
                cards: [...document.querySelectorAll('#cards h2')].map((h) => h.textContent),
                busy: !q('#busy').hidden,
                invalid: [...document.querySelectorAll('.param.invalid')].map((p) => p.dataset.name)};""")


def settled(b, what, condition):
    """Waits until no computation is on and condition(page) holds."""
    return b.wait(lambda: (lambda p: not p["busy"] and condition(p) and p)(page(b)), what)


def choose(b, css, value):
    """Chooses value in a <select> as a user does: change fires."""
    b.script("const s = document.querySelector(arguments[0]); s.value = arguments[1];"
             "s.dispatchEvent(new Event('change'));", css, value)


def type_into(b, css, text):
    e = b.find(css)
    e.clear()
    e.type(text)


def downloaded(b, suffix):
    def done():
        names = [n for n in os.listdir(b.downloads) if n.endswith(suffix)]
        return names[0] if names else None
    return os.path.join(b.downloads, b.wait(done, f"the download of a {suffix} file"))


def test_page_computes_saves_and_compares(studio, browser, tmp_path):
    s, seq = studio
    b = browser
    b.open(s.url)
    first = settled(b, "the first flow", lambda p: p["color"] and p["aee"])
    assert first["banner"] == "" and first["cards"] == [f"Set A: {fp.default_method}"]

    # another method: its controls come from its schema
    choose(b, "#set-0 select.method", "clg-nl")
    shown = settled(b, "clg-nl's flow", lambda p: p["cards"] == ["Set A: clg-nl"])
    assert b.script("return document.querySelectorAll('#set-0 .param').length") == \
        len(fp.schema("clg-nl")["params"])

    # typing a value recomputes: another picture, another AEE
    type_into(b, '#set-0 .param[data-name="alpha"] input.number', "400")
    moved = settled(b, "the flow with alpha 400",
                    lambda p: p["color"] != shown["color"] and p["aee"] != shown["aee"])
    # so does dragging a slider (its input events, as the browser fires them)
    b.script("""const r = document.querySelector('#set-0 .param[data-name="sigma"] input[type=range]');
                r.value = Number(r.max) / 2; r.dispatchEvent(new Event('input'));""")
    slid = settled(b, "the flow with another sigma",
                   lambda p: p["color"] != moved["color"] and p["aee"] != moved["aee"])
    sigma = b.script("return document.querySelector('#set-0 .param[data-name=\"sigma\"] input.number').value")
    assert float(sigma) != fp.schema("clg-nl")["params"][0]["default"]
    shot(b, "studio-pair.png")

    # the saved .params reproduces the saved flow with flow-compute, bit for bit
    b.find("#set-0 .save-params").click()
    b.find("#set-0 .save-flow").click()
    params, flo = downloaded(b, ".params"), downloaded(b, ".flo")
    text = open(params).read()
    assert "method,clg-nl\n" in text and "alpha,400\n" in text and f"sigma,{sigma}\n" in text
    frames = sorted(os.path.join(seq, n) for n in os.listdir(seq) if n.endswith(".png"))
    tool("flow-compute", "-q", "-d", DEVICE, "-p", params, frames[0], frames[1],
         "-o", tmp_path / "again.flo")
    np.testing.assert_array_equal(fp.read_flow(tmp_path / "again.flo"), fp.read_flow(flo))
    # and the AEE on the page (4 digits) is that flow's
    truth = fp.error(fp.read_flow(tmp_path / "again.flo"), fp.read_flow(os.path.join(seq, "frame_000.flo")))
    assert slid["aee"] == f"AEE {float(f'{truth.aee:.4g}'):g} px"

    # a refused value: the library's message on the page, the control marked
    type_into(b, '#set-0 .param[data-name="alpha"] input.number', "-5")
    bad = settled(b, "the refusal", lambda p: p["failed"])
    assert bad["failed"] == ["parameter alpha = -5 out of range (0 < alpha <= 1e+12)"]
    assert bad["invalid"] == ["alpha"]
    shot(b, "studio-error.png")
    type_into(b, '#set-0 .param[data-name="alpha"] input.number', "50")
    good = settled(b, "a good value again", lambda p: not p["failed"] and p["color"] != slid["color"])
    assert good["invalid"] == [] and good["banner"] == ""

    # two sets side by side: set B another method
    b.find("#compare").click()
    settled(b, "two sets", lambda p: p["cards"] == ["Set A: clg-nl", "Set B: clg-nl"])
    b.find('#set-tabs [data-set="1"]').click()
    choose(b, "#set-1 select.method", "hs")
    settled(b, "set B with hs", lambda p: p["cards"] == ["Set A: clg-nl", "Set B: hs"])
    pictures = b.script("return [...document.querySelectorAll('#results img.color')].map((i) => i.src)")
    assert len(pictures) == 2 and pictures[0] != pictures[1]
    assert b.script("return document.querySelectorAll('#results img.error-map').length") == 2
    shot(b, "studio-compare.png")

    # what the page loads without fetch (images, links) carries its token too
    assert b.script("return document.querySelector('img.legend').naturalWidth") > 0
    errors = [m for m in b.console() if m["level"] == "SEVERE" and m.get("source") != "network"]
    assert errors == []
    assert s.alive()


def test_live_mode_plays_the_sequence(studio, browser):
    s, _ = studio
    b = browser
    b.open(s.url)
    settled(b, "the first flow", lambda p: p["color"])
    b.find('#modes [data-mode="live"]').click()
    b.find("#play").click()
    rate = b.wait(lambda: b.script("return document.querySelector('#live-results .fps')?.textContent"),
                  "a live flow")
    pairs = set()
    end = time.monotonic() + 60
    while len(pairs) < 2 and time.monotonic() < end:  # both pairs of the three frames come round
        text = b.script("return document.querySelector('#live-results .live-figures')?.textContent")
        pairs.update(re.findall(r"pair (\d) \u2192", text))
        time.sleep(0.05)
    assert pairs == {"0", "1"} and "flows/s" in rate
    assert b.script("return document.querySelectorAll('#live-results img.color').length") == 1
    shot(b, "studio-live.png")
    b.find("#play").click()
    assert b.find("#play").text == "Play"
    assert s.alive()


def test_address_shares_the_state(studio, browser):
    """The address carries the sequence, the pair, the sets and the display
    options; opening it again (a fresh page) restores them all."""
    s, _ = studio
    b = browser
    b.open(s.url)
    settled(b, "the first flow", lambda p: p["color"] and p["aee"])
    choose(b, "#set-0 select.method", "hs")
    settled(b, "hs's flow", lambda p: p["cards"] == ["Set A: hs"])
    type_into(b, '#set-0 .param[data-name="alpha"] input.number', "321")
    type_into(b, "#error-max", "3.5")
    choose(b, "#arrow-scale", "2")
    before = settled(b, "the flow with alpha 321", lambda p: "#" in b.script("return location.href")
                     and "321" in b.script("return decodeURIComponent(location.hash)"))
    address = b.script("return location.href")
    state = b.script("return decodeURIComponent(location.hash)")
    assert '"method":"hs"' in state and '"alpha":"321"' in state and "error=3.5" in state
    assert "arrows=2" in state and "token" not in state  # the token never goes in the address

    b.open(s.url)  # a fresh page without the address opens on the defaults
    settled(b, "the default flow", lambda p: p["cards"] == [f"Set A: {fp.default_method}"])
    b.open("about:blank")
    b.open(address)
    again = settled(b, "the shared flow", lambda p: p["cards"] == ["Set A: hs"] and p["aee"])
    assert b.script("return document.querySelector('#set-0 .param[data-name=\"alpha\"] input.number').value") == "321"
    assert b.script("return document.querySelector('#error-max').value") == "3.5"
    assert b.script("return document.querySelector('#arrow-scale').value") == "2"
    assert again["banner"] == ""
    assert again["aee"] == before["aee"], (again["aee"], before["aee"])

    # a sequence this studio does not have: said, and the page still computes
    b.open("about:blank")
    b.open(address.replace("seq=", "seq=nowhere"))
    settled(b, "another sequence's flow", lambda p: p["aee"])
    note = b.script("const n = document.querySelector('#state-note'); return n.hidden ? '' : n.textContent")
    assert "seq=nowhere" not in note and "is not in this studio's catalog" in note


def test_pictures_legend_and_full_size(studio, browser):
    """Pictures grow with the window (two of 420 px or more in a row at
    1500 px), the error key reads "0 [ramp] 2 px or more [swatch] not
    scored", and a click shows a picture at full size until Escape."""
    s, _ = studio
    b = browser
    b.open(s.url)
    settled(b, "the first flow", lambda p: p["color"] and p["aee"])
    widths = b.script("return [...document.querySelectorAll('#results .picture')]"
                      ".map((p) => p.getBoundingClientRect().width)")
    assert len(widths) == 3 and min(widths) >= 420
    key = b.script("return [...document.querySelectorAll('.error-key > span')].map((e) => e.textContent)")
    assert key == ["0", "", "2 px or more", "", "not scored"]
    assert b.script("return document.querySelector('#sequence-about').textContent").endswith(
        "3 frames, 2 pairs with ground truth")
    # the pair list names the second frame by what differs from the first
    assert b.script("return document.querySelector('#pair').options[1].textContent") == \
        "1: frame_001 \u2192 002 \u2713 GT"
    assert b.script("return document.querySelector('#pair').options[1].title") == \
        "frame_001 \u2192 frame_002, with ground truth"
    b.find("#results img.color").click()
    assert b.script("return document.querySelector('#full-view img.full').naturalWidth") > 0
    b.script("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}))")
    assert b.script("return document.querySelector('#full-view')") is None
    shot(b, "studio-1500.png")


def test_opens_on_a_real_sequence(tmp_path, browser):
    """Without an address, the page opens on a real sequence with ground
    truth, not on a generated demo-* one (a flat translation) listed first."""
    make_sequence(str(tmp_path / "demo-translate"), n=2, size=(48, 36))
    make_sequence(str(tmp_path / "walk"), n=2, size=(48, 36))
    s = Studio(tmp_path)
    try:
        b = browser
        b.open(s.url)
        settled(b, "the first flow", lambda p: p["color"] and p["aee"])
        names = b.script("return [...document.querySelectorAll('#sequence option')].map((o) => o.textContent)")
        assert names.index("demo-translate") < names.index("walk"), names
        assert b.script("return document.querySelector('#sequence').selectedOptions[0].textContent") == "walk"
    finally:
        s.close()

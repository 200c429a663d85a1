"""`simkit view`: one graded game as a page (simkit.view).

The page's data is checked against decisions.parquet and games.parquet row by row; the page itself is loaded in a
real browser (headless Chromium through selenium), stepped through with the keyboard, and what it shows is read
back from the DOM and compared with decisions.parquet. Locally that test skips where no browser is installed; under
CI (CI=true) a missing browser fails it, so the check cannot silently stop running."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simkit.analyze.batch import analyze_file
from simkit.view import ViewError, build_page, page_data, page_name, write_page
from simkit.view import page as view_page
from simkit_cli import simkit as run_cli

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "simkit" / "data" / "demo-games.jsonl"
CHROMIUM = Path(os.environ.get("SIMKIT_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("SIMKIT_CHROMEDRIVER", "/usr/bin/chromedriver"))

# every contract, Touts, both decks (demo-17, demo-18 are short), a game decided by a mistake (demo-05)
PICK = ("demo-01", "demo-05", "demo-09", "demo-11", "demo-12", "demo-13", "demo-14", "demo-15", "demo-16",
        "demo-17", "demo-18")
CONCEDED = "demo-05-conceded"
NAMES = ["Anna", "Bert", "Cilli", "Done"]


def _games_file(path: Path) -> list[str]:
    """The picked demo games, one of them with player names, and one cut short by a conceded last trick."""
    records = [json.loads(x) for x in DEMO.read_text().splitlines() if x.strip()]
    picked = [r for r in records if r["id"][:7] in PICK]
    picked[0]["players"] = NAMES
    conceded = json.loads(json.dumps(next(r for r in records if r["id"].startswith("demo-05"))))
    conceded["id"] = CONCEDED
    conceded["tricks"] = conceded["tricks"][:-1]
    conceded.pop("expected_payouts", None)
    picked.append(conceded)
    path.write_text("".join(json.dumps(r) + "\n" for r in picked))
    return [r["id"] for r in picked]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """An analysis (points, with the heuristic's advice) of the picked games: (directory, game ids)."""
    tmp = tmp_path_factory.mktemp("view")
    ids = _games_file(tmp / "games.jsonl")
    result = analyze_file(tmp / "games.jsonl", tmp / "analysis", objective="points", strategies=["heuristic"],
                          workers=1)
    assert result.games == len(ids) and not result.errors
    return tmp / "analysis", ids


def _rows(out: Path, game_id: str) -> list[dict]:
    return pq.read_table(out / "decisions.parquet", filters=[("game_id", "==", game_id)]).to_pylist()


def _game(out: Path, game_id: str) -> dict:
    return pq.read_table(out / "games.parquet", filters=[("game_id", "==", game_id)]).to_pylist()[0]


# ------------------------------------------------------------------------------------------ the page's data

def test_every_decision_is_on_the_page(graded):
    out, ids = graded
    for gid in ids:
        data, rows, game = page_data(out, gid), _rows(out, gid), _game(out, gid)
        assert len(data["decisions"]) == len(rows) > 0
        for d, r in zip(data["decisions"], rows):
            for k in ("trick", "position", "seat", "card", "best_value", "played_value", "loss", "forced", "best",
                      "blunder"):
                assert d[k] == r[k], (gid, k)
            assert d["values"] == [[v["card"], v["value"]] for v in r["values"]]
            assert d["forced"] == (len(r["values"]) == 1)
            assert d["advice"] == {"heuristic": {"card": r["heuristic_card"], "loss": r["heuristic_loss"]}}
        n_tricks = len(rows) // 4
        assert data["deck"] == ("short" if n_tricks == 6 else "long")
        hands = data["hands"]
        assert all(len(h) == n_tricks for h in hands)
        assert sorted(c for h in hands for c in h) == sorted(r["card"] for r in rows)
        assert data["values"] == [rows[0]["best_value"]] + [r["played_value"] for r in rows]
        assert data["won"][0] == game["dd_won"] and data["won"][-1] == game["won"]
        assert (data["declarer"], data["partner"]) == (game["declarer"], game["partner"])
        if game["decisive_trick"] is None:
            assert data["decisive"] is None
        else:
            d = rows[data["decisive"]]
            assert (d["trick"], d["seat"], d["card"]) == (game["decisive_trick"], game["decisive_seat"],
                                                          game["decisive_card"])
        assert [t["winner"] for t in data["tricks"][:-1]] == [rows[4 * t]["seat"] for t in range(1, n_tricks)]
        assert data["tricks"][-1]["declaring_points"] == game["declarer_points"]
    first = page_data(out, ids[0])
    assert first["players"] == NAMES
    assert page_data(out, ids[1])["players"] == [f"seat {s}" for s in range(4)]


def test_contracts_and_decks_are_all_there(graded):
    out, ids = graded
    seen = {(page_data(out, g)["contract"], page_data(out, g)["deck"]) for g in ids}
    for kind in ("rufspiel", "solo", "solo tout", "wenz", "wenz tout", "geier", "farbwenz", "farbgeier"):
        assert any(c == kind for c, _ in seen), kind
    assert {d for _, d in seen} == {"long", "short"}
    assert page_data(out, "demo-12-wenz-sauspiel-tariff")["title"] == "Wenz"
    assert page_data(out, "demo-09-herz-solo-schneider")["title"] == "Herz-Solo"
    assert page_data(out, "demo-11-eichel-solo-tout")["title"] == "Eichel-Solo Tout"


def test_a_conceded_last_trick_is_marked(graded):
    out, _ = graded
    data, whole = page_data(out, CONCEDED), page_data(out, "demo-05-rufspiel-sau-im-letzten-stich")
    n = len(data["decisions"])
    assert n == 32 and data["recorded"] == 28 and whole["recorded"] == 32
    assert all(d["forced"] for d in data["decisions"][28:])
    assert data["decisions"] == whole["decisions"]


def test_the_page_is_self_contained(graded):
    out, ids = graded
    html = build_page(out, ids[1])
    assert "__DATA__" not in html and "/*SCRIPT*/" not in html and "/*STYLE*/" not in html
    # nothing to fetch: no script or style source, no address (the SVG namespace is a name, never loaded)
    loads = html.replace("http://www.w3.org/2000/svg", "")
    assert not re.search(r"<script[^>]+src=|<link\b|@import|url\(|https?://|<img|<iframe", loads)
    blob = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S).group(1)
    assert json.loads(blob.replace("<\\/", "</")) == page_data(out, ids[1])


def test_a_script_tag_in_an_id_cannot_break_the_page():
    data = {"id": "</script><script>alert(1)</script>", "title": "x"}
    html = view_page.render(data)
    blob = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S).group(1)
    assert json.loads(blob.replace("<\\/", "</")) == data
    assert "<title>&lt;/script&gt;" in html


def test_page_names():
    assert page_name("demo-01-rufspiel") == "demo-01-rufspiel.html"
    urlish = page_name("https://www.sauspiel.de/spiele/1180324214")
    assert re.fullmatch(r"[A-Za-z0-9_.-]+\.html", urlish) and "1180324214" in urlish
    assert page_name("a b") != page_name("a-b") and page_name("line 3") != page_name("line-3")
    assert re.fullmatch(r"[0-9a-f]{8}\.html", page_name("///"))


def test_bad_input(graded, tmp_path):
    out, ids = graded
    with pytest.raises(ViewError, match="no game 'nope' in analysis .* ids look like 'demo-01"):
        page_data(out, "nope")
    with pytest.raises(ViewError, match="is not an analysis"):
        page_data(tmp_path, "x")
    with pytest.raises(ViewError, match="does not exist"):
        page_data(tmp_path / "missing", "x")
    twice = tmp_path / "twice"
    twice.mkdir()
    (twice / "decisions.parquet").write_bytes((out / "decisions.parquet").read_bytes())
    games = pq.read_table(out / "games.parquet")
    pq.write_table(pa.concat_tables([games, games]), twice / "games.parquet")
    with pytest.raises(ViewError, match=r"game id 'demo-01\S*' names 2 games .* \(lines 1, 1\)"):
        page_data(twice, ids[0])
    (tmp_path / "decisions.parquet").write_text("not parquet")
    (tmp_path / "games.parquet").write_text("not parquet")
    with pytest.raises(ViewError, match="cannot read"):
        page_data(tmp_path, "x")


def test_writes_are_atomic(graded, tmp_path, monkeypatch):
    out, ids = graded
    target = tmp_path / "page.html"
    monkeypatch.setattr(view_page.os, "replace", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        write_page(out, ids[0], target)
    assert list(tmp_path.iterdir()) == []  # neither the page nor a temporary file
    monkeypatch.undo()
    mask = os.umask(0o022)
    try:
        assert write_page(out, ids[0], target).stat().st_mode & 0o777 == 0o644  # readable where it is served
    finally:
        os.umask(mask)


def test_report_links_every_game_it_names(graded):
    out, _ = graded
    report = (out / "report.html").read_text(encoding="utf-8")
    swings = pq.read_table(out / "games.parquet").to_pylist()
    links = re.findall(r"<a href='(games/[^']+)'>([^<]+)</a>", report)
    assert links and len(links) == min(8, len(swings))
    for href, gid in links:
        assert href == f"games/{page_name(gid)}" and (out / href).is_file()
        assert page_data(out, gid)["id"] in (out / href).read_text(encoding="utf-8")
    assert f"](games/{page_name(links[0][1])})" in (out / "report.md").read_text(encoding="utf-8")


def test_cli(graded, tmp_path):
    out, ids = graded
    r = run_cli("view", out, "--game", ids[1], "--out", tmp_path / "p.html")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "p.html") and (tmp_path / "p.html").stat().st_size > 10_000
    r = run_cli("view", out, "--game", ids[2])
    assert r.returncode == 0 and Path(r.stdout.strip()) == out / "games" / page_name(ids[2])
    r = run_cli("view", out, "--game", ids[3], "--out", tmp_path)
    assert r.returncode == 0 and Path(r.stdout.strip()) == tmp_path / page_name(ids[3])
    for args, what in (((out, "--game", "nope"), "no game 'nope'"), ((tmp_path, "--game", ids[0]), "not an analysis"),
                       ((tmp_path / "missing", "--game", ids[0]), "does not exist")):
        r = run_cli("view", *args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and what in r.stderr, r.stderr
        assert r.stderr.startswith("simkit: error: ")


def test_the_view_loads_no_kernels(graded):
    """The view only reads files: opening a page never imports numba (the solver's compile would take minutes)."""
    out, ids = graded
    code = (f"import sys; from simkit.view import build_page; build_page({str(out)!r}, {ids[0]!r}); "
            "assert 'numba' not in sys.modules, 'numba was imported'")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------------------------------ in a browser

@pytest.fixture(scope="module")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _no_browser("selenium is not installed (pip install -c constraints.txt -e '.[dev]')")
    if not CHROMIUM.is_file() or not CHROMEDRIVER.is_file():
        _no_browser(f"no headless browser: {CHROMIUM} and {CHROMEDRIVER} are needed "
                    "(apt-get install -y chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1400"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    yield driver
    driver.quit()


def _no_browser(why: str):
    if os.environ.get("CI"):
        pytest.fail(f"{why}; .ci/run installs it")
    pytest.skip(why)


def _open(driver, path: Path):
    driver.get(path.resolve().as_uri())
    assert driver.find_element("id", "decision").get_attribute("data-step") == "0"


def _press(driver, key: str, times: int = 1):
    """Press ``key`` (a name of selenium's Keys: ARROW_RIGHT, END, ...) ``times`` times, as a user does."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    if times:
        ActionChains(driver).send_keys(getattr(Keys, key) * times).perform()


def _shown(driver) -> dict:
    """What the decision panel shows, read from its text (the data-* attributes only locate the cells)."""
    box = driver.find_element("id", "decision")
    rows = []
    for tr in box.find_elements("css selector", "tr.legal"):
        rows.append({"card": tr.find_element("css selector", "td.c").text,
                     "value": int(tr.find_element("css selector", "td.value").text),
                     "loss": int(tr.find_element("css selector", "td.loss").text),
                     "played": tr.get_attribute("data-played") == "1"})
    advice = {p.get_attribute("data-strategy"): p.text for p in box.find_elements("css selector", "p.advice")}
    return {"step": int(box.get_attribute("data-step")), "heading": box.find_element("tag name", "h3").text,
            "flags": box.find_element("css selector", "p.flags").text if rows else "", "rows": rows,
            "advice": advice}


def _expected_rows(r: dict, team: bool) -> list[dict]:
    best = r["best_value"]
    return [{"card": v["card"], "value": v["value"], "loss": (best - v["value"]) if team else (v["value"] - best),
             "played": v["card"] == r["card"]} for v in r["values"]]


def test_stepping_through_a_game_in_the_browser(graded, browser):
    out, _ = graded
    for gid in ("demo-05-rufspiel-sau-im-letzten-stich", "demo-17-short-rufspiel", CONCEDED):
        page = write_page(out, gid)
        rows, game = _rows(out, gid), _game(out, gid)
        team = {game["declarer"], game["partner"]}
        decisive = page_data(out, gid)["decisive"]
        _open(browser, page)
        at = 0
        for k in sorted({0, 1, 2, 5, 7, 13, len(rows) - 1} | ({decisive} if decisive is not None else set())):
            _press(browser, "ARROW_RIGHT", k - at)
            at = k
            shown, r = _shown(browser), rows[k]
            assert shown["step"] == k
            assert shown["rows"] == _expected_rows(r, r["seat"] in team), (gid, k)
            played = [x for x in shown["rows"] if x["played"]]
            assert [(x["card"], x["loss"]) for x in played] == [(r["card"], r["loss"])]
            assert f"Trick {r['trick']}:" in shown["heading"]
            assert ("forced" in shown["flags"]) == r["forced"]
            assert ("blunder" in shown["flags"]) == r["blunder"]
            assert ("decisive" in shown["flags"]) == (k == decisive)
            assert shown["advice"] == {"heuristic": f"heuristic would have played {r['heuristic_card']} (loss "
                                       f"{r['heuristic_loss']})" + (", the card played" if r["heuristic_card"] ==
                                                                     r["card"] else "")}
            current = browser.find_elements("css selector", "#moves td.mv.cur")
            assert [int(td.get_attribute("data-i")) for td in current] == [k]
            if gid == CONCEDED:
                assert ("not recorded" in shown["flags"]) == (k >= 28)
        _press(browser, "ARROW_RIGHT")  # past the last card: the end
        assert _shown(browser)["heading"] == "Game over"
        assert browser.find_element("id", "step").get_attribute("data-step") == str(len(rows))
        points = browser.find_elements("css selector", "#curve circle.pt")
        assert len(points) == len(rows) + 1
        blunders = browser.find_elements("css selector", "#curve circle.pt.blunder")
        assert len(blunders) == sum(r["blunder"] for r in rows)
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors


def test_trick_keys_buttons_and_links_in_the_browser(graded, browser):
    out, _ = graded
    gid = "demo-18-short-gras-solo"
    rows = _rows(out, gid)
    _open(browser, write_page(out, gid))
    _press(browser, "ARROW_DOWN", 2)  # two tricks on
    assert _shown(browser)["step"] == 8
    _press(browser, "ARROW_RIGHT")  # a card on, then a trick back: to the trick's lead
    _press(browser, "ARROW_UP")
    assert _shown(browser)["step"] == 8
    browser.find_element("id", "next").click()
    browser.find_element("id", "next").click()
    assert _shown(browser)["step"] == 10
    _press(browser, "END")
    assert _shown(browser)["step"] == len(rows) and browser.find_element("id", "next").get_attribute("disabled")
    _press(browser, "HOME")
    assert _shown(browser)["step"] == 0
    browser.find_element("css selector", "#moves td.mv[data-i='13']").click()
    assert _shown(browser)["step"] == 13
    hands = browser.find_elements("css selector", "#seat0 .hand .card")
    assert len(hands) == 6 - sum(r["seat"] == 0 for r in rows[:13])  # seat 0's cards still in hand
    # the hands' values are those of the panel: each legal card of the player to move carries its value
    seat = rows[13]["seat"]
    shown = {s.find_element("css selector", ".card").text: s.find_element("css selector", ".val").text
             for s in browser.find_elements("css selector", f"#seat{seat} .slot") if
             s.find_elements("css selector", ".val")}
    assert shown == {v["card"]: str(v["value"]) for v in rows[13]["values"]}


# ------------------------------------------------------------------------------------------ club contracts

CLUB_PICK = ("demo-club-bettel-won-kontra", "demo-club-bettel-lost-stops", "demo-club-ramsch-jungfrau-none")


@pytest.fixture(scope="module")
def club_graded(tmp_path_factory):
    """The demo Bettel and Ramsch records graded under the `club` preset, objective points (which a Bettel
    overrides with win, a Ramsch with each mover's own points)."""
    tmp = tmp_path_factory.mktemp("view-club")
    records = [x for x in DEMO.read_text().splitlines() if x.strip() and json.loads(x)["id"] in CLUB_PICK]
    (tmp / "club.jsonl").write_text("\n".join(records) + "\n")
    result = analyze_file(tmp / "club.jsonl", tmp / "analysis", rules="club", objective="points", workers=1)
    assert result.games == len(CLUB_PICK) and not result.errors
    return tmp / "analysis"


def test_club_games_are_shown_by_what_they_were_graded_under(club_graded):
    out = club_graded
    for gid in CLUB_PICK:
        data, rows, game = page_data(out, gid), _rows(out, gid), _game(out, gid)
        assert [len(h) for h in data["hands"]] == [8] * 4 and data["deck"] == "long"  # as dealt, every card
        assert sorted(c for h in data["hands"] for c in h) == sorted(c for h in game["hands"] for c in h)
        assert [d["card"] for d in data["decisions"]] == [r["card"] for r in rows]
        final = data["tricks"][-1]
        if gid.startswith("demo-club-bettel"):
            assert data["objective"] == "win" and data["threshold"] == 0.5 and data["title"] == "Bettel"
            assert data["roles"][game["declarer"]] == "declarer"
            assert data["won"][0] == game["dd_won"] and data["won"][-1] == game["won"]
            taken = sum(t["winner"] == game["declarer"] for t in data["tricks"])
            assert data["result"]["declarer_tricks"] == final["declaring_tricks"] == taken
            assert game["won"] == (taken == 0)
        else:
            assert data["objective"] == "ramsch" and data["threshold"] is None and data["title"] == "Ramsch"
            assert data["roles"] == ["ramsch"] * 4 and data["declarer"] is None
            assert data["won"] == [None] * (len(rows) + 1)  # nobody wins or loses by a mover's own bound
            assert sum(data["result"]["seat_points"]) == 120 and final["seat_points"] == data["result"]["seat_points"]
            assert data["result"]["seat_points"][0] == game["result"]  # games.parquet: seat 0's final points
    stops = page_data(out, "demo-club-bettel-lost-stops")
    assert len(stops["decisions"]) < 32  # the record stops after the declarer's first trick


def test_a_ramsch_in_the_browser(club_graded, browser):
    out = club_graded
    gid = "demo-club-ramsch-jungfrau-none"
    rows = _rows(out, gid)
    _open(browser, write_page(out, gid))
    head = browser.find_element("id", "head").text
    assert "everyone for himself" in head and "undefined" not in head and "null" not in head
    at = 0
    for k in (0, 1, 6, 13, 22, len(rows) - 1):
        _press(browser, "ARROW_RIGHT", k - at)
        at = k
        shown, r = _shown(browser), rows[k]
        assert shown["step"] == k
        # each card from its own player's view: the loss is its value minus the best (he wants few points)
        assert shown["rows"] == _expected_rows(r, team=False), k
        assert "(ramsch)" in shown["heading"]
        now = browser.find_element("css selector", "#decision p.now").text
        assert "won" not in now and "lost" not in now and "()" not in now
    lines = browser.find_elements("css selector", "#curve polyline.seat-line")
    assert sorted(int(x.get_attribute("data-seat")) for x in lines) == [0, 1, 2, 3]
    for line in lines:  # a point after each of the seat's cards
        seat = int(line.get_attribute("data-seat"))
        assert len(line.get_attribute("points").split()) == sum(r["seat"] == seat for r in rows)
    assert not browser.find_elements("css selector", "#curve .band-won")
    assert len(browser.find_elements("css selector", "#curve circle.pt")) == len(rows)
    assert "One line per player" in browser.find_element("css selector", "#curve-box .legend").text
    _press(browser, "END")
    assert _shown(browser)["heading"] == "Game over"
    points = page_data(out, gid)["result"]["seat_points"]
    assert browser.find_element("id", "decision").text.endswith(
        "Card points: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(points)) + ".")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_a_bettel_that_stops_in_the_browser(club_graded, browser):
    out = club_graded
    gid = "demo-club-bettel-lost-stops"
    rows, game = _rows(out, gid), _game(out, gid)
    _open(browser, write_page(out, gid))
    head = browser.find_element("id", "head").text
    assert "the declarer took 1 trick, lost" in head
    for s in range(4):  # the cards never played are in the hands too
        assert len(browser.find_elements("css selector", f"#seat{s} .hand .card")) == 8
    _press(browser, "END")
    assert _shown(browser)["heading"] == "Game over"
    assert "The declarer took 1 trick: lost" in browser.find_element("id", "decision").text
    last = browser.find_elements("css selector", "#moves tbody tr")[-1].find_elements("tag name", "td")[-1].text
    assert last == "1" and not game["won"] and len(rows) % 4 == 0
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors

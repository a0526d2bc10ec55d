#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The web dashboard in a real browser (`make browser-test`, part of `make test`).

Starts the built sportsensord with three virtual sensors that walk out of range now and then,
adds a coach and a viewer with `sportsensorctl users add`, and drives Debian's headless Chromium
through Debian's chromedriver with Selenium: a wrong password is refused, the coach logs in,
starts a session from each tile and sees the counts rise, sees a tile go stale while its sensor
is away, stops a session and finds it in history with its charts, and the leaderboard; a
viewer sees no controls and the API answers 403 to its state changes (and to a coach's request
without the CSRF token); both a phone (360 px) and a tablet viewport are checked. Screenshots go
to Docs/screenshots/.

Deterministic: every check waits for a condition with generous bounded polling (WAIT seconds),
never sleeps and asserts on timing. The daemon binds port 0 and the state is a temporary
directory, so runs in parallel do not meet.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT = 90  # seconds any one condition may take on a loaded 2-core CI machine
TABLET = (1280, 800)
PHONE = (360, 740)
API_TOKEN = "browser-test-token-0123456789abcdef"
ATHLETES = {"virtual-1": ("table-tennis", "Ana"), "virtual-2": ("jump", "Ben"), "virtual-3": ("steps", "Cleo")}
# Whether the hit detector tells sides on the virtual table-tennis strokes (then the tile must show
# counts): Ana is right-handed, so her session has racket_hand 1 and the strokes get sides once they
# confirm it (Docs/DETECTION.md, "Side"); no other tile may show the row.
SIDES_EXPECTED = True


class Failure(Exception):
    pass


def log(text):
    print(f"browser-test: {text}", flush=True)


def start_daemon(bin_dir, work):
    state = os.path.join(work, "state")
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f"""
[gateway]
state_dir = "{state}"
socket = "{work}/control.sock"

[api]
token = "{API_TOKEN}"

[virtual]
sensors = 3
scripts = ["table-tennis", "jump", "steps"]
rate = 50
# Every sensor leaves the radio's range after 30 s of connection, for 4 s: the tiles go stale.
out_of_range_every = 30
out_of_range_for = 4

[web]
listen = "127.0.0.1:0"
""")
    for name, role, password in [("coach", "coach", "coach-password-1"), ("tv", "viewer", "viewer-password-1")]:
        subprocess.run(
            [os.path.join(bin_dir, "sportsensorctl"), "users", "add", name, "--role", role, "--password-stdin",
             "--state-dir", state],
            input=password + "\n", text=True, check=True, capture_output=True)
    log_path = os.path.join(work, "sportsensord.log")
    log_file = open(log_path, "w")
    daemon = subprocess.Popen(
        [os.path.join(bin_dir, "sportsensord"), "--config", config], stdout=log_file, stderr=subprocess.STDOUT)
    url = None
    # The daemon logs the port it bound; wait for that line (bounded by WAIT, checked as the log grows).
    import time
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and url is None:
        if daemon.poll() is not None:
            raise Failure(f"sportsensord exited with {daemon.returncode}:\n" + open(log_path).read())
        match = re.search(r"web\.url=(http://[0-9.]+:[0-9]+/)", open(log_path).read())
        if match:
            url = match.group(1)
        else:
            time.sleep(0.1)
    if url is None:
        raise Failure("the dashboard did not report its address:\n" + open(log_path).read())
    return daemon, url, log_path


def browser(size):
    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--force-device-scale-factor=1", "--hide-scrollbars", f"--window-size={size[0]},{size[1]}"]:
        options.add_argument(argument)
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    viewport(driver, size)
    return driver


def wait(driver, what, condition):
    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.2).until(lambda d: condition(d))
    except TimeoutException:
        raise Failure(f"waited {WAIT} s for {what}; page {driver.current_url}:\n"
                      + driver.find_element(By.TAG_NAME, "body").text[:2000])


def login(driver, url, name, password):
    driver.get(url + "login")
    driver.find_element(By.ID, "username").clear()
    driver.find_element(By.ID, "username").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "login-submit").click()


def tile(driver, sensor):
    return driver.find_element(By.CSS_SELECTOR, f'.tile[data-sensor="{sensor}"]')


def count(driver, sensor):
    text = tile(driver, sensor).find_element(By.CSS_SELECTOR, '[data-field="count"]').text
    return int(text) if text.isdigit() else -1


def fetch(driver, method, path, csrf=True):
    """Calls the API from the page, as its script would (the cookie, and the CSRF token unless told not to)."""
    return driver.execute_async_script("""
        const [method, path, csrf, done] = arguments;
        const headers = {"Content-Type": "application/json"};
        if (csrf) headers["X-CSRF-Token"] = document.querySelector('meta[name="csrf-token"]').content;
        fetch(path, {method, headers, body: method === "GET" ? undefined : "{}"})
            .then(r => r.text().then(t => done({status: r.status, body: t})))
            .catch(e => done({status: -1, body: String(e)}));
    """, method, path, csrf)


def viewport(driver, size):
    """Emulates a device of `size` CSS pixels (a phone is `mobile`: its viewport meta tag applies)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 600})


def no_horizontal_overflow(driver):
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")


def screenshot(driver, directory, name):
    if directory:
        path = os.path.join(directory, name)
        driver.save_screenshot(path)
        log(f"saved {path}")


def call(url, method, path, body=None, token=API_TOKEN):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    elif method != "GET":
        data = b""
    request = urllib.request.Request(url + path, method=method, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, None


def roster(url):
    """Athletes in two teams and a steps target for Cleo, set with the bearer token as a script would."""
    for team in ["juniors", "seniors"]:
        status, _ = call(url, "POST", "v1/teams", {"name": team})
        if status != 201:
            raise Failure(f"adding team {team} answered {status}")
    for name, mass, teams in [("Ana", 58, ["juniors"]), ("Ben", 71, ["juniors"]), ("Cleo", 64, ["seniors"])]:
        body = {"name": name, "mass_kg": mass, "teams": teams}
        if name == "Ana":
            body["racket_hand"] = "right"  # the roster keeps it; the athlete page names it
        status, _ = call(url, "POST", "v1/athletes", body)
        if status != 201:
            raise Failure(f"adding athlete {name} answered {status}")
    status, _ = call(url, "POST", "v1/targets", {"athlete": "Cleo", "metric": "steps", "value": 6})
    if status != 201:
        raise Failure(f"setting Cleo's target answered {status}")


def coach_checks(url, shots):
    driver = browser(TABLET)
    try:
        # A wrong password is refused, and says so.
        login(driver, url, "coach", "not-the-password")
        wait(driver, "the refusal of a wrong password", lambda d: "Wrong user name or password" in d.page_source)
        if not driver.current_url.endswith("/login"):
            raise Failure(f"a wrong password led to {driver.current_url}")
        log("a wrong password is refused")

        login(driver, url, "coach", "coach-password-1")
        wait(driver, "the board's three tiles", lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tile")) == 3)
        wait(driver, "the event stream", lambda d: d.find_element(By.ID, "stream-state").get_attribute("data-state") == "live")
        log("the coach is logged in and the board shows three sensors")

        sessions = {}
        for sensor, (profile, athlete) in ATHLETES.items():
            element = tile(driver, sensor)
            Select(element.find_element(By.CSS_SELECTOR, '[data-control="profile"]')).select_by_value(profile)
            element.find_element(By.CSS_SELECTOR, '[data-control="athlete"]').send_keys(athlete)
            element.find_element(By.CSS_SELECTOR, '[data-action="start"]').click()
            wait(driver, f"the session on {sensor}",
                 lambda d, s=sensor: tile(d, s).find_element(By.CSS_SELECTOR, '[data-action="stop"]').is_displayed())
            link = tile(driver, sensor).find_element(By.CSS_SELECTOR, '[data-field="sessionLink"]')
            sessions[sensor] = link.get_attribute("href").rsplit("/", 1)[1]
        log(f"started a session from each tile: {sessions}")

        # While a session runs its tile names its own profile and athlete, and the start form (which
        # would still say table-tennis and nobody) is not there.
        for sensor, (profile, athlete) in ATHLETES.items():
            element = tile(driver, sensor)
            wait(driver, f"{sensor}'s tile to name {athlete} and {profile}",
                 lambda d, s=sensor, p=profile, a=athlete:
                 tile(d, s).find_element(By.CSS_SELECTOR, '[data-field="athlete"]').text == a
                 and tile(d, s).find_element(By.CSS_SELECTOR, '[data-field="profile"]').text == p)
            for control in element.find_elements(By.CSS_SELECTOR, "[data-control]"):
                if control.is_displayed():
                    raise Failure(f"the start form shows on {sensor}'s tile while its session runs")
        log("live tiles name their session's athlete and profile, without the start form")

        # Cleo's target (6 steps): the tile shows the progress, then flashes when it is reached.
        wait(driver, "Cleo's target progress on her tile",
             lambda d: tile(d, "virtual-3").find_element(By.CSS_SELECTOR, '[data-optional="target"]').is_displayed())
        wait(driver, "the 'target reached' flash on Cleo's tile",
             lambda d: "Target reached" in tile(d, "virtual-3").find_element(By.CSS_SELECTOR, '[data-field="flash"]').text)
        log("Cleo's tile shows her target's progress and flashes when she reaches it")
        for sensor in ATHLETES:
            wait(driver, f"events counted on {sensor}", lambda d, s=sensor: count(d, s) > 0)
            first = count(driver, sensor)
            wait(driver, f"the count on {sensor} rising past {first}", lambda d, s=sensor, n=first: count(d, s) > n)
        log("the counts rise on every tile")

        # Table tennis: strokes per side once the detector tells sides, on no other tile; and no
        # "clipped" flag, which hard strokes at ±2 g always carry and which changes nothing a coach
        # should trust.
        if SIDES_EXPECTED:
            wait(driver, "strokes per side on the table-tennis tile",
                 lambda d: re.fullmatch(r"\d+ / \d+", tile(d, "virtual-1").find_element(
                     By.CSS_SELECTOR, '[data-field="sides"]').text))
        for sensor in ATHLETES if not SIDES_EXPECTED else ["virtual-2", "virtual-3"]:
            if tile(driver, sensor).find_element(By.CSS_SELECTOR, '[data-field="sides"]').is_displayed():
                raise Failure(f"{sensor}'s tile shows strokes per side though none has a side")
        sides = tile(driver, "virtual-1").find_element(By.CSS_SELECTOR, '[data-field="sides"]')
        flagged = driver.execute_script(
            "return [...document.querySelectorAll('[data-field=\"trust\"]')].map(e => e.textContent)")
        if any("clipped" in text for text in flagged):
            raise Failure(f"a tile shows the clipped flag: {flagged}")
        log(f"forehand / backhand {sides.text or '(no side yet: row hidden)'}, no tile flags clipped")
        screenshot(driver, shots, "board-tablet.png")

        # The coach's page may not skip the CSRF token.
        answer = fetch(driver, "POST", f"/v1/sessions/{sessions['virtual-1']}/stop", csrf=False)
        if answer["status"] != 403:
            raise Failure(f"a state change without the CSRF token got {answer}")
        log("a state change without the CSRF token answers 403")

        # Phone: one column, nothing wider than the screen.
        viewport(driver, PHONE)
        wait(driver, "the board to fit 360 px", no_horizontal_overflow)
        screenshot(driver, shots, "board-phone.png")
        viewport(driver, TABLET)

        # Every virtual sensor walks out of range after 30 s of connection: its tile goes stale.
        wait(driver, "a tile to go stale while its sensor is away",
             lambda d: d.find_elements(By.CSS_SELECTOR, '.tile.live[data-stale="true"]'))
        stale = driver.find_element(By.CSS_SELECTOR, '.tile.live[data-stale="true"]')
        if not stale.find_element(By.CSS_SELECTOR, '[data-field="stale"]').is_displayed():
            raise Failure("a stale tile does not say so")
        log(f"tile {stale.get_attribute('data-sensor')} went stale while its sensor was away")
        screenshot(driver, shots, "board-stale.png")
        wait(driver, "the tiles to recover when the sensors are back",
             lambda d: not d.find_elements(By.CSS_SELECTOR, '.tile.live[data-stale="true"]'))
        log("the tiles recovered")

        # Stop the jump session from its tile and find it in history.
        before = count(driver, "virtual-2")
        tile(driver, "virtual-2").find_element(By.CSS_SELECTOR, '[data-action="stop"]').click()
        wait(driver, "the jump session to stop",
             lambda d: tile(d, "virtual-2").find_element(By.CSS_SELECTOR, '[data-action="start"]').is_displayed())
        log(f"stopped the jump session after {before} jumps")
        form = tile(driver, "virtual-2")
        profile = Select(form.find_element(By.CSS_SELECTOR, '[data-control="profile"]')).first_selected_option
        athlete = form.find_element(By.CSS_SELECTOR, '[data-control="athlete"]').get_attribute("value")
        if profile.get_attribute("value") != "jump" or athlete != "Ben":
            raise Failure(f"after Stop the form says {profile.get_attribute('value')!r} for {athlete!r}, not jump for Ben")
        log("after Stop the start form comes back with the session's profile and athlete")
        driver.get(url + "sessions")
        row = wait(driver, "the stopped session in the list",
                   lambda d: d.find_elements(By.CSS_SELECTOR, f'tr[data-session="{sessions["virtual-2"]}"]'))
        row[0].find_element(By.TAG_NAME, "a").click()
        wait(driver, "the session page's charts",
             lambda d: len(d.find_elements(By.CSS_SELECTOR, "#session-charts svg.chart")) >= 3)
        if "Ben" not in driver.find_element(By.ID, "session-summary").text:
            raise Failure("the session page does not name the athlete")
        if int(driver.find_element(By.ID, "session-count").text) < 1:
            raise Failure("the stopped session has no events")
        bars = driver.find_elements(By.CSS_SELECTOR, "#session-charts svg.chart rect.bar")
        if not bars:
            raise Failure("the session's per-event chart has no bars")
        log("the session is in history with its charts")
        screenshot(driver, shots, "session.png")
        viewport(driver, PHONE)
        wait(driver, "the session page to fit 360 px", no_horizontal_overflow)
        viewport(driver, TABLET)

        # The other two stop from their tiles too; all three athletes are then on the leaderboard.
        driver.get(url)
        wait(driver, "the board again", lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tile.live")) == 2)
        for sensor in ["virtual-1", "virtual-3"]:
            tile(driver, sensor).find_element(By.CSS_SELECTOR, '[data-action="stop"]').click()
            wait(driver, f"the session on {sensor} to stop",
                 lambda d, s=sensor: tile(d, s).find_element(By.CSS_SELECTOR, '[data-action="start"]').is_displayed())
        driver.get(url + "leaderboard?metric=playerload&period=all")
        wait(driver, "the three athletes on the leaderboard",
             lambda d: all(name in d.find_element(By.ID, "leaderboard").text for name in ["Ana", "Ben", "Cleo"]))
        driver.get(url + "leaderboard?metric=playerload&period=all&team=juniors")
        wait(driver, "the juniors' leaderboard without Cleo",
             lambda d: "Ana" in d.find_element(By.ID, "leaderboard").text
             and "Cleo" not in d.find_element(By.ID, "leaderboard").text)
        driver.get(url + "leaderboard?metric=playerload&period=all")
        wait(driver, "the three athletes on the leaderboard again",
             lambda d: all(name in d.find_element(By.ID, "leaderboard").text for name in ["Ana", "Ben", "Cleo"]))
        log("the leaderboard ranks the three finished sessions, and a team's")
        viewport(driver, PHONE)
        wait(driver, "the leaderboard to fit 360 px", no_horizontal_overflow)
        screenshot(driver, shots, "leaderboard-phone.png")
        viewport(driver, TABLET)
        screenshot(driver, shots, "leaderboard.png")

        # Pairing from the scan list: a script unpairs virtual-3, the coach pairs it again from the board.
        if call(url, "DELETE", "v1/sensors/virtual-3")[0] != 204:
            raise Failure("unpairing virtual-3 with the token failed")
        driver.get(url)
        wait(driver, "the board without virtual-3", lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tile")) == 2)
        driver.find_element(By.ID, "pair-open").click()
        button = wait(driver, "virtual-3 in the scan list",
                      lambda d: [item.find_element(By.TAG_NAME, "button") for item in
                                 d.find_elements(By.CSS_SELECTOR, "#scan-list li") if "virtual-3" in item.text])
        button[0].click()
        wait(driver, "virtual-3's tile back on the board",
             lambda d: len(d.find_elements(By.CSS_SELECTOR, '.tile[data-sensor="virtual-3"]')) == 1)
        wait(driver, "virtual-3 connected again",
             lambda d: tile(d, "virtual-3").find_element(By.CSS_SELECTOR, '[data-field="link"]').text == "connected")
        log("a sensor is paired again from the scan list")
        driver.find_element(By.ID, "logout").click()
        wait(driver, "the login page after logout", lambda d: d.current_url.endswith("/login"))
        driver.get(url)
        wait(driver, "the board to want a login again", lambda d: d.current_url.endswith("/login"))
        log("logout ends the session")
        return sessions
    finally:
        driver.quit()


def viewer_checks(url, sessions, shots):
    driver = browser(PHONE)
    try:
        login(driver, url, "tv", "viewer-password-1")
        wait(driver, "the viewer's board", lambda d: len(d.find_elements(By.CSS_SELECTOR, ".tile")) == 3)
        wait(driver, "the viewer's event stream",
             lambda d: d.find_element(By.ID, "stream-state").get_attribute("data-state") == "live")
        controls = driver.find_elements(By.CSS_SELECTOR, '[data-action="start"], [data-action="stop"], #pair-open')
        if controls:
            raise Failure(f"the viewer's board has {len(controls)} start/stop/pair controls")
        for method, path in [("POST", f"/v1/sessions/{sessions['virtual-1']}/stop"), ("POST", "/v1/sessions"),
                             ("POST", "/v1/scan"), ("DELETE", "/v1/sensors/virtual-3")]:
            answer = fetch(driver, method, path)
            if answer["status"] != 403:
                raise Failure(f"the viewer's {method} {path} got {answer}")
        if fetch(driver, "GET", "/v1/sessions")["status"] != 200:
            raise Failure("the viewer cannot read the sessions")
        wait(driver, "the viewer's board to fit 360 px", no_horizontal_overflow)
        log("a viewer sees no controls and its state changes answer 403")
    finally:
        driver.quit()


def api_checks(url):
    """Scripts keep using the bearer token on the dashboard's listener, with a coach's rights."""
    status, answer = call(url, "GET", "v1/status")
    if status != 200 or answer.get("live_sessions") != 0:
        raise Failure(f"the API with the token answered {status} {answer}, not the three sessions stopped")
    if call(url, "GET", "v1/status", token=None)[0] != 401:
        raise Failure("the API answered without a login or a token")
    if call(url, "GET", "v1/status", token=API_TOKEN + "x")[0] != 401:
        raise Failure("the API answered a wrong token")
    status, session = call(url, "POST", "v1/sessions", {"sensor": "virtual-1", "profile": "table-tennis"})
    if status != 201:
        raise Failure(f"starting a session with the token answered {status}")
    status, _ = call(url, "POST", f"v1/sessions/{session['id']}/stop")
    if status != 200:
        raise Failure(f"stopping a session with the token answered {status}")
    log("the bearer token works for scripts on the dashboard's listener")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the directory with the built sportsensord and sportsensorctl")
    parser.add_argument("--screenshots", default="", help="where to save screenshots (none when empty)")
    arguments = parser.parse_args()
    if arguments.screenshots:
        os.makedirs(arguments.screenshots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="sportsensord-browser-")
    daemon, url, log_path = start_daemon(arguments.bin, work)
    log(f"sportsensord serves the dashboard at {url}")
    try:
        roster(url)
        sessions = coach_checks(url, arguments.screenshots)
        viewer_checks(url, sessions, arguments.screenshots)
        api_checks(url)
    except Failure as failure:
        print(f"browser-test: FAILED: {failure}", file=sys.stderr)
        print("browser-test: the daemon's log:\n" + open(log_path).read()[-6000:], file=sys.stderr)
        return 1
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            daemon.kill()
    if daemon.returncode != 0:
        print(f"browser-test: FAILED: sportsensord exited with {daemon.returncode}", file=sys.stderr)
        return 1
    subprocess.run(["rm", "-rf", work], check=False)
    log("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

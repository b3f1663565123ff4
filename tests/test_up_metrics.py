"""``miles up --metrics-port 0`` as a user runs it: one ``metrics: URL`` line on stdout, an
endpoint on the loopback interface whose text prometheus_client's parser reads, with the
sim's joint states filling the jitter histogram while the graph runs; Ctrl-C still exits 0
and the endpoint goes with the process."""

from __future__ import annotations

import re
import signal
import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from tests.miles_up import lines_until, miles_up
from tests.ros_domains import domain_id

TIMEOUT = 60.0
POLL_S = 0.1
URL = re.compile(r"^metrics: (http://127\.0\.0\.1:(\d+)/metrics)$")


def scrape(url: str) -> dict[str, float]:
    """Sample name -> value (labels dropped: the single arm has one series each)."""
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    return {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples}


def test_miles_up_serves_metrics_on_the_port_it_prints():
    args = ("--no-manager", "--metrics-port", "0", "--duration", "120")
    with miles_up(*args, "--domain-id", str(domain_id())) as process:
        seen = lines_until(process, " up ")
        urls = [m for line in seen if (m := URL.match(line.rstrip("\n")))]
        assert len(urls) == 1, "".join(seen)
        url, port = urls[0].group(1), int(urls[0].group(2))
        assert port > 0
        deadline = time.monotonic() + TIMEOUT
        while (count := scrape(url).get("miles_loop_jitter_seconds_count", 0)) < 10:
            assert time.monotonic() < deadline, f"{count} joint states in {TIMEOUT} s"
            time.sleep(POLL_S)
        metrics = scrape(url)
        assert metrics["miles_estops_total"] == 0
        assert metrics["miles_goals_total"] == 0
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err[-3000:]
    assert "Traceback" not in err and not any(URL.match(line) for line in out.splitlines())
    try:
        urllib.request.urlopen(url, timeout=5)
        raise AssertionError("the endpoint outlived miles up")
    except urllib.error.URLError:
        pass

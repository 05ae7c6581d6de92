"""The deploy files hold together: their settings are the server's, their names and paths agree,
the dashboard's metrics are the ones a server serves, Caddy and systemd accept their files.
(nginx's file is run as it is by the multi-host test.)"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from gotown.server.config import ENVIRONMENT, Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
TOKEN = "operator-token-for-tests-0123456789"


def _needs(program: str, package: str) -> str:
    found = shutil.which(program)
    if found is None:
        pytest.fail(f"{program} is missing (Debian: apt-get install {package})", pytrace=False)
    return found


def _settings_in(variables: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in variables.items() if name.startswith("GOTOWN_")}


def _interpolate(value: str) -> str:
    """Compose's ${NAME:-default} as its default, ${NAME:?message} (required) as a value."""
    value = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", value)
    return re.sub(r"\$\{\w+:\?[^}]*\}", "a-password", value)


def test_the_compose_file_sets_real_settings_and_names_what_exists() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"db", "redis", "migrate", "gotown1", "gotown2", "proxy"} <= set(services)
    for name in ("migrate", "gotown1", "gotown2"):
        environment = services[name]["environment"]
        unknown = set(_settings_in(environment)) - set(ENVIRONMENT)
        assert not unknown, f"{name}: no such setting {unknown}"
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"
    # The values a process starts with are valid settings (the variables of .env filled in).
    Settings.from_env(
        {
            k: _interpolate(str(v))
            for k, v in _settings_in(services["gotown1"]["environment"]).items()
        }
    )
    # nginx's site is mounted from the file shipped, and its upstreams are the two processes.
    mount = services["proxy"]["volumes"][0].split(":")[0]
    site = (DEPLOY / mount).resolve()
    assert site == DEPLOY / "nginx" / "gotown.conf"
    assert re.findall(r"server (\w+):8000", site.read_text()) == ["gotown1", "gotown2"]
    caddy = (DEPLOY / "caddy" / "Caddyfile").read_text()
    assert "reverse_proxy gotown1:8000 gotown2:8000" in caddy
    prometheus = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    targets = prometheus["scrape_configs"][0]["static_configs"][0]["targets"]
    port = services["gotown1"]["environment"]["GOTOWN_OPERATOR_PORT"]
    assert targets == [f"gotown1:{port}", f"gotown2:{port}"]


def test_the_systemd_environment_files_set_real_settings() -> None:
    for path in sorted((DEPLOY / "systemd").glob("*.env")):
        variables = dict(
            line.split("=", 1)
            for line in path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        )
        unknown = set(_settings_in(variables)) - set(ENVIRONMENT)
        assert not unknown, f"{path.name}: no such setting {unknown}"
        if path.name == "gotown.env":
            Settings.from_env(_settings_in(variables))


def test_systemd_accepts_the_units(tmp_path: Path) -> None:
    analyze = _needs("systemd-analyze", "systemd")
    gotown = str(Path(sys.executable).with_name("gotown"))
    units = []
    for unit in sorted((DEPLOY / "systemd").glob("gotown*.*")):
        if unit.suffix in (".service", ".timer"):
            text = unit.read_text().replace("/opt/gotown/bin/gotown", gotown)
            name = unit.name.replace("@.service", "@8001.service")
            (tmp_path / name).write_text(text)
            units.append(str(tmp_path / name))
    (tmp_path / "gotown@.service").write_text((tmp_path / "gotown@8001.service").read_text())
    done = subprocess.run([analyze, "verify", "--man=no", *units], capture_output=True,
                          text=True, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


def test_caddy_accepts_its_file() -> None:
    caddy = _needs("caddy", "caddy")
    env = {**os.environ, "GOTOWN_DOMAIN": "gotown.example.org", "HOME": "/nonexistent",
           "XDG_DATA_HOME": str(ROOT / "build" / "caddy-validate")}  # fmt: skip
    done = subprocess.run(
        [caddy, "validate", "--config", str(DEPLOY / "caddy" / "Caddyfile"), "--adapter",
         "caddyfile"], capture_output=True, text=True, env=env,
    )  # fmt: skip
    shutil.rmtree(ROOT / "build" / "caddy-validate", ignore_errors=True)
    assert done.returncode == 0, done.stderr
    assert "Valid configuration" in done.stdout + done.stderr


def test_the_dashboard_shows_metrics_a_server_serves(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from gotown.server.main import create_app

    dashboard = json.loads((DEPLOY / "grafana" / "gotown.json").read_text())
    expressions = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    wanted = {name for e in expressions for name in re.findall(r"\b((?:gotown|process)_\w+)", e)}
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", operator_token=TOKEN,
                        worker_processes=False)  # fmt: skip
    with TestClient(create_app(settings)) as client:
        client.get("/healthz")
        text = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    # (A family with labels has no sample before its first use: its name and type say its series.)
    suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_sum", "_count"], "gauge": [""]}
    served = {
        family.name + suffix
        for family in text_string_to_metric_families(text)
        for suffix in suffixes.get(family.type, [""])
    }
    assert wanted and not wanted - served, f"not served: {wanted - served}"


def test_the_image_checks_readiness_and_runs_as_its_own_user() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^USER gotown$", dockerfile, re.M)
    assert "/readyz" in dockerfile and "HEALTHCHECK" in dockerfile
    assert (
        "e.COMPILED and b.COMPILED" in dockerfile
    )  # (the build fails without the compiled engine)
    ignored = (ROOT / ".dockerignore").read_text().split()
    for path in ("pyproject.toml", "setup.py", "README.md", "gotown/"):
        assert f"!{path}" in ignored

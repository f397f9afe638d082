"""deploy/ checked offline (Docker and Kubernetes do not run here): every file parses, every
`mcv serve` command line in it parses with mcv's own parser, probes and scrape annotations point at
the port the process listens on, and no secret is written in any file."""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.resources
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from mcv_pipelines.cli.main import build_parser

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
KUBERNETES = DEPLOY / "kubernetes"
IMAGE = "mcv-pipelines"
SECRET_NAME = re.compile(r"PASSWORD|SECRET|KEY|TOKEN|CREDENTIAL", re.IGNORECASE)
CREDENTIALS_IN_URL = re.compile(r"://[^/\s:@]+:[^/\s@]+@")


def documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def compose() -> dict[str, Any]:
    (document,) = documents(DEPLOY / "docker-compose.yml")
    return document


def manifests() -> list[dict[str, Any]]:
    return [doc for path in sorted(KUBERNETES.glob("*.yaml")) for doc in documents(path)]


def deployments() -> list[dict[str, Any]]:
    return [doc for doc in manifests() if doc["kind"] == "Deployment"]


def mcv_container(deployment: dict[str, Any]) -> dict[str, Any]:
    (container,) = [c for c in deployment["spec"]["template"]["spec"]["containers"] if IMAGE in c["image"]]
    return container


@functools.cache
def parser() -> argparse.ArgumentParser:
    return build_parser("serve")


def parse_serve(argv: list[str]) -> argparse.Namespace:
    """argv after `mcv`, parsed strictly by mcv's own parser: a flag it does not know fails."""
    assert argv[0] == "serve", argv
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            return parser().parse_args(argv)
        except SystemExit:
            pytest.fail(f"mcv {' '.join(argv)}: {stderr.getvalue()}")


def serve_command_lines() -> Iterator[tuple[str, list[str]]]:
    """(where, argv after `mcv`) of every `mcv serve` in deploy/."""
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    entrypoint = json.loads(re.search(r"^ENTRYPOINT (\[.*\])$", dockerfile, re.MULTILINE)[1])  # type: ignore[index] # the line is there: a missing one fails the test
    assert entrypoint == ["tini", "--", "mcv-entrypoint"]  # deploy/entrypoint.sh: its CMD goes to mcv
    yield "Dockerfile CMD", json.loads(re.search(r"^CMD (\[.*\])$", dockerfile, re.MULTILINE)[1])  # type: ignore[index] # as above
    for name, service in compose()["services"].items():
        if IMAGE in str(service.get("image", "")):
            yield f"docker-compose {name}", [str(x) for x in service["command"]]
    for deployment in deployments():
        yield (
            f"kubernetes {deployment['metadata']['name']}",
            [str(x) for x in mcv_container(deployment)["args"]],
        )


def test_every_deploy_file_parses() -> None:
    yaml_files = sorted(DEPLOY.rglob("*.yaml")) + sorted(DEPLOY.rglob("*.yml"))
    assert len(yaml_files) >= 5
    for path in yaml_files:
        assert documents(path), f"{path} is empty"
    kinds = sorted(doc["kind"] for doc in manifests())
    assert kinds == ["ConfigMap", "Deployment", "Deployment", "HorizontalPodAutoscaler", "Kustomization",
                     "PodDisruptionBudget", "PodDisruptionBudget", "Service"]  # fmt: skip


def test_compose_file_is_valid_against_the_compose_specification() -> None:
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    schema = json.loads(vendor.joinpath("compose-spec.json").read_text())
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(compose()), key=str)
    assert not errors, [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]


def test_kustomization_lists_every_manifest() -> None:
    (kustomization,) = documents(KUBERNETES / "kustomization.yaml")
    listed = set(kustomization["resources"])
    assert listed == {p.name for p in KUBERNETES.glob("*.yaml")} - {"kustomization.yaml"}


def test_every_serve_command_line_parses_with_mcv() -> None:
    lines = dict(serve_command_lines())
    assert set(lines) == {
        "Dockerfile CMD",
        "docker-compose api",
        "docker-compose worker",
        "docker-compose all",
        "kubernetes mcv-api",
        "kubernetes mcv-worker",
    }
    for where, argv in lines.items():
        args = parse_serve(argv)
        assert args.host == "0.0.0.0", where  # noqa: S104 - a container must listen beyond its loopback
        assert args.log_format == "json", where
        assert not args.allow_private_urls, f"{where}: a shared service keeps the private-address guard"
        if where != "Dockerfile CMD":  # the image's CMD takes its public URL from MCV_PUBLIC_URL
            assert args.public_url, f"{where}: links must name the address clients reach"
        if where not in ("Dockerfile CMD", "docker-compose all"):  # one process: SQLite, local files
            assert "--database" in argv
            assert "--storage" in argv


def port_of(argv: list[str]) -> int:
    port: int = parse_serve(argv).port
    return port


def test_kubernetes_probes_and_scraping_point_at_the_port_served() -> None:
    for deployment in deployments():
        name = deployment["metadata"]["name"]
        container = mcv_container(deployment)
        port = port_of(container["args"])
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert list(ports.values()) == [port], name

        def resolved(value: str | int, ports: dict[str, int] = ports) -> int:
            return ports[value] if isinstance(value, str) else value

        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz", name
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz", name
        assert resolved(container["readinessProbe"]["httpGet"]["port"]) == port, name
        assert resolved(container["livenessProbe"]["httpGet"]["port"]) == port, name
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert annotations["prometheus.io/path"] == "/metrics"
        assert int(annotations["prometheus.io/port"]) == port, name
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items(), name


def test_the_service_reaches_the_api_pods_on_their_port() -> None:
    (service,) = [doc for doc in manifests() if doc["kind"] == "Service"]
    selected = [
        d
        for d in deployments()
        if service["spec"]["selector"].items() <= d["spec"]["template"]["metadata"]["labels"].items()
    ]
    assert [d["metadata"]["name"] for d in selected] == ["mcv-api"]
    container = mcv_container(selected[0])
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    for service_port in service["spec"]["ports"]:
        target = service_port["targetPort"]
        assert (ports[target] if isinstance(target, str) else target) == port_of(container["args"])


def test_kubernetes_args_name_only_variables_the_container_has() -> None:
    (config,) = [doc for doc in manifests() if doc["kind"] == "ConfigMap"]
    for deployment in deployments():
        container = mcv_container(deployment)
        defined = {e["name"] for e in container.get("env", [])}
        for source in container.get("envFrom", []):
            assert source["configMapRef"]["name"] == config["metadata"]["name"]
            defined |= set(config["data"])
        used = {m for arg in container["args"] for m in re.findall(r"\$\((\w+)\)", str(arg))}
        assert used <= defined, used - defined


def test_compose_health_checks_and_ports_match_the_port_served() -> None:
    services = compose()["services"]
    for name in ("api", "worker", "all"):
        port = port_of([str(x) for x in services[name]["command"]])
        check = " ".join(services[name]["healthcheck"]["test"])
        assert f"127.0.0.1:{port}/readyz" in check, name
    api_port = port_of([str(x) for x in services["api"]["command"]])
    assert [str(p).rsplit(":", 1)[1] for p in services["api"]["ports"]] == [str(api_port)]


def strings(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield str(key)
            yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)
    elif node is not None:
        yield str(node)


def test_no_secret_is_written_in_any_deploy_file() -> None:
    for path in [
        *DEPLOY.rglob("*.y*ml"),
        DEPLOY / "Dockerfile",
        DEPLOY / "env.example",
        DEPLOY / "README.md",
    ]:
        assert not CREDENTIALS_IN_URL.search(path.read_text()), f"{path}: credentials in a URL"
    for name, service in compose()["services"].items():
        for variable, value in (service.get("environment") or {}).items():
            if SECRET_NAME.search(variable):
                assert re.fullmatch(r"\$\{\w+(:\?[^}]*)?\}", str(value)), (
                    f"compose {name}: {variable} is a literal"
                )
    for doc in manifests():
        assert doc["kind"] != "Secret", "Secrets are made with kubectl, never kept in files"
        if doc["kind"] == "ConfigMap":
            assert not [k for k in doc["data"] if SECRET_NAME.search(k)], "a secret in the ConfigMap"
        for container in doc.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            for entry in container.get("env", []):
                if SECRET_NAME.search(entry["name"]):
                    assert "value" not in entry, f"{entry['name']} is a literal"
                    assert entry["valueFrom"]["secretKeyRef"]["name"] == "mcv-secrets"
    for line in (DEPLOY / "env.example").read_text().splitlines():
        variable, _, value = line.partition("=")
        if not line.startswith("#") and SECRET_NAME.search(variable):
            assert value == "", f"env.example: {variable} has a value"
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert not re.search(r"^(ENV|ARG)\b.*(PASSWORD|SECRET|KEY|TOKEN)", dockerfile, re.MULTILINE)


def test_every_variable_compose_needs_is_in_the_example_env() -> None:
    text = (DEPLOY / "docker-compose.yml").read_text()
    needed = set(re.findall(r"(?<!\$)\$\{(\w+)", text))
    example = {
        line.split("=", 1)[0] for line in (DEPLOY / "env.example").read_text().splitlines() if "=" in line
    }
    assert needed <= example, needed - example


def test_the_readme_makes_every_secret_key_the_manifests_use() -> None:
    used = set()
    for deployment in deployments():
        spec = deployment["spec"]["template"]["spec"]
        for container in spec["containers"]:
            used |= {
                e["valueFrom"]["secretKeyRef"]["key"] for e in container.get("env", []) if "valueFrom" in e
            }
        for volume in spec.get("volumes", []):
            used |= {item["key"] for item in volume.get("secret", {}).get("items", [])}
    readme = (DEPLOY / "README.md").read_text()
    made = set(re.findall(r"--from-(?:literal|file)=([\w-]+)=", readme))
    assert used == made, (used, made)

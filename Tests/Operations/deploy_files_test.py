#!/usr/bin/env python3
"""Checks that the deploy files agree with each other and with the binary they ship.

- deploy/container/Containerfile passes hadolint and has what the image promises: a Debian 12
  slim base, the binary, a volume for the database, a non-root user, a HEALTHCHECK on
  /catbird/api/health; its apt line installs a package for every shared library the built
  binary links outside the Swift toolchain and glibc's own (found with ldd and dpkg -S).
- deploy/k8s/catbird.yaml parses, and its StatefulSet, headless Service and Ingress fit
  together: the Service is headless and named by the StatefulSet, each pod has its own volume
  mounted where CATBIRD_DB points, readiness asks /catbird/api/health and liveness
  /catbird/version, the Ingress hashes the same header as deploy/nginx/catbird.conf, the user
  and volume path are the image's, the image tag is the binary's version and every CATBIRD_* variable set is one `catbird --help` documents.
- Both balancers' read timeouts (nginx's proxy_read_timeout, the Ingress's proxy-read-timeout)
  are at least a mock's longest delay, the OpenAPI document's maximum for `delay`: a node may
  rightly send nothing that long, and a shorter timeout turns the answer into the balancer's
  own 504 (try7a F6: both were 300 s against 86,400).

Usage: deploy_files_test.py --catbird PATH [--hadolint PATH]
"""

import argparse
import json
import os
import re
import subprocess
import sys

import yaml

from harness import Checks

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CONTAINERFILE = os.path.join(ROOT, "deploy", "container", "Containerfile")
MANIFEST = os.path.join(ROOT, "deploy", "k8s", "catbird.yaml")
NGINX = os.path.join(ROOT, "deploy", "nginx", "catbird.conf")
OPENAPI = os.path.join(ROOT, "Sources", "CatbirdServer", "OpenAPI", "openapi.json")
# In every Debian 12 slim image already (Essential or required by apt).
BASE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}


def instructions(text):
    """The Containerfile's instructions as (KEYWORD, arguments), continuation lines joined."""
    joined = re.sub(r"\\\n", " ", text)
    result = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            result.append((keyword.upper(), rest.strip()))
    return result


def linked_packages(binary):
    """The Debian packages providing the libraries `binary` names as NEEDED (readelf -d),
    located with ldd, less the Swift toolchain's (carried inside a --static-swift-stdlib build)."""
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]",
                        subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout)
    located = dict(re.findall(r"^\s*(\S+) => (/\S+)", subprocess.run(
        ["ldd", binary], capture_output=True, text=True, check=True).stdout, re.M))
    packages = {}
    for library in needed:
        path = located.get(library)
        if path is None and library.startswith("ld-linux"):
            continue  # the dynamic loader itself (libc6)
        if path is None or "swift" in path:
            continue
        path = os.path.realpath(path)
        owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
        if owner.returncode != 0:  # dpkg records /lib/… paths for usrmerged files
            owner = subprocess.run(["dpkg", "-S", path.replace("/usr/lib/", "/lib/", 1)], capture_output=True, text=True)
        name = owner.stdout.split(":")[0] if owner.returncode == 0 else f"(no package owns {path})"
        packages[name] = library
    return packages


def check_containerfile(checks, catbird, hadolint):
    text = open(CONTAINERFILE).read()
    lint = subprocess.run([hadolint, "--no-color", CONTAINERFILE], capture_output=True, text=True)
    checks.check("Containerfile passes hadolint", lint.returncode == 0, lint.stdout + lint.stderr)
    steps = instructions(text)
    keywords = [k for k, _ in steps]
    args = {k: [a for kk, a in steps if kk == k] for k in keywords}
    base = re.search(r"ARG BASE_IMAGE=(\S+)", text)
    checks.check("base image is Debian 12 slim",
                 base is not None and base.group(1).endswith("debian:12-slim") and args.get("FROM") == ["${BASE_IMAGE}"],
                 f"ARG {base and base.group(1)}, FROM {args.get('FROM')}")
    checks.check("the binary is copied in as /usr/local/bin/catbird",
                 any(a.endswith("catbird /usr/local/bin/catbird") for a in args.get("COPY", [])), f"{args.get('COPY')}")
    volumes = " ".join(args.get("VOLUME", []))
    environment = " ".join(args.get("ENV", []))
    database = re.search(r"CATBIRD_DB=(\S+)", environment)
    checks.check("the database lives on the volume",
                 database is not None and f'"{os.path.dirname(database.group(1))}"' in volumes,
                 f"VOLUME {volumes}, CATBIRD_DB {database and database.group(1)}")
    user = args.get("USER", [""])[-1]
    checks.check("the image runs as a non-root user", user != "" and user.split(":")[0] not in ("0", "root"),
                 f"USER {user!r}")
    checks.check("USER comes after every RUN (nothing runs as root at start)",
                 keywords.index("USER") > max(i for i, k in enumerate(keywords) if k == "RUN"), f"{keywords}")
    health = " ".join(args.get("HEALTHCHECK", []))
    checks.check("HEALTHCHECK asks /catbird/api/health", "/catbird/api/health" in health and "CMD" in health, health)
    checks.check("the entry point serves", args.get("ENTRYPOINT") == ['["/usr/local/bin/catbird", "serve"]'],
                 f"{args.get('ENTRYPOINT')}")
    installed = set()
    for run in args.get("RUN", []):
        for command in re.findall(r"apt-get install ([^&|;]+)", run):
            installed |= {w for w in command.split() if not w.startswith("-")}
    linked = linked_packages(catbird)
    missing = {p: path for p, path in linked.items() if p not in installed and p not in BASE_PACKAGES}
    checks.check("the image installs every library the binary links", not missing and linked,
                 f"not installed: {missing}; linked: {sorted(linked)}; installed: {sorted(installed)}")
    return {"user": user, "volume": os.path.dirname(database.group(1)) if database else None}


def check_manifest(checks, catbird, image):
    documents = [d for d in yaml.safe_load_all(open(MANIFEST)) if d]
    by_kind = {d["kind"]: d for d in documents}
    checks.check("catbird.yaml holds a Service, a StatefulSet and an Ingress",
                 set(by_kind) == {"Service", "StatefulSet", "Ingress"}, f"{sorted(by_kind)}")
    service, statefulset, ingress = by_kind["Service"], by_kind["StatefulSet"], by_kind["Ingress"]
    checks.check("the Service is headless and the StatefulSet's serviceName",
                 service["spec"].get("clusterIP") == "None"
                 and statefulset["spec"]["serviceName"] == service["metadata"]["name"],
                 f"clusterIP {service['spec'].get('clusterIP')}, serviceName {statefulset['spec']['serviceName']}")
    pod = statefulset["spec"]["template"]
    checks.check("the Service selects the StatefulSet's pods",
                 all(pod["metadata"]["labels"].get(k) == v for k, v in service["spec"]["selector"].items()),
                 f"{service['spec']['selector']} vs {pod['metadata']['labels']}")
    container = pod["spec"]["containers"][0]
    environment = {e["name"]: e.get("value") for e in container.get("env", [])}
    claims = {c["metadata"]["name"] for c in statefulset["spec"].get("volumeClaimTemplates", [])}
    mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
    database = environment.get("CATBIRD_DB") or ""
    checks.check("each pod's own volume holds CATBIRD_DB",
                 any(mounts.get(c) == os.path.dirname(database) for c in claims), f"claims {claims}, mounts {mounts}, db {database}")
    checks.check("the pod mounts its volume where the image's VOLUME is",
                 os.path.dirname(database) == image["volume"], f"{os.path.dirname(database)} vs {image['volume']}")
    security = pod["spec"].get("securityContext", {})
    checks.check("the pod runs as the image's user",
                 security.get("runAsNonRoot") is True and f"{security.get('runAsUser')}:{security.get('runAsGroup')}" == image["user"],
                 f"{security} vs USER {image['user']}")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    readiness, liveness = container.get("readinessProbe", {}), container.get("livenessProbe", {})
    checks.check("the readiness probe asks /catbird/api/health on the http port",
                 readiness.get("httpGet", {}).get("path") == "/catbird/api/health"
                 and readiness["httpGet"].get("port") in ports, f"{readiness}")
    # A degraded database (a full disk) fails health; restarting would not fix it, so the
    # liveness probe only asks whether the process answers (no restart loop).
    checks.check("the liveness probe asks /catbird/version on the http port",
                 liveness.get("httpGet", {}).get("path") == "/catbird/version"
                 and liveness["httpGet"].get("port") in ports, f"{liveness}")
    checks.check("CATBIRD_PORT is the container port", environment.get("CATBIRD_PORT") == str(ports.get("http")),
                 f"{environment.get('CATBIRD_PORT')} vs {ports}")
    usage = subprocess.run([catbird, "--help"], capture_output=True, text=True).stdout
    unknown = [name for name in environment if name.startswith("CATBIRD_") and name not in usage]
    checks.check("every CATBIRD_* variable set is one catbird --help documents", not unknown, f"{unknown}")
    version = subprocess.run([catbird, "--version"], capture_output=True, text=True).stdout.split()[-1]
    checks.check("the image tag is the binary's version", container["image"] == f"catbird:{version}",
                 f"{container['image']} vs {version}")
    annotations = ingress["metadata"].get("annotations", {})
    # nginx hashes the header's value trimmed of spaces and tabs, through a map of it (tester
    # finding tester46b-F5); an Ingress cannot hold a map (http level), so it hashes the header.
    text = open(NGINX).read()
    hashed = re.search(r"hash (\$\S+) consistent;", text)
    mapped = hashed and re.search(r"map (\$\S+) " + re.escape(hashed.group(1)) + r" \{", text)
    source = mapped.group(1) if mapped else hashed and hashed.group(1)
    checks.check("the Ingress hashes the same header as deploy/nginx/catbird.conf",
                 source is not None and annotations.get("nginx.ingress.kubernetes.io/upstream-hash-by") == source,
                 f"{annotations.get('nginx.ingress.kubernetes.io/upstream-hash-by')} vs {source}")
    checks.check("the Ingress never retries on another pod",
                 annotations.get("nginx.ingress.kubernetes.io/proxy-next-upstream") == "off", f"{annotations}")
    longest_delay = longest_mock_delay()
    nginx_read = re.search(r"proxy_read_timeout (\d+)s;", open(NGINX).read())
    checks.check("nginx's read timeout is at least a mock's longest delay",
                 nginx_read is not None and int(nginx_read.group(1)) >= longest_delay,
                 f"{nginx_read and nginx_read.group(0)} vs delay up to {longest_delay} s")
    ingress_read = annotations.get("nginx.ingress.kubernetes.io/proxy-read-timeout", "0")
    checks.check("the Ingress's read timeout is at least a mock's longest delay",
                 ingress_read.isdigit() and int(ingress_read) >= longest_delay, f"{ingress_read} vs delay up to {longest_delay} s")
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    checks.check("the Ingress sends to the headless Service's http port",
                 backend["name"] == service["metadata"]["name"] and backend["port"].get("name") in
                 {p["name"] for p in service["spec"]["ports"]}, f"{backend}")


def longest_mock_delay():
    """The most seconds a mock may delay its answer: `delay`'s maximum in the OpenAPI document."""
    document = json.load(open(OPENAPI))
    found = []

    def walk(node):
        if isinstance(node, dict):
            delay = node.get("properties", {}).get("delay")
            if isinstance(delay, dict) and "maximum" in delay:
                found.append(delay["maximum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
    assert found, "no delay maximum in the OpenAPI document"
    return max(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catbird", required=True)
    parser.add_argument("--hadolint", default="hadolint")
    args = parser.parse_args()
    checks = Checks()
    image = check_containerfile(checks, args.catbird, args.hadolint)
    check_manifest(checks, args.catbird, image)
    return checks.finish("deploy files")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Checks the deployment examples (deploy/: Kubernetes manifests and Slurm scripts), offline:
#
#   scripts/check-deploy.sh [DIR]          DIR defaults to the repository's deploy/
#   TENGU_BIN=target/debug/tengu scripts/check-deploy.sh
#
# DIR/k8s/*.yaml: every document is validated against the Kubernetes OpenAPI schemas in
#   strict mode (an unknown or misspelt field fails), for Kubernetes 1.30 and the newest
#   version the schema package bundles (K8S_VERSIONS="1.30 1.33" to choose); a kind or
#   apiVersion without a schema fails. Beyond the schemas: a Deployment's selector matches
#   its pod labels, volume mounts name volumes, ConfigMaps/Secrets (and keys) that pods use
#   are defined in DIR/k8s, $(VAR) references in args are defined, all namespaced objects
#   share one namespace, an Indexed Job sets completions, kustomization.yaml lists files
#   that exist and names images that the manifests use, and a ConfigMap key NAME.toml is
#   byte for byte configs/run/NAME.toml of this repository.
# DIR/slurm: `bash -n` on every *.sbatch, *.sh and env*; each *.sbatch starts with #! and
#   every #SBATCH option is one that sbatch knows (static list, Slurm 22.05 to 24.11), with a
#   value where it needs one (and a well-formed one for --array, --signal, --time and a few
#   more); an #SBATCH line after the first command, which sbatch ignores, fails.
# tengu invocations: with TENGU_BIN set, every `tengu SUBCOMMAND --flag` in the manifests'
#   args and shell commands, the Slurm scripts and the shell blocks of DIR/**/*.md must be a
#   subcommand and flags that `TENGU_BIN SUBCOMMAND --help` lists. Without it, skipped.
#
# Each problem is printed as `check-deploy: FILE[:LINE]: what`; the exit status is 1 when
# there is any (2: the check itself could not run). CHECK_DEPLOY_VERBOSE=1 also lists the
# tengu invocations found. The schemas come from PyPI's kubernetes-validate (pinned, with
# its main dependencies), installed on first use into a venv under
# ${TENGU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tengu} (150 MB, about 20 s); later runs need
# no network and take about a second.
set -euo pipefail
# shellcheck source=scripts/python-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/python-venv.sh"

KV_VERSION=1.37.0
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$root/deploy}"
say() { echo "check-deploy: $*" >&2; }
[ -d "$dir" ] || { say "$dir is not a directory (usage: scripts/check-deploy.sh [DIR])"; exit 2; }

venv="$(cached_venv "deploy-check-kubernetes-validate-$KV_VERSION" \
    '"$VENV/bin/python" -c "import kubernetes_validate, yaml"' \
    "kubernetes-validate==$KV_VERSION" "jsonschema==4.26.0" "referencing==0.37.0" "PyYAML==6.0.4")" ||
    { say "kubernetes-validate could not be installed"; exit 2; }

exec "$venv/bin/python" - "$dir" "$root" <<'PY'
import difflib
import glob
import os
import re
import shlex
import subprocess
import sys

import yaml
import kubernetes_validate
from kubernetes_validate.utils import (SchemaNotFoundError, ValidationError,
                                       VersionNotSupportedError)

deploy, root = sys.argv[1], sys.argv[2]
problems = []


def show(path):
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def problem(path, message, line=None):
    where = show(path) + (f":{line}" if line else "")
    problems.append(f"{where}: {message}")


# ---------------------------------------------------------------------------------------
# tengu invocations, collected from every file and checked at the end

invocations = []  # (path, line, argv after `tengu`)
SHELL_STOP = {"|", "||", "&&", ";", "&", ";;", ")", "}"}


def tengu_argv(tokens):
    """The argument lists that follow each `tengu` word of a tokenised command line."""
    for i, tok in enumerate(tokens):
        # `-n tengu` (a namespace) or `--name tengu` is an option's value, not a command.
        after_option = i > 0 and re.match(r"^-[^=]*$", tokens[i - 1])
        if (tok == "tengu" or tok.endswith("/tengu")) and not after_option:
            argv = []
            for t in tokens[i + 1:]:
                if t in SHELL_STOP or (t and t[0] in "<>") or re.match(r"^\d?>", t):
                    break
                argv.append(t)
            if argv and re.match(r"^(-|[a-z][a-z-]*$)", argv[0]):
                yield argv


def locate(path, sub):
    """The line of a manifest where `sub` follows tengu or starts an args list, or None."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.lstrip().startswith("#") and re.search(
                    r'(tengu\s+|^\s*-\s+|\[\s*)"?' + re.escape(sub) + r'\b', line):
                return n
    return None


def scan_shell(path, text, first_line=1):
    """Finds tengu invocations in shell text (comments and quoted strings do not count)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start = i
        logical = lines[i]
        while logical.endswith("\\") and i + 1 < len(lines):
            i += 1
            logical = logical[:-1] + " " + lines[i]
        i += 1
        stripped = logical.strip()
        if stripped.startswith("$ "):
            stripped = stripped[2:]
        if not stripped or stripped.startswith("#"):
            continue
        try:
            tokens = shlex.split(stripped, comments=True)
        except ValueError:
            tokens = stripped.split()
        for argv in tengu_argv(tokens):
            # first_line None: a script inside a manifest, whose lines are not the file's.
            line = first_line + start if first_line else locate(path, argv[0])
            invocations.append((path, line, argv))


# ---------------------------------------------------------------------------------------
# Kubernetes

k8s_dir = os.path.join(deploy, "k8s")
versions = [re.sub(r"^v?(\d+\.\d+).*", r"\1", v) for v in
            os.environ.get("K8S_VERSIONS", "").split() or ["1.30", kubernetes_validate.latest_version()]]
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume",
                  "StorageClass", "CustomResourceDefinition", "PriorityClass", "RuntimeClass",
                  "IngressClass", "Node", "ValidatingWebhookConfiguration",
                  "MutatingWebhookConfiguration"}
KUSTOMIZATION_KEYS = {"apiVersion", "kind", "metadata", "resources", "namespace", "namePrefix",
                      "nameSuffix", "labels", "commonLabels", "commonAnnotations", "images",
                      "patches", "patchesStrategicMerge", "patchesJson6902", "configMapGenerator",
                      "secretGenerator", "generatorOptions", "replicas", "components", "crds",
                      "openapi", "helmCharts", "replacements", "buildMetadata", "sortOptions",
                      "vars", "bases", "configurations", "transformers", "generators",
                      "validators"}

objects = []  # (path, document)
kustomizations = []
manifests = sorted(glob.glob(os.path.join(k8s_dir, "*.yaml")) + glob.glob(os.path.join(k8s_dir, "*.yml")))
if not manifests:
    problem(k8s_dir, "no *.yaml manifests")
for path in manifests:
    try:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
    except yaml.YAMLError as e:
        problem(path, f"not valid YAML: {e}".replace("\n", " "))
        continue
    if not docs:
        problem(path, "holds no YAML document")
    for doc in docs:
        if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str) \
                or not isinstance(doc.get("apiVersion"), str):
            problem(path, "a document without apiVersion and kind (not a Kubernetes object)")
            continue
        kind = doc["kind"]
        if kind == "Kustomization":
            kustomizations.append((path, doc))
            continue
        meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        label = f"{kind} {meta.get('name') or meta.get('generateName') or '?'}"
        if not (meta.get("name") or meta.get("generateName")):
            problem(path, f"{label}: metadata.name (or generateName) is missing")
        failures = {}  # message -> versions
        known_kind = True
        for version in versions:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except ValidationError as e:
                field = ".".join(str(p) for p in e.path) or "(top level)"
                failures.setdefault(f"{field}: {e.message}", []).append(e.version)
            except SchemaNotFoundError:
                known_kind = False
                failures.setdefault(
                    f"no schema for kind {kind} in apiVersion {doc['apiVersion']} "
                    "(a misspelt kind or apiVersion?)", []).append(version)
            except (VersionNotSupportedError, IndexError):
                print(f"check-deploy: kubernetes-validate {kubernetes_validate.__version__} has no "
                      f"schemas for Kubernetes {version} (K8S_VERSIONS)", file=sys.stderr)
                sys.exit(2)
        for message, vs in failures.items():
            problem(path, f"{label}: invalid for Kubernetes {', '.join(vs)}: {message}")
        if known_kind:
            objects.append((path, doc))

# Names and keys defined in the directory.
config_maps, secrets = {}, {}
for path, doc in objects:
    name = (doc.get("metadata") or {}).get("name")
    if doc["kind"] == "ConfigMap":
        config_maps[name] = set(doc.get("data") or {}) | set(doc.get("binaryData") or {})
    elif doc["kind"] == "Secret":
        secrets[name] = set(doc.get("data") or {}) | set(doc.get("stringData") or {})

# A ConfigMap key NAME.toml is a copy of configs/run/NAME.toml.
for path, doc in objects:
    if doc["kind"] != "ConfigMap":
        continue
    for key, value in (doc.get("data") or {}).items():
        if not key.endswith(".toml"):
            continue
        source = os.path.join(root, "configs", "run", key)
        if not os.path.isfile(source):
            problem(path, f"ConfigMap key {key}: configs/run/{key} does not exist (the embedded "
                          "config must be a copy of a repository config)")
            continue
        with open(source) as f:
            want = f.read()
        if value != want:
            diff = next((n for n, (a, b) in enumerate(zip(value.split("\n"), want.split("\n")), 1)
                         if a != b), min(value.count("\n"), want.count("\n")) + 1)
            problem(path, f"ConfigMap key {key} differs from configs/run/{key} (first at line "
                          f"{diff} of the config): paste the repository file in again")

namespaces = {}
pod_images = set()
for path, doc in objects:
    kind = doc["kind"]
    meta = doc.get("metadata") or {}
    label = f"{kind} {meta.get('name') or meta.get('generateName')}"
    if kind not in CLUSTER_SCOPED:
        namespaces.setdefault(meta.get("namespace"), []).append(f"{show(path)} ({label})")
    spec = doc.get("spec") or {}
    template = None
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        template = spec.get("template") or {}
    elif kind == "CronJob":
        template = ((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}
    elif kind == "Pod":
        template = {"metadata": meta, "spec": spec}
    if template is None:
        continue
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"):
        want = (spec.get("selector") or {}).get("matchLabels") or {}
        have = (template.get("metadata") or {}).get("labels") or {}
        for k, v in want.items():
            if have.get(k) != v:
                problem(path, f"{label}: selector {k}={v} does not match the pod template's labels")
    if kind == "Job" and spec.get("completionMode") == "Indexed" and "completions" not in spec:
        problem(path, f"{label}: an Indexed Job needs spec.completions")
    pod = template.get("spec") or {}
    volumes = {}
    for v in pod.get("volumes") or []:
        volumes[v.get("name")] = v
        if "configMap" in v and not v["configMap"].get("optional"):
            ref = v["configMap"].get("name")
            if ref not in config_maps:
                problem(path, f"{label}: volume {v.get('name')}: no ConfigMap {ref} in {show(k8s_dir)}")
            else:
                for item in v["configMap"].get("items") or []:
                    if item.get("key") not in config_maps[ref]:
                        problem(path, f"{label}: volume {v.get('name')}: ConfigMap {ref} has no key {item.get('key')}")
        if "secret" in v and not v["secret"].get("optional"):
            ref = v["secret"].get("secretName")
            if ref not in secrets:
                problem(path, f"{label}: volume {v.get('name')}: no Secret {ref} in {show(k8s_dir)}")
    for c in (pod.get("initContainers") or []) + (pod.get("containers") or []):
        cname = f"{label}, container {c.get('name')}"
        image = c.get("image") or ""
        pod_images.add(re.sub(r"(@.*|:[^/:]*)$", "", image))
        defined = set()
        for e in c.get("env") or []:
            defined.add(e.get("name"))
            source = e.get("valueFrom") or {}
            for ref_kind, table, what in (("configMapKeyRef", config_maps, "ConfigMap"),
                                          ("secretKeyRef", secrets, "Secret")):
                ref = source.get(ref_kind)
                if not ref or ref.get("optional"):
                    continue
                if ref.get("name") not in table:
                    problem(path, f"{cname}: env {e.get('name')}: no {what} {ref.get('name')} in {show(k8s_dir)}")
                elif ref.get("key") not in table[ref.get("name")]:
                    problem(path, f"{cname}: env {e.get('name')}: {what} {ref.get('name')} has no key {ref.get('key')}")
        for e in c.get("envFrom") or []:
            for ref_kind, table, what in (("configMapRef", config_maps, "ConfigMap"),
                                          ("secretRef", secrets, "Secret")):
                ref = e.get(ref_kind)
                if not ref:
                    continue
                if ref.get("name") in table:
                    defined |= {(e.get("prefix") or "") + k for k in table[ref.get("name")]}
                elif not ref.get("optional"):
                    problem(path, f"{cname}: envFrom: no {what} {ref.get('name')} in {show(k8s_dir)}")
        for m in c.get("volumeMounts") or []:
            if m.get("name") not in volumes:
                problem(path, f"{cname}: volumeMount {m.get('name')} names no volume of the pod")
        command, args = c.get("command") or [], c.get("args") or []
        for var in re.findall(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)", " ".join(map(str, command + args))):
            if var not in defined:
                problem(path, f"{cname}: $({var}) in command/args is not an env variable of the "
                              "container (Kubernetes would pass it on literally)")
        # tengu invocations: the image's entry point is tengu, or a shell runs it.
        if command[:1] and os.path.basename(str(command[0])) in ("sh", "bash", "dash"):
            argv = [str(a) for a in command[1:] + args]
            if "-c" in argv and argv.index("-c") + 1 < len(argv):
                scan_shell(path, argv[argv.index("-c") + 1], None)
        elif command[:1] and os.path.basename(str(command[0])) == "tengu":
            argv = [str(a) for a in command[1:] + args]
            invocations.append((path, locate(path, argv[0]) if argv else None, argv))
        elif not command and args and re.search(r"(^|/)tengu(:|@|$)", image):
            invocations.append((path, locate(path, str(args[0])), [str(a) for a in args]))

if len(namespaces) > 1:
    problem(k8s_dir, "namespaced objects are in different namespaces: " + "; ".join(
        f"{ns or '(none)'}: {', '.join(v)}" for ns, v in namespaces.items()))

for path, doc in kustomizations:
    unknown = sorted(set(doc) - KUSTOMIZATION_KEYS)
    if unknown:
        problem(path, f"unknown kustomization field(s): {', '.join(unknown)}")
    ns = doc.get("namespace")
    if ns and len(namespaces) == 1 and next(iter(namespaces)) not in (None, ns):
        problem(path, f"namespace {ns} differs from the manifests' {next(iter(namespaces))}")
    for res in doc.get("resources") or []:
        if not isinstance(res, str):
            problem(path, f"resources: {res!r} is not a path")
        elif "://" not in res and not os.path.exists(os.path.join(os.path.dirname(path), res)):
            problem(path, f"resources: {res} does not exist")
    for img in doc.get("images") or []:
        extra = sorted(set(img) - {"name", "newName", "newTag", "digest", "tagSuffix"})
        if extra:
            problem(path, f"images: unknown field(s) {', '.join(extra)}")
        if img.get("name") not in pod_images:
            problem(path, f"images: {img.get('name')} is the image of no container here "
                          "(the override would change nothing)")

# ---------------------------------------------------------------------------------------
# Slurm

SBATCH_VALUE = set("""account acctg-freq array batch bb bbf begin chdir cluster-constraint
clusters comment constraint container container-id core-spec cores-per-socket cpu-freq
cpus-per-gpu cpus-per-task deadline delay-boot dependency distribution error exclude export
export-file extra extra-node-info gid gpu-bind gpu-freq gpus gpus-per-node gpus-per-socket
gpus-per-task gres gres-flags hint input job-name kill-on-invalid-dep licenses mail-type
mail-user mcs-label mem mem-bind mem-per-cpu mem-per-gpu mincpus network nodefile nodelist
nodes ntasks ntasks-per-core ntasks-per-gpu ntasks-per-node ntasks-per-socket open-mode
output partition power prefer priority profile qos reservation segment signal
sockets-per-node switches thread-spec threads-per-core time time-min tmp tres-bind
tres-per-task uid wait-all-nodes wckey wrap""".split())
SBATCH_FLAG = set("""contiguous help hold ignore-pbs no-requeue overcommit oversubscribe
parsable quiet reboot requeue spread-job stepmgr test-only usage use-min-nodes verbose version
wait""".split())
SBATCH_OPTIONAL = {"exclusive", "get-user-env", "nice", "no-kill", "propagate"}
SBATCH_SHORT = dict(A="account", a="array", B="extra-node-info", b="begin", C="constraint",
                    c="cpus-per-task", D="chdir", d="dependency", e="error", F="nodefile",
                    G="gpus", H="hold", h="help", i="input", J="job-name", k="no-kill",
                    L="licenses", M="clusters", m="distribution", N="nodes", n="ntasks",
                    O="overcommit", o="output", p="partition", Q="quiet", q="qos",
                    S="core-spec", s="oversubscribe", t="time", V="version", v="verbose",
                    W="wait", w="nodelist", x="exclude")
TIME = r"(\d+|\d+:\d\d?|\d+:\d\d?:\d\d?|\d+-\d+|\d+-\d+:\d\d?|\d+-\d+:\d\d?:\d\d?|UNLIMITED|INFINITE)"
SBATCH_VALUE_FORMS = {
    "array": r"\d+(-\d+(:\d+)?)?(,\d+(-\d+(:\d+)?)?)*(%\d+)?",
    "signal": r"((R|B|RB|BR):)?(SIG)?[A-Z0-9]+(@\d+)?",
    "time": TIME, "time-min": TIME,
    "mem": r"\d+[KMGT]?", "mem-per-cpu": r"\d+[KMGT]?", "mem-per-gpu": r"\d+[KMGT]?",
    "tmp": r"\d+[KMGT]?",
    "cpus-per-task": r"\d+", "cpus-per-gpu": r"\d+", "ntasks": r"\d+",
    "ntasks-per-node": r"\d+", "nodes": r"\d+(-\d+)?",
    "gres": r"[A-Za-z0-9_/]+(:[A-Za-z0-9_.-]+)*(,[A-Za-z0-9_/]+(:[A-Za-z0-9_.-]+)*)*",
    "gpus": r"([A-Za-z0-9_.-]+:)?\d+", "gpus-per-node": r"([A-Za-z0-9_.-]+:)?\d+",
    "gpus-per-task": r"([A-Za-z0-9_.-]+:)?\d+",
    "open-mode": r"append|truncate",
}
ALL_SBATCH = SBATCH_VALUE | SBATCH_FLAG | SBATCH_OPTIONAL


def check_sbatch_directives(path, lines):
    if not lines or not lines[0].startswith("#!"):
        problem(path, "the first line must be #! and an interpreter (sbatch refuses the script)", 1)
    seen_command = None
    for n, line in enumerate(lines[1:], 2):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            seen_command = seen_command or n
            continue
        if not re.match(r"#SBATCH(\s|$)", stripped):
            continue
        if seen_command:
            problem(path, f"#SBATCH after the first command (line {seen_command}): sbatch ignores it", n)
            continue
        if line != line.lstrip():
            problem(path, "#SBATCH must start the line", n)
        try:
            tokens = shlex.split(stripped[len("#SBATCH"):])
        except ValueError as e:
            problem(path, f"#SBATCH line does not parse: {e}", n)
            continue
        if not tokens:
            problem(path, "#SBATCH without an option", n)
        k = 0
        while k < len(tokens):
            tok = tokens[k]
            k += 1
            value = None
            if tok.startswith("--"):
                name, eq, value = tok[2:].partition("=")
                value = value if eq else None
            elif re.match(r"^-[A-Za-z]", tok):
                name = SBATCH_SHORT.get(tok[1])
                if name is None:
                    problem(path, f"#SBATCH {tok}: sbatch has no option -{tok[1]}", n)
                    continue
                value = tok[2:] or None
            else:
                problem(path, f"#SBATCH {tok}: not an option", n)
                continue
            if name not in ALL_SBATCH:
                close = difflib.get_close_matches(name, sorted(ALL_SBATCH), 1)
                hint = f" (--{close[0]}?)" if close else ""
                problem(path, f"#SBATCH {tok}: sbatch has no option --{name}{hint}", n)
                continue
            if name in SBATCH_FLAG and value is not None:
                problem(path, f"#SBATCH {tok}: --{name} takes no value", n)
            if name in SBATCH_VALUE and value is None:
                if k < len(tokens) and not tokens[k].startswith("-"):
                    value = tokens[k]
                    k += 1
                else:
                    problem(path, f"#SBATCH {tok}: --{name} needs a value", n)
                    continue
            form = SBATCH_VALUE_FORMS.get(name)
            if form and value is not None and not re.fullmatch(form, value):
                problem(path, f"#SBATCH {tok}: {value!r} is not a valid --{name} value", n)


slurm_dir = os.path.join(deploy, "slurm")
slurm_files = sorted(glob.glob(os.path.join(slurm_dir, "*")))
for path in slurm_files:
    base = os.path.basename(path)
    is_script = base.endswith((".sbatch", ".sh"))
    if not (is_script or base.startswith("env")):
        continue
    out = subprocess.run(["bash", "-n", path], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        problem(path, "bash -n: " + " / ".join(out.stderr.strip().splitlines()))
    with open(path) as f:
        text = f.read()
    if base.endswith(".sbatch"):
        check_sbatch_directives(path, text.split("\n"))
    if is_script:
        scan_shell(path, text)

# Shell blocks of the READMEs.
for path in sorted(glob.glob(os.path.join(deploy, "**", "*.md"), recursive=True)):
    with open(path) as f:
        lines = f.read().split("\n")
    block, start, lang = None, 0, ""
    for n, line in enumerate(lines, 1):
        fence = re.match(r"^\s*```\s*([A-Za-z]*)", line)
        if fence and block is None:
            block, start, lang = [], n + 1, fence.group(1).lower()
        elif fence:
            if lang in ("", "sh", "bash", "shell", "console"):
                scan_shell(path, "\n".join(block), start)
            block = None
        elif block is not None:
            block.append(line)

# ---------------------------------------------------------------------------------------
# tengu subcommands and flags

tengu = os.environ.get("TENGU_BIN")
helps = {}


def help_of(prefix):
    key = tuple(prefix)
    if key not in helps:
        try:
            out = subprocess.run([tengu, *prefix, "--help"], capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL, timeout=60)
            helps[key] = out.stdout if out.returncode == 0 else None
        except OSError as e:
            print(f"check-deploy: TENGU_BIN={tengu} does not run: {e}", file=sys.stderr)
            sys.exit(2)
    return helps[key]


def has_flag(text, flag):
    return re.search(r"(^|[\s,])" + re.escape(flag) + r"(?=[\s,=<\[]|$)", text, re.M) is not None


if os.environ.get("CHECK_DEPLOY_VERBOSE"):
    for path, line, argv in invocations:
        where = show(path) + (f":{line}" if line else "")
        print(f"check-deploy: {where}: tengu {' '.join(argv)}", file=sys.stderr)
if tengu:
    for path, line, argv in invocations:
        prefix, rest = [], list(argv)
        # The subcommand (and a nested one: `tengu book build`).
        while rest and re.fullmatch(r"[a-z][a-z-]*", rest[0]) and (
                not prefix or "Commands:" in (help_of(prefix) or "")):
            prefix.append(rest.pop(0))
        text = help_of(prefix)
        if text is None:
            problem(path, f"`tengu {' '.join(prefix)}`: not a tengu subcommand", line)
            continue
        for tok in rest:
            if re.match(r"^--[A-Za-z0-9]", tok):
                flag = tok.split("=", 1)[0]
                if not has_flag(text, flag):
                    cmd = " ".join(["tengu", *prefix])
                    problem(path, f"`{cmd}` has no flag {flag}", line)
    tengu_note = f"{len(invocations)} tengu invocations checked with {tengu}"
else:
    tengu_note = (f"TENGU_BIN is not set: {len(invocations)} tengu invocations not checked "
                  "(TENGU_BIN=target/debug/tengu to check them)")

for p in problems:
    print(f"check-deploy: {p}", file=sys.stderr)
n_objects = len(objects) + len(kustomizations)
summary = (f"{len(manifests)} manifests ({n_objects} objects) against Kubernetes "
           f"{', '.join(versions)}; {len(slurm_files)} Slurm files; {tengu_note}")
if problems:
    print(f"check-deploy: FAILED, {len(problems)} problem(s); {summary}", file=sys.stderr)
    sys.exit(1)
print(f"check-deploy: ok: {summary}")
PY

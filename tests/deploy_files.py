"""What tests/cli_deploy.sh needs from deploy/, read from the files
themselves so that the test and the files cannot drift apart.

  deploy_files.py dockerfile DOCKERFILE OUTDIR
      writes one file per fact of the Dockerfile into OUTDIR (one item a
      line): from (the base image), cmake_flags (the build stage's
      CMAKE_FLAGS), build_dir (its make BUILD=), copy_src and copy_dest (the
      runtime stage's COPY --from), packages (its apt-get install), useradd
      (its useradd command), user (USER), entrypoint (ENTRYPOINT's exec
      form), healthcheck (HEALTHCHECK's CMD), expose (EXPOSE).
  deploy_files.py kubernetes MANIFEST DOCKERFILE_FACTS_DIR OUTDIR
      (needs PyYAML) checks what Kubernetes' schema cannot: that the
      Deployment's and the Service's selectors pick the pod's labels, that
      the probes, the Service and the scrape annotation name the
      container's port and that it is the image's EXPOSE, that the volume
      is mounted where the image's ENTRYPOINT reads models, and that the
      grace period outlasts --drain-timeout; prints one line per problem.
      Writes the container's args (one a line) to OUTDIR/args.

Exits 1 with a message naming what it could not find."""
import json
import os
import shlex
import sys


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def instructions(path):
    """The Dockerfile's instructions as (KEYWORD, rest), continuation lines joined."""
    out, cur = [], ""
    for line in open(path):
        s = line.rstrip("\n")
        if not cur and (not s.strip() or s.lstrip().startswith("#")):
            continue
        if cur and s.lstrip().startswith("#"):   # a comment inside a continued instruction
            continue
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        cur += s
        kw, _, rest = cur.strip().partition(" ")
        out.append((kw.upper(), rest.strip()))
        cur = ""
    return out


def commands(run):
    """A RUN's shell commands, split at && and ;, each as a list of words."""
    words, cmds, cur = shlex.split(run), [], []
    for w in words:
        if w in ("&&", ";", "||"):
            cmds.append(cur)
            cur = []
        else:
            cur.append(w)
    cmds.append(cur)
    return [c for c in cmds if c]


def dockerfile(path, outdir):
    stages, cur = [], None
    for kw, rest in instructions(path):
        if kw == "FROM":
            cur = {"from": rest.split()[0], "ins": []}
            stages.append(cur)
        elif cur is not None:
            cur["ins"].append((kw, rest))
    if len(stages) < 2:
        fail(f"{path}: expected a build stage and a runtime stage, found {len(stages)} FROM")
    build, runtime = stages[0], stages[-1]
    facts = {"from": [runtime["from"]]}
    for kw, rest in build["ins"]:
        if kw != "RUN":
            continue
        for c in commands(rest):
            if c[0] == "make":
                for w in c[1:]:
                    if w.startswith("CMAKE_FLAGS="):
                        facts["cmake_flags"] = w[len("CMAKE_FLAGS="):].split()
                    elif w.startswith("BUILD="):
                        facts["build_dir"] = [w[len("BUILD="):]]
    for kw, rest in runtime["ins"]:
        if kw == "RUN":
            for c in commands(rest):
                if c[0] == "apt-get" and "install" in c:
                    pk = []
                    for w in c[c.index("install") + 1:]:
                        if w.startswith(">") or w.startswith("2>"):
                            break
                        if not w.startswith("-"):
                            pk.append(w)
                    facts["packages"] = pk
                elif c[0] == "useradd":
                    facts["useradd"] = [shlex.join(c)]
        elif kw == "COPY" and rest.startswith("--from="):
            w = rest.split()
            facts["copy_src"], facts["copy_dest"] = [w[1]], [w[2]]
        elif kw == "USER":
            facts["user"] = [rest]
        elif kw == "ENTRYPOINT":
            facts["entrypoint"] = json.loads(rest)
        elif kw == "HEALTHCHECK":
            facts["healthcheck"] = [rest.split(" CMD ", 1)[1]]
        elif kw == "EXPOSE":
            facts["expose"] = [rest.split("/")[0]]
    for key in ("cmake_flags", "build_dir", "packages", "useradd", "user", "copy_src", "copy_dest",
                "entrypoint", "healthcheck", "expose"):
        if key not in facts:
            fail(f"{path}: no {key} found (deploy_files.py reads it from the file)")
    os.makedirs(outdir, exist_ok=True)
    for key, items in facts.items():
        with open(os.path.join(outdir, key), "w") as f:
            f.write("".join(i + "\n" for i in items))


def flag(args, name):
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else None


def kubernetes(path, factsdir, outdir):
    import yaml
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    kinds = {d.get("kind"): d for d in docs}
    if "Deployment" not in kinds or "Service" not in kinds:
        fail(f"{path}: expected a Deployment and a Service, found {sorted(k for k in kinds if k)}")
    dep, svc = kinds["Deployment"], kinds["Service"]
    pod = dep["spec"]["template"]
    labels = pod["metadata"].get("labels", {})
    c = pod["spec"]["containers"][0]
    args = [str(a) for a in c.get("args", [])]
    entry = open(os.path.join(factsdir, "entrypoint")).read().split("\n")[:-1]
    expose = int(open(os.path.join(factsdir, "expose")).read())
    problems = []

    def picks(what, sel):
        if not sel or any(labels.get(k) != v for k, v in sel.items()):
            problems.append(f"{what} {sel} does not pick the pod's labels {labels}")
    picks("the Deployment's selector", dep["spec"]["selector"].get("matchLabels"))
    picks("the Service's selector", svc["spec"].get("selector"))
    ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
    if list(ports.values()) != [expose]:
        problems.append(f"the container's ports {ports} are not the image's EXPOSE {expose}")
    for probe in ("livenessProbe", "readinessProbe"):
        p = c.get(probe, {}).get("httpGet", {}).get("port")
        if p not in ports and p not in ports.values():
            problems.append(f"{probe}'s port {p!r} is not the container's")
    for sp in svc["spec"]["ports"]:
        if sp.get("targetPort") not in ports and sp.get("targetPort") not in ports.values():
            problems.append(f"the Service's targetPort {sp.get('targetPort')!r} is not the container's")
    scrape = pod["metadata"].get("annotations", {}).get("prometheus.io/port")
    if scrape is not None and int(scrape) != expose:
        problems.append(f"prometheus.io/port {scrape} is not the container's port {expose}")
    models = flag(entry, "--models")
    mounts = [m["mountPath"] for m in c.get("volumeMounts", [])]
    if models not in mounts:
        problems.append(f"no volume is mounted at {models} (the image's --models); mounts: {mounts}")
    drain = flag(args, "--drain-timeout") or flag(entry, "--drain-timeout") or "30"   # fcast serve's default
    grace = pod["spec"].get("terminationGracePeriodSeconds", 30)
    if not grace > float(drain):
        problems.append(f"terminationGracePeriodSeconds {grace} does not outlast --drain-timeout {drain}")
    for p in problems:
        print(p)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "args"), "w") as f:
        f.write("".join(a + "\n" for a in args))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "dockerfile":
        dockerfile(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "kubernetes":
        kubernetes(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        fail(__doc__)

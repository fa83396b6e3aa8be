#!/usr/bin/env python3
"""The layers of fcast's code, checked include by include (issue 34).

Every #include "..." of src/, serve/ and tools/ is checked against the
layer matrix below: a file may include its own folder, the layers its
folder may use, and fcast's public status header (fcast/status.h). An
include that goes up a layer, or sideways into a peer, fails the check,
naming the file, the line and the rule. The includes that broke the rules
when the check was written are listed in KNOWN, each with its reason: a
ratchet, so that no new one comes in, and each is removed from the list
when its code moves (an entry that no longer occurs fails the check too,
so the list cannot outlive what it excuses).

    python3 tests/layers.py [ROOT]      exit 0, or 1 with one line per fault

Standard library only. The README's layout table gives the same layers.
"""
import os
import re
import sys

# folder -> the folders it may include besides itself (lowest layers first).
# "public" is include/fcast.h and its parts; "status" is fcast/status.h alone.
LOWER = {
    "core": set(),
    "kernels": {"core"},
    "data": {"core"},
    "monitor": {"core"},
    "backend": {"core", "kernels"},
    "dist": {"core", "backend"},
    "models": {"core", "kernels", "backend"},
    "io": {"core", "data", "models"},
    "train": {"core", "kernels", "data", "monitor", "backend", "dist", "models", "io"},
    "quant": {"core", "kernels", "data", "backend"},
    "eval": {"core", "data", "io", "train"},
    "report": {"core", "data"},
    "tune": {"core", "kernels", "io", "train", "eval"},
    "api": {"core", "kernels", "data", "monitor", "backend", "dist", "models", "io", "train", "quant", "eval",
            "report", "tune"},
    "serve": {"core"},   # the public API, and the engine through INTERFACES only
    "tools": set(),      # the public API only (held by CMake too)
}
# Who may include the whole public API (fcast.h, fcast/library.h, ...):
# the library's own front (api) and the programs on it; the status header
# alone is open to every folder (an engine file whose types are the API's
# is in KNOWN).
PUBLIC_OK = {"api", "serve", "tools"}

# Named internal interfaces: one header of a higher layer that a folder may
# include although the layer is closed to it, because the header is the
# whole surface that folder uses (it says why, include by include).
INTERFACES = {
    "serve": {"api/serve_engine.h"},
}

# The includes that broke the rules when this check was written, and why
# they were still there: a ratchet that issue 34 emptied. An entry added
# here must say why and which issue moves its code.
KNOWN = {
}


def folder_of(rel):
    parts = rel.split("/")
    if parts[0] == "src":
        return parts[1]
    return parts[0]


def target_of(inc, own):
    if inc in ("fcast.h",) or inc.startswith("fcast/") and inc != "fcast/status.h":
        return "public"
    if inc == "fcast/status.h":
        return "status"
    return inc.split("/")[0] if "/" in inc else own


def self_test():
    """The check must be able to fail: a tree with one include up a layer,
    one sideways, one of the whole API from the engine and one allowed
    interface gives exactly the three faults."""
    import tempfile
    files = {
        "src/core/a.c": '#include "train/x.h"\n',
        "src/data/b.c": '#include "monitor/y.h"\n#include "core/ok.h"\n#include "fcast/status.h"\n',
        "src/quant/c.h": '#include "fcast.h"\n',
        "serve/d.c": '#include "api/serve_engine.h"\n#include "core/error.h"\n#include "fcast.h"\n',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        faults = check(root, {})
    want = ["src/core/a.c:1", "src/data/b.c:1", "src/quant/c.h:1"]
    got = sorted(f.split(":")[0] + ":" + f.split(":")[1] for f in faults)
    if got != want:
        print("layers.py self-test: expected faults at %s, got %s" % (want, faults))
        return False
    return True


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    if not self_test():
        return 1
    faults = check(root, KNOWN)
    for f in faults:
        print(f)
    print("layers: %d fault(s), %d known exception(s) left" % (len(faults), len(KNOWN)))
    return 1 if faults else 0


def check(root, known):
    faults, seen_known = [], set()
    for top in ("src", "serve", "tools"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h", ".cu")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                own = folder_of(rel)
                allowed = LOWER.get(own)
                if allowed is None:
                    faults.append("%s: folder '%s' has no row in tests/layers.py's LOWER" % (rel, own))
                    continue
                for no, line in enumerate(open(path, errors="replace"), 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    inc = m.group(1)
                    tgt = target_of(inc, own)
                    if tgt in (own, "status") or tgt in allowed:
                        continue
                    if tgt == "public" and own in PUBLIC_OK:
                        continue
                    if (rel, inc) in known:
                        seen_known.add((rel, inc))
                        continue
                    if inc in INTERFACES.get(own, ()):
                        continue
                    faults.append("%s:%d: #include \"%s\": %s may not include %s (tests/layers.py)" %
                                  (rel, no, inc, own, tgt))
    for key, why in sorted(known.items()):
        if key not in seen_known:
            faults.append("%s no longer includes %s: remove it from tests/layers.py's KNOWN (%s)" %
                          (key[0], key[1], why))
    return faults


if __name__ == "__main__":
    sys.exit(main())

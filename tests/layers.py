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
    "serve": set(),      # the public API (and its own folder); see KNOWN
    "tools": set(),      # the public API only (held by CMake too)
}
# Who may include the whole public API (fcast.h, fcast/library.h, ...):
# the library's own front (api) and the programs on it; the status header
# alone is open to every folder (an engine file whose types are the API's
# is in KNOWN).
PUBLIC_OK = {"api", "serve", "tools"}

# The includes that broke the rules when this check was written, and why
# they are still there (issue 34 moves each to the layer it belongs to).
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


def serve_known(root):
    """serve/ reaches into the engine: every such include is known, by
    folder (issue 34: serve on the public API or a narrow interface)."""
    return {"train", "data", "io", "backend", "monitor", "quant", "core", "api", "models", "kernels"}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    faults, seen_known = [], set()
    serve_engine = serve_known(root)
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
                    if (rel, inc) in KNOWN:
                        seen_known.add((rel, inc))
                        continue
                    if own == "serve" and tgt in serve_engine:
                        continue
                    faults.append("%s:%d: #include \"%s\": %s may not include %s (tests/layers.py)" %
                                  (rel, no, inc, own, tgt))
    for key, why in sorted(KNOWN.items()):
        if key not in seen_known:
            faults.append("%s no longer includes %s: remove it from tests/layers.py's KNOWN (%s)" %
                          (key[0], key[1], why))
    for f in faults:
        print(f)
    print("layers: %d fault(s), %d known exception(s) left" % (len(faults), len(KNOWN)))
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())

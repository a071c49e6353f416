#!/usr/bin/env python3
"""Writes src/lib/config/param_table.rs: HTCondor's parameter table (every knob's name, default
value and type, the per-subsystem defaults, and which defaults are compiled-in macros), from
HTCondor's src/condor_utils/param_info.in, read as HTCondor's own build reads it
(src/condor_utils/param_table_generator.pl).

condorlite builds from the generated file alone (no network, no HTCondor sources); this script
is how it was made, and how to make it again for another release:

    git -C <htcondor clone> show v24.0.23:src/condor_utils/param_info.in > /tmp/param_info.in
    python3 scripts/param_table.py /tmp/param_info.in
    python3 scripts/param_table.py --check /tmp/param_info.in   # exit 1 if the file is stale

What is carried, and what is not:
- `default=` is the value on Unix. `win32_default=` (the only per-platform default the file
  has) is Windows-only and left out: condorlite runs on Unix.
- `type=` (string, int, bool, double, long, path; string when absent).
- `[SUBSYS.NAME]` entries are defaults for one subsystem only; HTCondor keys their tables by
  the upper-cased subsystem name.
- `macro=NAME` marks a default the C++ build replaces with a compiled-in value (the version,
  the build platform, the authentication methods built in); they are listed, and
  src/lib/config/defaults.rs gives condorlite's values for them.
- `[$CATEGORY.NAME]` entries are the metaknob templates: src/lib/config/metaknobs.rs.
- description, tags, usage, range, restart and customization are documentation for
  `condor_config_val -info`, which condorlite does not implement.
"""
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "lib", "config", "param_table.rs")
RELEASE = "v24.0.23"
KINDS = {"string": "String", "int": "Int", "bool": "Bool", "double": "Double", "long": "Long",
         "path": "Path"}


def parse(text):
    """param_info.in as param_table_generator.pl's parse() reads it: {title: {property: value}}.

    A title is `[NAME]` (letters, digits, `_`, `.` and `$`); a property is `key=value` (spaces
    after `=` dropped, the rest of the line kept as is) or `key: TAG` followed by lines up to a
    line that is exactly TAG. Lines starting with `#` between properties are comments. A title
    given twice keeps its last properties, as the Perl hash does."""
    params = {}
    current = None
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"\s*\[([$a-zA-Z0-9_.]+)\]\s*(#.*)?$", line)
        if m:
            current = {}
            params[m.group(1)] = current
            continue
        m = re.match(r"([a-zA-Z0-9_-]+)\s*(:?=?)(.*)$", line)
        if not m or current is None or not m.group(2):
            raise SystemExit("param_info.in, line %d: cannot read %r" % (i, line))
        key, op, rest = m.groups()
        if op == "=":
            current[key] = rest.lstrip(" ")
            continue
        tag = re.fullmatch(r" *([@_A-Za-z]+) *", rest)
        if not tag:
            raise SystemExit("param_info.in, line %d: bad here-document %r" % (i, line))
        body = []
        while i < len(lines) and lines[i] != tag.group(1):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit("param_info.in: %s never ends" % tag.group(1))
        i += 1
        current[key] = "\n".join(body)
    return params


def rust_str(s):
    out = ['"']
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or ord(c) > 0x7E:
            raise SystemExit("unexpected character %r in a default" % c)
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def entry(name, props):
    if "default" not in props:
        raise SystemExit("%s has no default" % name)
    kind = props.get("type", "string").strip().lower()
    if kind not in KINDS:
        raise SystemExit("%s: unknown type %r" % (name, kind))
    return "    d(%s, %s, %s)," % (rust_str(name), rust_str(props["default"]), KINDS[kind])


def generate(text):
    params = parse(text)
    generic, subsystems, macros = [], {}, []
    for title, props in params.items():
        if title.startswith("$"):
            continue  # metaknob templates
        if not title.isascii():
            raise SystemExit("%s: not ASCII" % title)
        if "." in title:
            subsys, name = title.split(".", 1)
            subsystems.setdefault(subsys.upper(), []).append((name, props))
        else:
            generic.append((title, props))
            if "macro" in props:
                macros.append((title, props["macro"].strip()))
    by_name = lambda item: item[0].lower()
    generic.sort(key=by_name)
    digest = hashlib.sha256(text.encode()).hexdigest()
    count = len(generic) + sum(len(t) for t in subsystems.values())
    out = [
        "// @generated by scripts/param_table.py from HTCondor %s" % RELEASE,
        "// src/condor_utils/param_info.in (sha256 %s)." % digest,
        "// Do not edit: change the script, or run it on another release's param_info.in.",
        "",
        "//! HTCondor %s's parameter table: %d knobs (%d global, %d in %d subsystem tables)."
        % (RELEASE.lstrip("v"), count, len(generic), count - len(generic), len(subsystems)),
        "//!",
        "//! Each table is sorted as HTCondor's is (by name, ignoring ASCII case), for binary search.",
        "",
        "use super::defaults::Kind::{Bool, Double, Int, Long, Path, String};",
        "use super::defaults::{d, Default};",
        "",
        "/// The global defaults (`defaults[]` in HTCondor's generated param_info_tables.h).",
        "pub(super) static GLOBAL: &[Default] = &[",
    ]
    out += [entry(name, props) for name, props in generic]
    out += ["];", ""]
    out += [
        "/// The per-subsystem defaults (`subsystems[]`), by upper-cased subsystem name.",
        "pub(super) static SUBSYSTEMS: &[(&str, &[Default])] = &[",
    ]
    for subsys in sorted(subsystems, key=str.lower):
        out.append("    (")
        out.append("        %s," % rust_str(subsys))
        out.append("        &[")
        for name, props in sorted(subsystems[subsys], key=by_name):
            out.append("        " + entry(name, props))
        out.append("        ],")
        out.append("    ),")
    out += ["];", ""]
    out += [
        "/// The knobs whose default the C++ build replaces with a compiled-in macro (`macro=`),",
        "/// with the macro's name (the tests check that condorlite gives each a value).",
        "#[cfg(test)]",
        "pub(super) static BUILD_MACROS: &[(&str, &str)] = &[",
    ]
    out += ["    (%s, %s)," % (rust_str(k), rust_str(m)) for k, m in sorted(macros, key=by_name)]
    out += ["];", ""]
    return "\n".join(out), count


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) != 1:
        raise SystemExit(__doc__)
    with open(args[0]) as f:
        text, count = generate(f.read())
    if check:
        with open(OUT) as f:
            if f.read() != text:
                raise SystemExit("%s is stale: run scripts/param_table.py" % OUT)
        print("%s is up to date (%d knobs)" % (os.path.relpath(OUT), count))
        return
    with open(OUT, "w") as f:
        f.write(text)
    print("wrote %s: %d knobs" % (os.path.relpath(OUT), count))


if __name__ == "__main__":
    main(sys.argv[1:])

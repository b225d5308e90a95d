#!/usr/bin/env python3
"""Writes a C program that prints the layout of abi/stepgraph.h.

Usage: gen_layout_printer.py <stepgraph.h> <out.c>

The header is parsed for every struct, function-pointer typedef, enum and
object-like SG_ macro; the program the C compiler builds from them then
prints, one record a line (the compiler, not this script, computes every
number):

  struct <struct> <sizeof>
  field <struct> <field> <offset> <size> <kind> [sig=<ret>,<param>...]
  fntype <typedef> sig=<ret>,<param>...
  enum <enum> <enumerator> <value>
  const <macro> int <value> | const <macro> str <text>

A kind is int, uint, float or ptr; a signature lists kind:size of the return
type and each parameter (void for a void return). The binding's layout test
compares every record with the ctypes mirror, both ways, so a field, entry,
enumerator or constant the header gains without the mirror fails the test.
A declaration this parser does not understand fails here, loudly.
"""

import re
import sys

KIND_MACRO = """#define SG_KIND(x) _Generic((x), \\
    char: "int", signed char: "int", short: "int", int: "int", long: "int", \\
    long long: "int", _Bool: "uint", unsigned char: "uint", \\
    unsigned short: "uint", unsigned int: "uint", unsigned long: "uint", \\
    unsigned long long: "uint", float: "float", double: "float", \\
    default: "ptr")"""


class Unsupported(Exception):
    pass


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def split_declarator(decl):
    """'const char *name' -> ('const char *', 'name')."""
    m = re.fullmatch(r"(.*?[\s*])(\w+)", decl.strip())
    if not m or not m.group(1).strip():
        raise Unsupported(f"cannot read declaration '{decl}'")
    return " ".join(m.group(1).split()), m.group(2)


def param_types(params):
    params = " ".join(params.split())
    if params in ("", "void"):
        return []
    if "(" in params:
        raise Unsupported(f"function-pointer parameter in '{params}'")
    return [split_declarator(p)[0] for p in params.split(",")]


def function_typedefs(text):
    found = {}
    pattern = r"typedef\s+([^;{}()]+?)\(\s*\*\s*(\w+)\s*\)\s*\(([^;{}]*)\)\s*;"
    for m in re.finditer(pattern, text):
        found[m.group(2)] = (" ".join(m.group(1).split()), param_types(m.group(3)))
    return found


def struct_fields(body, fntypes):
    """[(name, signature or None)] of one struct body, in order."""
    fields = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        fp = re.fullmatch(r"(.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)", decl)
        if fp:
            fields.append((fp.group(2), (fp.group(1).strip(), param_types(fp.group(3)))))
            continue
        if "[" in decl or "(" in decl or ":" in decl:
            raise Unsupported(f"cannot read field '{decl}'")
        first, *more = decl.split(",")
        ctype, name = split_declarator(first)
        fields.append((name, fntypes.get(ctype)))
        for extra in more:
            if not re.fullmatch(r"\s*\w+\s*", extra):
                raise Unsupported(f"cannot read declarator '{extra}' in '{decl}'")
            fields.append((extra.strip(), fntypes.get(ctype)))
    return fields


def structs(text, fntypes):
    pattern = r"typedef\s+struct\s+(\w+)\s*\{([^{}]*)\}\s*(\w+)\s*;"
    return [(m.group(3), struct_fields(m.group(2), fntypes)) for m in re.finditer(pattern, text, re.S)]


def enums(text):
    found = []
    for m in re.finditer(r"enum\s+(\w+)\s*\{([^{}]*)\}\s*;", text, re.S):
        names = [e.split("=")[0].strip() for e in m.group(2).split(",") if e.strip()]
        found.append((m.group(1), names))
    return found


def macros(text):
    found = []
    for m in re.finditer(r"^\s*#\s*define\s+(SG_\w+)[ \t]+(.+)$", text, re.M):
        if "__attribute__" not in m.group(2):
            found.append((m.group(1), m.group(2).strip().startswith('"')))
    return found


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def signature_code(signature):
    ret, params = signature
    lines = ['fputs(" sig=", stdout);']
    if ret == "void":
        lines.append('fputs("void", stdout);')
    else:
        lines.append(f'printf("%s:%zu", SG_KIND(({ret}){{0}}), sizeof({ret}));')
    for p in params:
        lines.append(f'printf(",%s:%zu", SG_KIND(({p}){{0}}), sizeof({p}));')
    return lines


def field_code(struct, name, signature):
    member = f"((({struct} *)0)->{name})"
    lines = [
        f'printf("field {struct} {name} %zu %zu %s", offsetof({struct}, {name}), '
        f"sizeof {member}, SG_KIND({member}));"
    ]
    if signature is not None:
        lines += signature_code(signature)
    return lines + ['putchar(\'\\n\');']


def program(header_text):
    text = strip_comments(header_text)
    fntypes = function_typedefs(text)
    body = []
    for struct, fields in structs(text, fntypes):
        body.append(f'printf("struct {struct} %zu\\n", sizeof({struct}));')
        for name, signature in fields:
            body += field_code(struct, name, signature)
    for name, signature in fntypes.items():
        body.append(f'fputs("fntype {name}", stdout);')
        body += signature_code(signature) + ['putchar(\'\\n\');']
    for enum, names in enums(text):
        for name in names:
            body.append(f'printf("enum {enum} {name} %lld\\n", (long long)({name}));')
    for name, is_string in macros(text):
        if is_string:
            body.append(f'printf("const {name} str %s\\n", {name});')
        else:
            body.append(f'printf("const {name} int %llu\\n", (unsigned long long)({name}));')
    return "\n".join(
        [
            "/* Generated by tests/python/gen_layout_printer.py from stepgraph.h. */",
            "#include <stddef.h>",
            "#include <stdio.h>",
            '#include "stepgraph.h"',
            KIND_MACRO,
            "int main(void) {",
        ]
        + ["  " + line for line in body]
        + ["  return 0;", "}", ""]
    )


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: gen_layout_printer.py <stepgraph.h> <out.c>")
    with open(argv[1]) as f:
        header = f.read()
    try:
        source = program(header)
    except Unsupported as exc:
        sys.exit(f"gen_layout_printer.py: {argv[1]}: {exc}")
    with open(argv[2], "w") as f:
        f.write(source)


if __name__ == "__main__":
    main(sys.argv)

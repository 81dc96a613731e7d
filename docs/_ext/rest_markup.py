"""A griffe extension for the documentation site: robmod's docstrings are plain prose written
with a few reStructuredText habits (``:func:`name``` roles, ``text::`` before an indented
literal block, ``>>>`` examples, underlined titles).  Markdown would print the roles as text,
read ``>>>`` as nested quotes and an underlined title as a page heading, so each docstring is
rewritten to the Markdown equivalent when griffe loads it (the source is not changed):

* ``:role:`a.b.c``` -> `` `a.b.c` ``, ``:role:`~a.b.c``` -> `` `c` ``;
* ``text::`` + indented block -> ``text:`` + a fenced block;
* consecutive ``>>>`` lines -> a fenced ``pycon`` block;
* a title underlined with ``---``/``===`` -> a bold line.

Loaded by mkdocs.yml (``plugins.mkdocstrings.handlers.python.options.extensions``).
"""
from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|exc|obj|const):`(~?)([^`<]*?)\s*(?:<([^>`]+)>)?`")
UNDERLINE = re.compile(r"^\s*([-=~^])\1{2,}\s*$")


def _role(match: re.Match) -> str:
    tilde, text, target = match.group(1), match.group(2).strip(), match.group(3)
    if target is None and tilde:
        text = text.split(".")[-1]
    return f"`{text.lstrip('.')}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _fence(block: list[str], indent: int, language: str) -> list[str]:
    while block and not block[-1].strip():
        block.pop()
    cut = min(_indent(b) for b in block if b.strip())
    pad = " " * indent
    return ["", pad + "```" + language, *[pad + b[cut:] for b in block], pad + "```", ""]


def markdown(text: str) -> str:
    """The docstring ``text`` with its reStructuredText habits turned into Markdown."""
    lines = ROLE.sub(_role, text).splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith(">>>"):                     # a doctest: up to the blank line
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            out += _fence(lines[i:j], _indent(line), "pycon")
            i = j
            continue
        if (stripped and i + 1 < len(lines) and UNDERLINE.match(lines[i + 1])
                and len(lines[i + 1].strip()) >= len(stripped)):
            out.append(f"{' ' * _indent(line)}**{stripped}**")   # an underlined title
            i += 2
            continue
        if stripped.endswith("::"):                        # a literal block follows
            head = line.rstrip()[:-2]
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and _indent(lines[j]) > _indent(line):
                k = j
                while k < len(lines) and (not lines[k].strip()
                                          or _indent(lines[k]) > _indent(line)):
                    k += 1
                if head.strip():
                    out.append(head if head.endswith(" ") else head + ":")
                out += _fence(lines[j:k], _indent(line), "text")
                i = k
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RestMarkup(griffe.Extension):
    """Rewrites every docstring griffe loads (modules, classes, functions, attributes)."""

    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        if pkg.parent is None:       # the top-level package does not go through on_object
            self.on_object(obj=pkg)

"""YAML loading that remembers line numbers, refuses aliases and duplicate keys.

Only PyYAML's *safe* scalar constructors are used: no Python object is ever
built from a tag.
"""
from __future__ import annotations

import yaml

from ..errors import FileFormatError, Location

_MAX_NODES = 200_000


class LDict(dict):
    """A mapping read from YAML; ``line`` is its own line, ``lines[key]`` each key's line."""

    line: int
    lines: dict


class LList(list):
    """A sequence read from YAML; ``line`` and ``lines[i]`` as for :class:`LDict`."""

    line: int
    lines: list


#: deepest nesting of flow collections ([ ], { }) accepted (robot files need 3)
_MAX_NESTING = 50


def _check_nesting(text: str, filename: str) -> None:
    """Refuse deeply nested flow collections in one linear pass (PyYAML takes seconds on
    thousands of levels before it gives up)."""
    depth, line, quote = 0, 1, None
    for ch in text:
        if ch == "\n":
            line += 1
            quote = None if quote is not None and quote != '"' else quote
        elif quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth > _MAX_NESTING:
                raise FileFormatError(f"the file's structure is nested too deeply (more than "
                                      f"{_MAX_NESTING} levels of [ ] or {{ }})",
                                      Location(file=filename, line=line))
        elif ch in "]}":
            depth = max(0, depth - 1)


def load(text: str, filename: str):
    """Parse YAML text into LDict/LList/scalars (1-based line numbers)."""
    _check_nesting(text, filename)
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as e:   # control characters are checked at construction
        line = text.count("\n", 0, e.position) + 1 if isinstance(e.position, int) else None
        code = e.character if isinstance(e.character, int) else ord(e.character)
        raise FileFormatError(f"control character {code:#x} is not allowed in a YAML file",
                              Location(file=filename, line=line)) from None
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            line = mark.line + 1 if mark else None
            raise FileFormatError(f"YAML syntax error: {e.problem or e}",
                                  Location(file=filename, line=line)) from None
        except yaml.YAMLError as e:
            raise FileFormatError(f"YAML error: {e}", Location(file=filename)) from None
        if node is None:
            raise FileFormatError("file is empty", Location(file=filename))
        seen: set[int] = set()
        return _convert(loader, node, filename, seen)
    except RecursionError:
        raise FileFormatError("the file's structure is nested too deeply",
                              Location(file=filename)) from None
    finally:
        loader.dispose()


def _convert(loader, node, filename, seen):
    if id(node) in seen:
        raise FileFormatError("YAML aliases (*name) are not allowed in robot files",
                              Location(file=filename, line=node.start_mark.line + 1))
    seen.add(id(node))
    if len(seen) > _MAX_NODES:
        raise FileFormatError("file is too large", Location(file=filename))
    line = node.start_mark.line + 1
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.tag not in (
            "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"):
        raise FileFormatError(f"YAML tag {node.tag!r} is not allowed in robot files",
                              Location(file=filename, line=line))
    if isinstance(node, yaml.MappingNode):
        out = LDict()
        out.line, out.lines = line, {}
        for knode, vnode in node.value:
            if knode.tag == "tag:yaml.org,2002:merge":
                raise FileFormatError("YAML merge keys (<<) are not allowed in robot files",
                                      Location(file=filename, line=knode.start_mark.line + 1))
            key = _convert(loader, knode, filename, seen)
            if not isinstance(key, (str, int)):
                raise FileFormatError("mapping keys must be names",
                                      Location(file=filename, line=knode.start_mark.line + 1))
            if key in out:
                raise FileFormatError(f"duplicate key {key!r}",
                                      Location(file=filename, line=knode.start_mark.line + 1))
            out[key] = _convert(loader, vnode, filename, seen)
            out.lines[key] = knode.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        out = LList()
        out.line, out.lines = line, []
        for item in node.value:
            out.append(_convert(loader, item, filename, seen))
            out.lines.append(item.start_mark.line + 1)
        return out
    tag = node.tag
    if tag.startswith("tag:yaml.org,2002:") and tag.rsplit(":", 1)[1] in (
            "null", "bool", "int", "float", "str"):
        try:
            return loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError, KeyError, TypeError, IndexError) as e:
            raise FileFormatError(f"bad value: {e}",
                                  Location(file=filename, line=line)) from None
    raise FileFormatError(f"YAML tag {tag!r} is not allowed in robot files",
                          Location(file=filename, line=line))


__all__ = []

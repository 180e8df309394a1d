"""The helpers' typed signatures, written from the catalog into `_helpers.pyi`.

At run time one mixin per chain (`_chains.EvmMethods`, ...) serves the blocking and the async
node alike, its helpers made from catalog entries when the module loads. A checker sees neither:
no annotation can say "an int on `Node`, an awaitable int on `AsyncNode`", and a helper set with
`setattr` has no static existence. So each helper's signature, value and docstring are written
out for both flavours. Regenerate after changing the catalog or a helper (a test fails until
then)::

    python -m toolkit.client._stubs
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ._chains import NODE_CLASSES
from ._node import Node

STUB = Path(__file__).with_name("_helpers.pyi")

HEADER = '''\
"""The typed signatures of the node helpers, for checkers and editors only (never imported).

Generated from the catalog and `_chains.py` by `python -m toolkit.client._stubs`: do not edit.
"""

from collections.abc import Mapping
from typing import Any

from ._chains import (
{imports}
)
'''


def _own_helpers(mixin: type) -> Iterator[tuple[str, Callable[..., Any]]]:
    """The public helpers a mixin defines itself (its bases' are theirs), in definition order."""
    for name, value in vars(mixin).items():
        if not name.startswith("_") and inspect.isfunction(value):
            yield name, value


def _parameters(signature: inspect.Signature) -> list[str]:
    """A helper's parameters, as annotated: a generated helper's from its catalog entry, a
    hand-written one's by its source."""
    out: list[str] = []
    star = False
    for parameter in list(signature.parameters.values())[1:]:
        annotation = parameter.annotation
        text = "Any" if annotation is inspect.Parameter.empty else str(annotation)
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            out.append(f"**{parameter.name}: {text}")
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            out.append(f"*{parameter.name}: {text}")
            star = True  # what follows is keyword-only already
            continue
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            out.append("*")
            star = True
        default = "" if parameter.default is inspect.Parameter.empty else " = ..."
        out.append(f"{parameter.name}: {text}{default}")
    return out


def _docstring(doc: str | None, indent: str) -> list[str]:
    if not doc:
        return []
    text = inspect.cleandoc(doc)
    if '"""' in text or "\\" in text:
        return [f"{indent}{text!r}"]
    lines = text.splitlines()
    body = [f"{indent}{line}" if line else "" for line in lines[1:]]
    closing = [f'{indent}"""'] if body else []
    last = '"""' if not body else ""
    return [f'{indent}"""{lines[0]}{last}', *body, *closing]


def _helper(name: str, func: Callable[..., Any], *, aio: bool) -> list[str]:
    signature = inspect.signature(func)
    parameters = _parameters(signature)
    value = signature.return_annotation
    value = "Any" if value is inspect.Signature.empty else str(value)
    prefix = "async def" if aio else "def"
    head = f"    {prefix} {name}(self{''.join(', ' + p for p in parameters)}) -> {value}:"
    if len(head) > 100:
        inner = "".join(f"        {p},\n" for p in ["self", *parameters])
        head = f"    {prefix} {name}(\n{inner}    ) -> {value}:"
    return [head, *_docstring(func.__doc__, "        "), "        ..."]


def _classes() -> list[type[Node]]:
    """Each chain's blocking node class, once."""
    return list(dict.fromkeys(NODE_CLASSES.values()))


def _mixins(node_classes: list[type[Node]]) -> list[type]:
    """The chains' helper mixins, each after its bases (the node classes' first bases, and up)."""
    found: list[type] = []
    for node_class in node_classes:
        chain = [k for k in node_class.__mro__[1].__mro__ if k.__name__.endswith("Methods")]
        found += [mixin for mixin in reversed(chain) if mixin not in found]
    return found


def render() -> str:
    """The text of `_helpers.pyi` for the catalog and helpers as they are now: each mixin's
    helpers once per flavour, in classes that inherit as the mixins do, and for each node class
    the helpers it has and its typed `aio`."""
    node_classes = _classes()
    blocks: list[str] = []
    for mixin in _mixins(node_classes):
        bases = [b.__name__ for b in mixin.__bases__ if b.__name__.endswith("Methods")]
        for aio in (False, True):
            prefix = "Async" if aio else ""
            parents = ", ".join(prefix + base for base in bases)
            lines = [f"class {prefix}{mixin.__name__}{f'({parents})' if parents else ''}:"]
            lines += _docstring(mixin.__doc__, "    ")
            for name, func in _own_helpers(mixin):
                if len(lines) > 1:
                    lines.append("")
                lines += _helper(name, func, aio=aio)
            if len(lines) == 1:
                lines.append("    ...")
            blocks.append("\n".join(lines))
    for node_class in node_classes:
        stem = node_class.__name__.removesuffix("Node")
        methods = node_class.__mro__[1].__name__
        async_class = node_class.aio_class.__name__
        blocks.append(
            f"class {stem}Helpers({methods}):\n"
            f'    """The helpers of `{node_class.__name__}`, and its async twin."""\n\n'
            "    @property\n"
            f"    def aio(self) -> {async_class}:\n"
            '        """The async twin of this client: same node, meter, ledger and settings."""\n'
            "        ..."
        )
        blocks.append(
            f'class Async{stem}Helpers(Async{methods}):\n    """The helpers of `{async_class}`."""'
        )
    imports = sorted(node_class.aio_class.__name__ for node_class in node_classes)
    header = HEADER.format(imports="\n".join(f"    {name}," for name in imports))
    return header + "".join(f"\n\n{block}\n" for block in blocks)


def main(argv: list[str]) -> None:
    path = Path(argv[0]) if argv else STUB
    path.write_text(render())
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])

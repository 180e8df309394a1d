"""Numbers in prose: a Markdown sentence whose numbers are computed, not typed.

    toolkit.say("The run spent **{ru:,} RU** on {calls:,} calls.", ru=gw.ledger.total_ru,
                calls=len(gw.ledger))

shows the sentence as Markdown in the notebook (and in its report), its numbers formatted from
the values given, so the text cannot drift from the tables beside it. Outside IPython it prints.
"""

from __future__ import annotations

import re
import string
from typing import Any

from .._errors import ValidationError
from .._redact import scrub

# Text values are shown as they are, not read as Markdown: a name holding `*` or `_` stays a name.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|!])")


def markdown(template: str, /, **values: Any) -> str:
    """`template` with each ``{name}`` or ``{name:spec}`` replaced by ``values[name]`` formatted
    by `spec` (``{ru:,}``: 12,345; ``{share:.1%}``: 42.0%). Text values are escaped, so they show
    as they are; secrets are scrubbed. ValidationError for a field with no value, an unnamed
    field (``{}``), or a value left unused."""
    if not isinstance(template, str):
        raise ValidationError(f"template: must be a str, got {type(template).__name__}")
    used = set()
    for _, field, _, _ in string.Formatter().parse(template):
        if field is None:
            continue
        name = re.split(r"[.\[]", field, maxsplit=1)[0]
        if not name or name.isdigit():
            raise ValidationError(
                f"template: every field needs a name ({{n:,}}, not {{{field}}}), so the "
                "sentence says which value each number is"
            )
        if name not in values:
            raise ValidationError(f"template: the field {{{name}}} has no value: pass {name}=...")
        used.add(name)
    unused = sorted(set(values) - used)
    if unused:
        raise ValidationError(f"{unused[0]}: given but not in the template")
    shown = {
        name: _MARKDOWN_SPECIAL.sub(r"\\\1", value) if isinstance(value, str) else value
        for name, value in values.items()
    }
    return scrub(template.format(**shown))


def say(template: str, /, **values: Any) -> None:
    """Show `markdown(template, **values)` as Markdown in the notebook; print it outside IPython."""
    text = markdown(template, **values)
    from IPython import get_ipython  # IPython comes with ipywidgets, a core dependency

    if get_ipython() is None:
        print(text)
        return
    from IPython.display import Markdown, display

    display(Markdown(text))
